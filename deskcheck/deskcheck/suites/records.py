"""What the ranks recorded, read back: one :class:`Decision` per recorded evaluation.

A rank's file (:func:`deskcheck.suites.recorder.rank_file`) holds one JSON line a flush. The
recorder's (key ``r``) is :mod:`marshal` packed (base64: a tenth of JSON's time in the rank;
the same interpreter reads it back): the collectives the group had run (the rows' epoch), the
rows, the values the group agreed on since the last line, and ``new`` (a new recording: its
numbers, agreed values and calls start anew); the sites the file did not hold yet (file,
line, kind, condition, function, the names its inputs pair with) are packed apart (key ``s``:
each site of the rank's process up to the flush). A row is ``(site, way, inputs)`` for a
decision, ``(site, args)`` for a call's entry and ``(~depth, value)`` for its return (the
call's record: its path is the calls open at its entry, its own last); an entry with no args
is its site alone, a return of None its ``~depth`` alone. A number, bool, None
or str is kept as the rank read it and shown here, as
:func:`deskcheck.suites._values.show` shows it; anything else is the text the rank showed
(bytes). Inputs are a tuple in the order of the site's names (a read that was no input:
:data:`deskcheck.suites.recorder.NO_INPUT`) or a dict; an input showing an agreed value is
marked agreed. Earlier forms are read too: ``m`` lines (records ``[n, collectives, site,
took, inputs, call path]``, a str being shown text), ``batch`` lines and one record a line.
A line cut by a kill is dropped.
"""

from __future__ import annotations

import base64
import json
import marshal
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.suites._values import show
from deskcheck.suites.recorder import NO_INPUT, rank_file

_WAYS = {"if": ("true", "false"), "ternary": ("true", "false"), "while": ("true", "false"),
         "for": ("next item", "loop done")}
# A call record's function is the last entry of its own path.


@dataclass(frozen=True)
class Decision:
    """One recorded evaluation of a decision in one rank."""

    n: int
    epoch: int
    file: str
    line: int
    kind: str
    condition: str
    took: bool | int | str | None
    inputs: dict[str, str] = field(default_factory=dict)
    path: tuple[str, ...] = ()
    agreed: frozenset[str] = frozenset()

    @property
    def where(self) -> str:
        return f"{relative(self.file)}:{self.line}"

    @property
    def way(self) -> str:
        if self.kind == "call":
            return f"returned {self.took}"
        if self.kind == "set":
            return f"stored {self.took}"
        if self.kind in ("for", "while") and type(self.took) is int:
            return f"{self.took} iteration" + ("" if self.took == 1 else "s")
        if self.took is None:
            return "no line ran after it"
        yes, no = _WAYS.get(self.kind, ("taken", "not taken"))
        return yes if self.took else no

    def as_json(self) -> dict[str, Any]:
        return {"where": self.where, "kind": self.kind, "condition": self.condition,
                "way": self.way, "took": self.took, "inputs": self.inputs,
                "path": list(self.path)}


