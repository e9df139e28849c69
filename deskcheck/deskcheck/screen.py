"""One width rule for everything deskcheck prints for people, and layout that keeps ids whole.

The width is ``COLUMNS`` when set, else the terminal's width, else 80 (a CI log, a pipe): the
same rule on a terminal and off it, for every command. Ids (node ids, mutant ids, paths) are
never cut and never folded mid-word: one too long for its line breaks only after a separator
(``::``, ``/``, ``.``, ``-``, ``,``) or before a ``[`` (and, when a piece alone is wider than
the line, between the words of a snake_case name), its continuation indented, so an owner id
still shows its parametrization. Tables keep the columns that matter and drop the others,
saying which (``fit_table``).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

DEFAULT_WIDTH = 80
_BREAK_AFTER = re.compile(r"(?<=::)|(?<=[/,-])(?=.)|(?<=\.)(?!py\b)(?=.)")
_WORDS = re.compile(r"(?<=_)(?=.)")  # the last resort: between the words of a snake_case name
_TOKENS = re.compile(r"[^ ]+| +")


def width(stream: IO[str] | None = None) -> int:
    """``COLUMNS`` if set, else the terminal's width when ``stream`` is one, else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    except (AttributeError, ValueError, OSError):
        pass
    return DEFAULT_WIDTH


def console(stderr: bool = False, **options: Any) -> Console:
    """A rich console at ``width()`` (of stderr or stdout)."""
    from rich.console import Console

    return Console(stderr=stderr, width=width(sys.stderr if stderr else sys.stdout), **options)


def id_pieces(text: str) -> list[str]:
    """``text`` cut at the places an id may break: after ``::`` ``/`` ``.`` ``-`` ``,``, and
    before a ``[`` whose parametrization stays one piece. Joined, the pieces are ``text``."""
    head, bracket, params = text.partition("[")
    pieces = [p for p in _BREAK_AFTER.split(head) if p]
    return pieces + ["[" + params] if bracket else pieces


def _smaller(piece: str) -> list[str]:
    """A piece too long for a line: at its own separators (a parametrization's ``-``),
    else between the words of a snake_case name."""
    inner = [p for p in _BREAK_AFTER.split(piece) if p]
    return inner if len(inner) > 1 else [p for p in _WORDS.split(piece) if p]


def id_lines(text: str, room: int, indent: int = 2, first_room: int | None = None
             ) -> list[str]:
    """``text`` (an id) in lines of at most ``room`` columns (the first: ``first_room``),
    broken only between pieces; continuation lines start with ``indent`` spaces. A single
    piece wider than the room (no place to break) gets a line of its own, whole."""
    first_room = room if first_room is None else first_room
    if len(text) <= first_room:
        return [text]
    lines, line = [], ""
    pieces = [small for piece in id_pieces(text)
              for small in (_smaller(piece) if len(piece) > room - indent else [piece])]
    for piece in pieces:
        limit = first_room if not lines else room - indent
        if len(line) + len(piece) > limit and (line or not lines and first_room < room):
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return [lines[0], *(" " * indent + rest for rest in lines[1:])]


def wrap(text: str, room: int, indent: int | None = None) -> list[str]:
    """A line of prose and ids in lines of at most ``room``: broken at spaces, a word too long
    for a line broken as ``id_lines`` does. Continuations are indented like the line, plus 2
    (or ``indent``)."""
    if len(text) <= room:
        return [text]
    lead = len(text) - len(text.lstrip(" "))
    hang = " " * (lead + 2 if indent is None else indent)
    lines: list[str] = []
    line, gap = text[:lead], ""
    for token in _TOKENS.findall(text[lead:]):
        if token.isspace():
            gap = token
            continue
        if len(line) + len(gap) + len(token) <= room:
            line += (gap if line.strip() else "") + token
        else:
            breaks = len(token) > room - len(hang)  # too long for any line: start it here
            if line.strip() and not breaks:
                lines.append(line)
                line = hang
            if len(line) + len(token) <= room:
                line += token
            else:
                line += gap if line.strip() else ""
                first, *rest = id_lines(token, room - len(hang), indent=0,
                                        first_room=room - len(line))
                lines.append(line + first)
                lines += [hang + piece for piece in rest[:-1]]
                line = hang + rest[-1] if rest else hang
        gap = ""
    if line.strip():
        lines.append(line)
    return [entry.rstrip() for entry in lines if entry.strip()]


