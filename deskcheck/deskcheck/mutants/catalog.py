"""The mutant catalog: a TOML file of named, hand-declared defects.

Every problem in a catalog is collected (not just the first) and reported with the
``file:line`` of the offending key, so one edit fixes them all. Nothing here imports the
target code: resolving targets and locating operators happens later (``mutation``).

Layout::

    [sweep]                      # optional
    tests = ["tests"]            # the test universe, relative to this file
    timeout_factor = 3.0         # timeout = factor x baseline of the items run + timeout_s
    timeout_s = 10.0

    [[mutant]]
    id = "ballot.M2"
    title = "recovery edge disabled"
    target = "pkg.module:Class.method"        # qualified name, never a line number
    operator = "force-branch"                 # + the operator's own keys
    condition = "streak >= limit"
    to = false
    owners = ["tests/test_ballot.py::test_recovery_edge", "-k recovery"]
    expect = "told to admit .* with room for"  # optional regex the owner's failure must match
    accepted_survivor = "equivalent: ..."      # optional, reason required
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import CatalogError
from deskcheck.mutants.catalog_checks import (
    OwnerRoots,
    did_you_mean,
    kills_marker_ids,
    static_owner_problem,
    static_target_problem,
)
from deskcheck.mutants.occurrence_check import static_occurrence_problem
from deskcheck.mutants.operators import OperatorParamError, catalog_operators, operator_class
from deskcheck.mutants.operators.base import line_key_hint
from deskcheck.mutants.uniformity_owner import (
    AuditSettings,
    is_uniformity_owner,
    owner_problem,
    parse_settings,
)
from deskcheck.textfiles import read_toml_text

TARGET_RE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
COMMON_KEYS = ("id", "title", "target", "operator", "owners", "expect", "accepted_survivor",
               "timeout_s")
SWEEP_KEYS = ("tests", "timeout_factor", "timeout_s", "search_timeout_s", "wrong_failure_types",
              "crash_kills")
DEFAULT_WRONG_FAILURE_TYPES: tuple[str, ...] = (
    "ImportError", "ModuleNotFoundError", "NameError", "UnboundLocalError", "TypeError",
    "AttributeError", "SyntaxError", "IndentationError", "RecursionError", "fixture",
)


@dataclass(frozen=True)
class Mutant:
    """One named defect as declared in the catalog."""

    id: str
    title: str
    target: str
    operator: str
    params: dict[str, Any]
    owners: tuple[str, ...] = ()
    expect: str | None = None
    accepted_survivor: str | None = None
    timeout_s: float | None = None
    catalog_file: str = ""
    line: int = 0

    @property
    def location(self) -> str:
        return f"{self.catalog_file}:{self.line}"

    @property
    def module(self) -> str:
        return self.target.split(":", 1)[0]

    @property
    def qualname(self) -> str:
        return self.target.split(":", 1)[1]

    def definition_fingerprint(self) -> str:
        """Hash of everything that defines the mutant (not where it is written)."""
        body = {"id": self.id, "target": self.target, "operator": self.operator,
                "params": self.params, "owners": list(self.owners), "expect": self.expect}
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SweepSettings:
    tests: tuple[str, ...] = ()
    timeout_factor: float = 3.0
    timeout_s: float = 10.0
    wrong_failure_types: tuple[str, ...] = DEFAULT_WRONG_FAILURE_TYPES
    search_timeout_s: float | None = None  # the non-owner search's own budget (None: 60 s+)
    crash_kills: str = "hold"  # "fall-short": a kill only by a crash is a WRONG_FAILURE


@dataclass(frozen=True)
class Catalog:
    path: Path
    mutants: tuple[Mutant, ...]
    settings: SweepSettings = field(default_factory=SweepSettings)
    uniformity: AuditSettings | None = None  # [uniformity]: the audit ``uniformity:`` owners run

    @property
    def root(self) -> Path:
        return self.path.parent

    def get(self, mutant_id: str) -> Mutant:
        for mutant in self.mutants:
            if mutant.id == mutant_id:
                return mutant
        raise CatalogError(f"no mutant {mutant_id!r} in the catalog", location=str(self.path),
                           fix="choose one of: " + ", ".join(m.id for m in self.mutants))

    def select(self, ids: list[str] | None) -> list[Mutant]:
        """The mutants named by ``--only`` (all when ``ids`` is empty), unknown ids rejected."""
        if not ids:
            return list(self.mutants)
        known = {m.id for m in self.mutants}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise CatalogError(f"--only names unknown mutant(s): {', '.join(unknown)}",
                               location=str(self.path),
                               fix="run `deskcheck mutants list` for the ids")
        wanted = set(ids)
        return [m for m in self.mutants if m.id in wanted]


class _Lines:
    """Find the line of ``[[mutant]]`` blocks and their keys in the raw TOML text."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.blocks: list[tuple[int, int]] = []  # (header line, end line) for [[mutant]]
        self.sweep: tuple[int, int] | None = None
        self.uniformity: tuple[int, int] | None = None
        headers = [i for i, line in enumerate(self.lines) if line.lstrip().startswith("[")
                   and not re.match(r"^\s*\[\s*\]", line) and self._is_header(line)]
        for n, start in enumerate(headers):
            end = headers[n + 1] if n + 1 < len(headers) else len(self.lines)
            name = self.lines[start].strip()
            if re.match(r"^\[\[\s*mutant\s*\]\]", name):
                self.blocks.append((start, end))
            elif re.match(r"^\[\s*sweep\s*\]", name):
                self.sweep = (start, end)
            elif re.match(r"^\[\s*uniformity\s*\]", name):
                self.uniformity = (start, end)

    @staticmethod
    def _is_header(line: str) -> bool:
        return bool(re.match(r"^\s*\[\[?\s*[A-Za-z_][\w.\-]*\s*\]\]?\s*(#.*)?$", line))

    def value_line(self, block: tuple[int, int] | None, value: str, key: str) -> int:
        """The line of the quoted string ``value`` in ``block`` (an entry of a list that may
        span lines), else the line of ``key``."""
        if block is not None:
            quoted = (f'"{value}"', f"'{value}'")
            for i in range(*block):
                if any(q in self.lines[i] for q in quoted):
                    return i + 1
        return self.key_line(block, key)

    def key_line(self, block: tuple[int, int] | None, key: str) -> int:
        if block is None:
            return 1
        start, end = block
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        for i in range(start, end):
            if pattern.match(self.lines[i]):
                return i + 1
        return start + 1