def relative(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel



# A rank file -> where its current record starts (a rank pool's folder keeps its files: each
# task's ranks append to theirs, see deskcheck.suites.decision_log.clear).
_STARTS: dict[str, int] = {}


def start_after(path: str | Path, size: int) -> None:
    """What ``path`` holds up to ``size`` is no longer read as decisions (its tables of sites
    still are: a rank writes the table of a site once a file)."""
    _STARTS[str(path)] = size


def forget_starts(folder: str | Path) -> None:
    """``folder`` was made anew (a scratch folder's name can come back): its files are read
    from their start."""
    inside = os.path.join(str(folder), "")
    for key in [k for k in _STARTS if k.startswith(inside)]:
        del _STARTS[key]


def _earlier_sites(text: str) -> dict[int, list[Any]]:
    """The tables of sites in the lines before a file's current record."""
    sites: dict[int, list[Any]] = {}
    for line in text.splitlines():
        try:
            raw = json.loads(line)
            if raw.get("s"):
                sites.update(marshal.loads(base64.b64decode(raw["s"])))
            sites.update({int(k): v for k, v in raw.get("sites", {}).items()})
        except (ValueError, KeyError, TypeError, EOFError, AttributeError):
            continue
    return sites


def _rank_decisions(text: str, earlier: str = "") -> list[Decision]:
    decisions: list[Decision] = []
    sites: dict[int, list[Any]] = _earlier_sites(earlier) if earlier else {}
    paths: dict[int, tuple[str, ...]] = {}
    agreed: set[str] = set()
    calls = _Calls()
    for line in text.splitlines():
        try:
            raw = json.loads(line)
            table = raw.get("s")
            if table:  # the sites the file did not hold yet, packed apart
                raw["sites"] = marshal.loads(base64.b64decode(table))
            if "r" in raw:  # the recorder's own lines (see DecisionRecorder.flush)
                epoch, rows, fresh, new = marshal.loads(base64.b64decode(raw["r"]))
                sites.update(raw.get("sites", {}))
                if new:
                    agreed, calls = set(), _Calls()
                agreed.update(fresh)
                calls.read(rows, int(epoch), sites, agreed, decisions)
                continue
            if "m" in raw:  # an earlier form of the recorder's lines
                raw.update(zip(("_", "rows", "agreed", "new"),
                               marshal.loads(base64.b64decode(raw["m"])), strict=True))
            if "rows" in raw:
                if raw.get("new"):
                    agreed = set()
                sites.update({int(k): v for k, v in raw.get("sites", {}).items()})
                paths.update({int(k): tuple(v) for k, v in raw.get("paths", {}).items()})
                agreed.update(raw.get("agreed", ()))
                decisions.extend(_row(row, sites, paths, agreed) for row in raw["rows"])
            elif "batch" in raw:
                sites.update({int(k): v for k, v in raw.get("sites", {}).items()})
                paths.update({int(k): tuple(v) for k, v in raw.get("paths", {}).items()})
                for n, epoch, site, took, inputs, agreed, path in raw["batch"]:
                    file, at, kind, condition, function = sites[int(site)]
                    decisions.append(Decision(
                        int(n), int(epoch), file, int(at), kind, condition, took,
                        dict(inputs), paths.get(int(path)) or (function,), frozenset(agreed)))
            else:  # one record a line
                decisions.append(Decision(int(raw["n"]), int(raw.get("c", 0)), raw["file"],
                                          int(raw["line"]), raw["kind"], raw["condition"],
                                          raw["took"], dict(raw.get("inputs", {})),
                                          tuple(raw.get("path", ())),
                                          frozenset(raw.get("agreed", ()))))
        except (ValueError, KeyError, TypeError, EOFError, AttributeError, IndexError):
            continue
    return decisions


def _shown(value: Any) -> str:
    return value if type(value) is str else show(value)


def _text(value: Any) -> str:
    """A value of a recorder's row, shown: bytes are the text the rank showed."""
    return value.decode("utf-8", "replace") if type(value) is bytes else show(value)


class _Calls:
    """The calls a rank's rows entered and have not left, read row by row into decisions."""

    def __init__(self) -> None:
        self.open: list[tuple[int, tuple[Any, ...], tuple[str, ...]]] = []  # site, args, path
        self.path: tuple[str, ...] = ()
        self.n = 0

    def read(self, rows: list[tuple[Any, ...]], epoch: int, sites: dict[int, list[Any]],
             agreed: set[str], out: list[Decision]) -> None:
        """Append the decisions of ``rows`` (see the module docstring) to ``out``."""
        for row in rows:
            if type(row) is int:  # a call's entry with no args, or a return of None
                row = (row, ()) if row >= 0 else (row, None)
            if len(row) == 3:  # a decision
                site, took, kept = row
                out.append(self._decision(site, took, kept, self.path, epoch, sites, agreed))
            elif row[0] >= 0:  # a call's entry
                site, args = row
                self.open.append((site, args, self.path))
                self.path = (*self.path, sites[site][4])
            elif ~row[0] < len(self.open):  # its return (an inner call left by a raise too)
                site, args, outer = self.open[~row[0]]
                del self.open[~row[0]:]
                out.append(self._decision(site, row[1], args, (*outer, sites[site][4]),
                                          epoch, sites, agreed))
                self.path = outer

    def _decision(self, site: int, took: Any, kept: Any, path: tuple[str, ...], epoch: int,
                  sites: dict[int, list[Any]], agreed: set[str]) -> Decision:
        file, at, kind, condition, function, names = sites[site]
        if kind in ("call", "set") or type(took) is bytes:
            took = _text(took)
        pairs = kept.items() if type(kept) is dict else zip(names, kept, strict=False)
        inputs = {k: _text(v) for k, v in pairs if v is not NO_INPUT}
        self.n += 1
        return Decision(self.n, epoch, file, int(at), kind, condition, took, inputs,
                        path or (function,),
                        frozenset(k for k, v in inputs.items() if v in agreed))


def _row(row: list[Any], sites: dict[int, list[Any]], paths: dict[int, tuple[str, ...]],
         agreed: set[str]) -> Decision:
    n, epoch, site, took, kept, path = row
    file, at, kind, condition, function, names = sites[int(site)]
    path = tuple(path) if type(path) in (list, tuple) else paths.get(int(path))
    if kind in ("call", "set"):
        took = _shown(took)
    pairs = kept.items() if type(kept) is dict else zip(names, kept, strict=False)
    inputs = {k: _shown(v) for k, v in pairs}
    return Decision(int(n), int(epoch), file, int(at), kind, condition, took, inputs,
                    path or (function,), frozenset(k for k, v in inputs.items() if v in agreed))


def read_records(folder: str | Path, world: int) -> list[list[Decision]]:
    """Each rank's decisions in order; a rank with no file recorded nothing. A line cut by a
    kill mid-write is dropped."""
    ranks: list[list[Decision]] = []
    for rank in range(world):
        path = rank_file(folder, rank)
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        start = _STARTS.get(str(path), 0)
        if start > len(data):  # emptied or made anew since: all of it is the record
            start = 0
        ranks.append(_rank_decisions(data[start:].decode("utf-8", "replace"),
                                     data[:start].decode("utf-8", "replace")))
    return ranks
