"""What the ranks recorded, read back: one :class:`Decision` per recorded evaluation.

A rank's file (:func:`deskcheck.suites.recorder.rank_file`) holds one JSON line a flush:
``rows``, records ``[n, collectives, site, took, inputs, call path]``, with the ``sites``
(file, line, kind, condition, function, the names its inputs pair with) the file did not hold yet,
and the values the group ``agreed`` on since the last line (``new``: a new recording, none
agreed yet). The recorder packs them with :mod:`marshal` (base64, key ``m``: a tenth of
JSON's time in the rank; the same interpreter reads them back), the sites apart (key ``s``:
a rank packs the table of one set of sites once). A number, bool or None is
kept as the rank read it (shown here, as :func:`deskcheck.suites._values.show` shows it),
any other value as the text the rank showed; a call's inputs, and a decision's when they are
all numbers, bools or None, are a tuple in the order of the site's names (else a dict); an
input showing an agreed value is marked agreed. (``batch`` lines, of shown values with their
agreed inputs and numbered call ``paths``, are read too.) A line cut by a kill is dropped.
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
from deskcheck.suites.recorder import rank_file

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
    for line in text.splitlines():
        try:
            raw = json.loads(line)
            if "m" in raw:  # the recorder's own lines (see DecisionRecorder.flush)
                table = raw.get("s")
                raw = dict(zip(("sites", "rows", "agreed", "new"),
                               marshal.loads(base64.b64decode(raw["m"])), strict=True))
                if table:  # the sites the file did not hold yet, packed apart
                    raw["sites"] = marshal.loads(base64.b64decode(table))
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
        except (ValueError, KeyError, TypeError, EOFError):
            continue
    return decisions


def _shown(value: Any) -> str:
    return value if type(value) is str else show(value)


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