def load_catalog(path: str | Path) -> Catalog:
    """Parse and validate a catalog; raise one ``CatalogError`` listing every problem."""
    path = Path(path).resolve()
    if not path.is_file():
        raise CatalogError(f"catalog {path} does not exist", location=str(path),
                           fix="create it or point --catalog / [tool.deskcheck] catalog at it")
    text = read_toml_text(path, CatalogError)  # non-UTF-8 bytes, a BOM: file:line
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise CatalogError(f"catalog is not valid TOML: {exc}",
                           location=f"{path}:{line.group(1) if line else 1}",
                           fix="correct the TOML syntax at that line") from exc
    lines = _Lines(text)
    errors: list[CatalogError] = []

    def err(line: int, message: str, fix: str) -> None:
        errors.append(CatalogError(message, location=f"{path}:{line}", fix=fix))

    for key in data:
        if key not in ("mutant", "sweep", "uniformity"):
            err(1, f"unknown top-level key {key!r}",
                "use [sweep], [uniformity] and [[mutant]] tables only")
    settings = _settings(data.get("sweep", {}), lines, err)
    audit = None if "uniformity" not in data else parse_settings(
        data["uniformity"], lambda key: lines.key_line(lines.uniformity, key), err)
    raw_mutants = data.get("mutant", [])
    if not isinstance(raw_mutants, list):
        err(1, "'mutant' must be an array of tables", "write each mutant as [[mutant]]")
        raw_mutants = []
    mutants: list[Mutant] = []
    first_line: dict[str, int] = {}
    marked = _LazyMarked(path.parent, settings.tests)
    owner_roots = OwnerRoots(path.parent, settings.tests)
    for index, raw in enumerate(raw_mutants):
        block = lines.blocks[index] if index < len(lines.blocks) else None
        mutant = _mutant(raw, block, lines, str(path), err, marked, owner_roots, audit)
        # an id is taken even by an entry with other problems: its duplicate is named now,
        # not in the next pass
        mutant_id = raw.get("id") if isinstance(raw, dict) else None
        header = block[0] + 1 if block else 1
        if isinstance(mutant_id, str) and mutant_id.strip():
            if mutant_id in first_line:
                err(header, f"duplicate mutant id {mutant_id!r} (first at line "
                    f"{first_line[mutant_id]})", "give every mutant a unique id")
                continue
            first_line[mutant_id] = header
        if mutant is not None:
            mutants.append(mutant)
    if errors:
        errors.sort(key=lambda e: int(str(e.location).rpartition(":")[2] or 0))
        raise CatalogError(f"{len(errors)} problem(s) in catalog {path}", location=str(path),
                           errors=errors)
    return Catalog(path=path, mutants=tuple(mutants), settings=settings, uniformity=audit)