def relative(path: str | os.PathLike[str], base: str | os.PathLike[str] | None = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when it lies under it."""
    from pathlib import Path

    try:
        return Path(path).resolve().relative_to(Path(base or os.getcwd()).resolve()).as_posix()
    except (ValueError, OSError):
        return str(path)


def block(text: str, room: int) -> str:
    """Every line of ``text`` wrapped with ``wrap``."""
    return "\n".join(out for line in text.splitlines() for out in (wrap(line, room) or [""]))


@dataclass
class Column:
    """A table column: ``keep`` columns are never dropped; an ``ids`` column's lines are
    wrapped with ``id_lines`` to the room left (never cut); the others are dropped, in
    ``drop_order`` (lowest first), when the table would be wider than the screen."""

    header: str
    keep: bool = False
    ids: bool = False
    drop_order: int = 0
    justify: str = "left"
    cells: list[Any] = field(default_factory=list)


# rich's default box: "│ " before each column, " " after it, one closing "│"
def _table_width(widths: Sequence[int]) -> int:
    return sum(widths) + 3 * len(widths) + 1


def _cell_width(cell: Any) -> int:
    return max((len(line) for line in str(getattr(cell, "plain", cell)).splitlines()), default=0)


def fit_table(columns: list[Column], room: int, title: str = "") -> tuple[Table, list[str]]:
    """A rich table of ``columns`` no wider than ``room``: droppable columns go first (their
    headers returned, for a note), then id columns are wrapped at separators."""
    from rich.table import Table
    from rich.text import Text

    shown = list(columns)
    natural = {id(c): max([len(c.header), *map(_cell_width, c.cells)]) for c in columns}
    droppable = sorted((c for c in columns if not c.keep), key=lambda c: c.drop_order)
    dropped: list[str] = []
    while _table_width([natural[id(c)] for c in shown]) > room and droppable:
        gone = droppable.pop(0)
        shown.remove(gone)
        dropped.append(gone.header)
    fixed = sum(natural[id(c)] for c in shown if not c.ids)
    id_columns = [c for c in shown if c.ids]
    spare = room - _table_width([0] * len(shown)) - fixed
    table = Table(title=title or None, title_justify="left")
    laid_out = []
    for column in shown:
        cell_room = natural[id(column)]
        if column.ids:
            cell_room = max(12, min(cell_room, spare // max(1, len(id_columns))))
        table.add_column(column.header, justify=column.justify, no_wrap=True,  # type: ignore[arg-type]
                         min_width=cell_room if column.ids else None,
                         max_width=cell_room if column.ids else None)
        laid_out.append([_fit_cell(cell, cell_room) if column.ids else cell
                         for cell in column.cells])
    for row in zip(*laid_out, strict=True):
        table.add_row(*(cell if isinstance(cell, Text) else Text(str(cell)) for cell in row))
    return table, dropped


def _fit_cell(cell: Any, room: int) -> Any:
    """Each line of ``cell`` (a str or a rich Text) as ``id_lines`` within ``room``, its
    leading indentation kept."""
    from rich.text import Text

    lines = cell.split("\n") if isinstance(cell, Text) else [Text(line) for line in
                                                              str(cell).splitlines()]
    out = Text(style=cell.style if isinstance(cell, Text) else "")
    for line in lines:
        lead = len(line.plain) - len(line.plain.lstrip(" "))
        for piece in id_lines(line.plain.strip(), room - lead, indent=2):
            out.append(("\n" if out.plain else "") + " " * lead + piece, style=line.style or None)
    return out


def dropped_note(dropped: list[str], how: str = "--json has them") -> str:
    """The note under a table that left columns out."""
    if not dropped:
        return ""
    return f"(not shown at this width: {', '.join(dropped)}; {how}, or set COLUMNS wider)"


class Wrapped:
    """A table cell of prose and ids, laid out by ``block`` at the width rich gives it: it
    measures at least its longest piece between separators, so rich narrows it only when
    the table cannot fit otherwise (then a name breaks between its snake_case words), and
    it never folds an id mid-word."""

    def __init__(self, text: str, style: str = ""):
        self.text, self.style = text, style

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        lines = self.text.splitlines() or [""]
        pieces = [p for line in lines for word in line.split() for p in id_pieces(word)]
        longest = max(len(line) for line in lines)
        return Measurement(min(longest, max((len(p) for p in pieces), default=1) + 2), longest)

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.text import Text

        yield Text(block(self.text, options.max_width), style=self.style, no_wrap=True)