class _LazyMarked:
    """The ids ``@pytest.mark.kills`` names in the [sweep] tests, read (statically) only when
    a mutant declares no owners; ``None`` when a marker's id is not a literal."""

    def __init__(self, root: Path, tests: tuple[str, ...]):
        self.root, self.tests = root, tests
        self._ids: set[str] | None = None
        self._read = False

    def ids(self) -> set[str] | None:
        if not self._read:
            self._ids, self._read = kills_marker_ids(self.root, self.tests), True
        return self._ids


def _positive_number(value: Any) -> bool:
    """A finite number above zero (TOML's ``nan``/``inf`` are floats that bound nothing)."""
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value) and value > 0)


def _settings(raw: Any, lines: _Lines, err) -> SweepSettings:
    block = lines.sweep
    if not isinstance(raw, dict):
        err(1, "[sweep] must be a table", "write it as a [sweep] section")
        return SweepSettings()
    for key in raw:
        if key not in SWEEP_KEYS:
            err(lines.key_line(block, key), f"unknown [sweep] key {key!r}"
                + did_you_mean(key, SWEEP_KEYS), f"allowed keys: {', '.join(SWEEP_KEYS)}")
    values: dict[str, Any] = {}
    tests = raw.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        err(lines.key_line(block, "tests"), "[sweep] tests must be a list of paths",
            'e.g. tests = ["tests"]')
    else:
        values["tests"] = tuple(tests)
    for key in ("timeout_factor", "timeout_s", "search_timeout_s"):
        if key in raw:
            value = raw[key]
            if not _positive_number(value):
                err(lines.key_line(block, key), f"[sweep] {key} must be a positive number",
                    f"e.g. {key} = 3")
            else:
                values[key] = float(value)
    if "wrong_failure_types" in raw:
        value = raw["wrong_failure_types"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            err(lines.key_line(block, "wrong_failure_types"),
                "[sweep] wrong_failure_types must be a list of exception names",
                'e.g. wrong_failure_types = ["ImportError", "TypeError"]')
        else:
            values["wrong_failure_types"] = tuple(value)
    if "crash_kills" in raw:
        value = raw["crash_kills"]
        if value not in ("hold", "fall-short"):
            err(lines.key_line(block, "crash_kills"),
                f"[sweep] crash_kills = {value!r}: must be \"hold\" or \"fall-short\"",
                'crash_kills = "fall-short" (a kill only by a TypeError/AttributeError/'
                'NameError then falls short)')
        else:
            values["crash_kills"] = value
    return SweepSettings(**values)


def _mutant(raw: Any, block, lines: _Lines, file: str, err,
            marked: _LazyMarked | None = None,
            owner_roots: list[Path] | None = None,
            audit: AuditSettings | None = None) -> Mutant | None:
    header = block[0] + 1 if block else 1
    if not isinstance(raw, dict):
        err(header, "a mutant must be a table", "write it as [[mutant]] with keys")
        return None

    def line(key: str) -> int:
        return lines.key_line(block, key)

    problems = 0

    def bad(at: int, message: str, fix: str) -> None:
        """Report a problem of this entry (an entry with any is not built)."""
        nonlocal problems
        problems += 1
        err(at, message, fix)

    for key in ("id", "title", "target", "operator"):
        if not isinstance(raw.get(key), str) or not raw.get(key, "").strip():
            bad(line(key) if key in raw else header, f"mutant needs a non-empty string {key!r}",
                f'add {key} = "..." to this [[mutant]]')
    mutant_id = raw.get("id", "")
    if isinstance(mutant_id, str) and mutant_id and not ID_RE.match(mutant_id):
        bad(line("id"), f"mutant id {mutant_id!r} has characters other than letters, digits, "
            "'_', '.', '-'", "rename it, e.g. ballot.M2")
    target = raw.get("target")
    if isinstance(target, str) and target and not TARGET_RE.match(target):
        hint = " (line numbers are never used)" if re.search(r":\d+$", target) else ""
        bad(line("target"), f"target {target!r} is not 'package.module:Qualified.name'{hint}",
            'e.g. target = "tp_scheduler.prefetch_ballot:advance_mismatch_streak"')
    elif isinstance(target, str) and target:
        problem = static_target_problem(target, [Path(file).parent, Path.cwd()])
        if problem:
            bad(line("target"), *problem)
    op_name = raw.get("operator")
    params: dict[str, Any] = {}
    if isinstance(op_name, str) and op_name:
        known = catalog_operators()
        if op_name not in known:
            bad(line("operator"), f"unknown operator {op_name!r}" + did_you_mean(
                op_name, known), f"use one of: {', '.join(sorted(known))}")
            every = {k for o in known.values() for k in (*o.required, *o.optional)}
            for key in raw:
                if key not in COMMON_KEYS and key not in every:
                    bad(line(key), f"unknown key {key!r} in [[mutant]]" + (line_key_hint(key)
                        or did_you_mean(key, (*COMMON_KEYS, *sorted(every)))),
                        f"keys: {', '.join(COMMON_KEYS)} + the operator's own")
        else:
            op = operator_class(op_name)
            known = (*COMMON_KEYS, *op.required, *op.optional)
            for key in raw:
                if key not in known:  # a typo of a common key reads better than "allowed: old"
                    bad(line(key), f"unknown key {key!r} in [[mutant]] (operator {op_name!r})"
                        + (line_key_hint(key) or did_you_mean(key, known)),
                        f"keys: {', '.join(COMMON_KEYS)}; {op_name}: "
                        f"{', '.join((*op.required, *op.optional)) or 'none'}")
            params = {k: v for k, v in raw.items() if k not in COMMON_KEYS and k in known}
            try:
                operator_class(op_name).validate(params)
            except OperatorParamError as exc:
                for key, message, fix in exc.problems:
                    bad(line(key) if key else line("operator"), message, fix)
            else:
                problem = isinstance(target, str) and TARGET_RE.match(target) and \
                    static_occurrence_problem(target, op_name, params,
                                              [Path(file).parent, Path.cwd()])
                if problem:
                    bad(line("occurrence"), *problem)
    owners = raw.get("owners", [])
    if not isinstance(owners, list) or not all(isinstance(o, str) and o.strip() for o in owners):
        bad(line("owners"), "owners must be a list of test node ids or '-k EXPR' / '-m EXPR'",
            'e.g. owners = ["tests/test_x.py::test_y"]')
    elif owners and owner_roots is not None:  # a node id that names nothing: this pass too
        for owner in owners:
            exact = ".." in owner and isinstance(owner_roots, OwnerRoots)  # where the sweep looks
            problem = owner_problem(owner.strip(), audit) if is_uniformity_owner(
                owner.strip()) else static_owner_problem(
                owner.strip(), owner_roots, owner_roots.resolving if exact else None,
                owner_roots.universe if exact else ())
            if problem:
                bad(lines.value_line(block, owner, "owners"), *problem)
    elif not owners and isinstance(mutant_id, str) and mutant_id and marked is not None:
        ids = marked.ids()
        if ids is not None and mutant_id not in ids:
            bad(header, f"mutant {mutant_id!r} has no owners: no owners = [...] and no test "
                f"marked @pytest.mark.kills({mutant_id!r}) in the [sweep] tests",
                'add owners = ["tests/test_x.py::test_y"] (the test that must kill it)')
    expect = raw.get("expect")
    if expect is not None:
        if not isinstance(expect, str):
            bad(line("expect"), "expect must be a regex string", 'e.g. expect = "told to admit"')
        else:
            try:
                re.compile(expect)
            except re.error as exc:
                bad(line("expect"), f"expect is not a valid regex: {exc}", "fix the pattern")
    accepted = raw.get("accepted_survivor")
    if accepted is not None and (not isinstance(accepted, str) or not accepted.strip()):
        bad(line("accepted_survivor"), "accepted_survivor needs the reason as a string",
            'e.g. accepted_survivor = "equivalent: the guard is re-checked below"')
    timeout = raw.get("timeout_s")
    if timeout is not None and not _positive_number(timeout):
        bad(line("timeout_s"), "timeout_s must be a positive number of seconds", "timeout_s = 5")
    if problems:
        return None
    return Mutant(id=mutant_id, title=raw["title"], target=target, operator=op_name,
                  params=params, owners=tuple(o.strip() for o in owners), expect=expect,
                  accepted_survivor=accepted, timeout_s=None if timeout is None else float(timeout),
                  catalog_file=file, line=header)
