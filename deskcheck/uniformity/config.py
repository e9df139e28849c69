"""``[tool.deskcheck.uniformity]``: roots, collectives, forward passes, rank-local and config
patterns, and the declared sources (agreed fields, replica fields, leader roles).

Read statically (tomllib), validated in one pass: every bad entry is reported with its
file:line and the fix (exit 2), nothing is run after a config error.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import ConfigError


@dataclass(frozen=True)
class CallPattern:
    """A call named in config: ``call`` is a glob over the call as written
    (``*.broadcast_pyobj``, ``self._all_reduce_min``); ``group`` the argument that holds
    the process group (a keyword name or a position) or, for a forward pass, the group
    expression its per-layer collectives use."""

    call: str
    group: str = ""
    where: str = ""


@dataclass(frozen=True)
class Agreed:
    """``field`` (``self.x`` or ``x``) is made identical on every rank by ``collective``;
    or, with ``call`` instead (a glob over the call as written, like a collective pattern),
    what every call matching it returns is."""

    field: str
    collective: str
    why: str = ""
    where: str = ""
    call: str = ""


@dataclass(frozen=True)
class Replica:
    """``field`` is a replica on every rank, checked by the congruence ``arm`` (a pytest
    node id ``path::test``)."""

    field: str
    arm: str
    why: str = ""
    where: str = ""


@dataclass(frozen=True)
class Role:
    """A decision on ``condition`` (text as written) is a deliberate leader role."""

    condition: str
    why: str
    where: str = ""


@dataclass(frozen=True)
class Component:
    """The classes a field holds where nothing in the code says (a builder's result, a
    factory the walk cannot read): ``field`` a glob over ``Class.field``, each of
    ``classes`` a ``module:Class``."""

    field: str
    classes: tuple[str, ...]
    where: str = ""


@dataclass(frozen=True)
class Consensus:
    """A decorator (a glob over it as written, without arguments) marking a function every
    rank of ``group`` calls together (a group expression or dimension; "" = every rank)."""

    decorator: str
    group: str = ""
    where: str = ""


@dataclass
class UniformityConfig:
    roots: list[str] = field(default_factory=lambda: ["event_loop*"])
    collectives: list[CallPattern] = field(default_factory=list)
    forward: list[CallPattern] = field(default_factory=list)
    rank_local: list[str] = field(default_factory=list)
    config: list[str] = field(default_factory=list)
    agreed: list[Agreed] = field(default_factory=list)
    replica: list[Replica] = field(default_factory=list)
    role: list[Role] = field(default_factory=list)
    groups: dict[str, str] = field(default_factory=dict)  # group expression glob -> dim
    components: list[Component] = field(default_factory=list)  # declared field classes
    consensus: list[Consensus] = field(default_factory=list)  # all ranks call it together
    # follow writes of a field through another object (``req.to_finish = v``): slower
    outside_writes: bool = False
    source: str = ""  # the pyproject it came from ("" = defaults)
    base: Path = field(default_factory=Path.cwd)  # where arm paths are resolved


def _entry_lines(text: str, key: str) -> list[int]:
    """The line of each ``[[tool.deskcheck.uniformity.<key>]]`` header, in order."""
    header = re.compile(r"^\s*\[\[\s*tool\.deskcheck\.uniformity\." + re.escape(key)
                        + r"\s*\]\]")
    return [n for n, line in enumerate(text.splitlines(), 1) if header.match(line)]


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    return 1


def load_uniformity_config(pyproject_path: str | Path) -> UniformityConfig:
    """The ``[tool.deskcheck.uniformity]`` table of ``pyproject_path`` (defaults when the
    file or the table is absent); raises ConfigError naming every bad entry."""
    path = Path(pyproject_path)
    if not path.is_file():
        return UniformityConfig(base=path.parent.resolve())
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", location=str(path),
                          fix="fix the TOML syntax") from exc
    table = data.get("tool", {}).get("deskcheck", {}).get("uniformity")
    if table is None:
        return UniformityConfig(source=str(path), base=path.parent.resolve())
    return parse_uniformity_table(table, str(path), text)


# Every key of [tool.deskcheck.uniformity] (docs/uniformity.md); anything else is an error.
TABLE_KEYS = frozenset({"roots", "collectives", "forward", "rank_local", "config", "agreed",
                        "replica", "role", "groups", "outside_writes", "components",
                        "consensus"})
_CLASS_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def parse_uniformity_table(table: dict[str, Any], file: str, text: str = "") -> UniformityConfig:
    errors: list[ConfigError] = []
    cfg = UniformityConfig(source=file, base=Path(file).parent.resolve())

    def where(needle: str) -> str:
        return f"{file}:{_line_of(text, needle)}"

    def bad(message: str, needle: str, fix: str) -> None:
        errors.append(ConfigError(message, location=where(needle), fix=fix))

    for key in table:
        if key not in TABLE_KEYS:
            bad(f"unknown key {key!r} in [tool.deskcheck.uniformity]", key,
                f"use one of {', '.join(sorted(TABLE_KEYS))}")

    def strings(key: str) -> list[str]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            bad(f"{key} must be a list of non-empty strings", key, f'write {key} = ["pattern"]')
            return []
        return value

    if "roots" in table:
        cfg.roots = strings("roots") or cfg.roots
    cfg.rank_local = strings("rank_local")
    cfg.config = strings("config")
    consensus_fix = ('write consensus = ["rank_consensus"] or [{ decorator = "rank_consensus", '
                     'group = "mp" }]')
    consensus = table.get("consensus", [])
    if not isinstance(consensus, list):
        bad("consensus must be a list of decorator names or tables", "consensus", consensus_fix)
        consensus = []
    for entry in consensus:
        if isinstance(entry, str) and entry:
            cfg.consensus.append(Consensus(entry, "", where(entry)))
        elif isinstance(entry, dict) and isinstance(entry.get("decorator"), str) \
                and entry["decorator"] and isinstance(entry.get("group", ""), str):
            cfg.consensus.append(Consensus(entry["decorator"], entry.get("group", ""),
                                           where(entry["decorator"])))
        else:
            bad(f"consensus: entry {entry!r} is neither a decorator name nor a table with "
                f"'decorator' (and a string 'group')", "consensus", consensus_fix)

    def calls(key: str) -> list[CallPattern]:
        out: list[CallPattern] = []
        for entry in table.get(key, []):
            if isinstance(entry, str) and entry:
                out.append(CallPattern(entry, "", where(entry)))
            elif isinstance(entry, dict) and isinstance(entry.get("call"), str):
                group = entry.get("group", "")
                if not isinstance(group, str | int):
                    bad(f"{key}: group of {entry['call']!r} must be a string or an int",
                        entry["call"], "name the keyword, the position, or the expression")
                out.append(CallPattern(entry["call"], str(group), where(entry["call"])))
            else:
                bad(f"{key}: entry {entry!r} is neither a pattern nor a table with 'call'",
                    key, f'write {key} = ["*.name"] or [{{ call = "...", group = "..." }}]')
        return out

    cfg.collectives = calls("collectives")
    cfg.forward = calls("forward")

    def tables(key: str, required: tuple[str, ...]) -> list[tuple[dict[str, Any], str]]:
        """(entry, where): each entry located at its own ``[[...]]`` header."""
        out = []
        entries = table.get(key, [])
        if not isinstance(entries, list):  # [tool.deskcheck.uniformity.agreed]: one table
            errors.append(ConfigError(
                f"{key} must be an array of tables, one per entry", location=where(key),
                fix=f"write each entry under [[tool.deskcheck.uniformity.{key}]] (double "
                    f"brackets)"))
            return []
        headers = _entry_lines(text, key)
        lines = text.splitlines()
        for number, entry in enumerate(entries):
            values = [str(v) for v in entry.values() if isinstance(v, str) and v] \
                if isinstance(entry, dict) else []
            if len(headers) == len(entries):  # its own [[...]] block: the first line naming
                start = headers[number]       # one of its values there, else the header
                end = headers[number + 1] if number + 1 < len(headers) else len(lines) + 1
                line = next((n for n in range(start + 1, end) if "=" in lines[n - 1] and any(
                    v in lines[n - 1].split("=", 1)[1] for v in values)), start)
                at = f"{file}:{line}"
            else:  # written inline (key = [{...}]): the first line naming a value of it
                at = where(values[0] if values else key)
            if not isinstance(entry, dict):
                errors.append(ConfigError(
                    f"{key}: entry {entry!r} is not a table", location=at,
                    fix=f"write [[tool.deskcheck.uniformity.{key}]] with {', '.join(required)}"))
                continue
            missing = [r for r in required if not isinstance(entry.get(r), str) or not entry[r]]
            if missing:
                errors.append(ConfigError(f"{key}: entry {entry!r} lacks {', '.join(missing)}",
                                          location=at,
                                          fix=f"give every {key} entry: {', '.join(required)}"))
                continue
            out.append((entry, at))
        return out

    for e, at in tables("agreed", ("collective",)):
        named = [k for k in ("field", "call") if isinstance(e.get(k), str) and e[k]]
        if len(named) != 1:
            errors.append(ConfigError(
                f"agreed: entry {e!r} names "
                + ("both field and call" if named else "neither field nor call"), location=at,
                fix="name one subject: field = \"self.x\" (a field its collective writes) or "
                    "call = \"*.forward\" (a call whose return its collective makes agreed)"))
            continue
        cfg.agreed.append(Agreed(e.get("field", ""), e["collective"], e.get("why", ""), at,
                                 e.get("call", "")))
    for e, at in tables("replica", ("field", "arm")):
        cfg.replica.append(Replica(e["field"], e["arm"], e.get("why", ""), at))
    for e, at in tables("role", ("condition", "why")):
        cfg.role.append(Role(e["condition"], e["why"], at))
    groups = table.get("groups", {})
    if not isinstance(groups, dict) or not all(isinstance(v, str) for v in groups.values()):
        bad("groups must map a group-expression pattern to a dimension name", "groups",
            'write groups = { "self.tp_cpu_group" = "tp" }')
    else:
        cfg.groups = dict(groups)
    components = table.get("components", {})
    if not isinstance(components, dict):
        bad("components must map a Class.field pattern to the class it holds", "components",
            'write components = { "Scheduler.tree_cache" = "pkg.mem_cache:RadixCache" }')
        components = {}
    for pattern, value in components.items():
        specs = [value] if isinstance(value, str) else value
        if not isinstance(specs, list) or not specs or not all(
                isinstance(v, str) and _CLASS_SPEC.fullmatch(v) for v in specs):
            bad(f"components: {pattern!r} must name its class as module:Class (or a list "
                f"of them), not {value!r}", pattern,
                f'write "{pattern}" = "pkg.module:Class" (the class as its module defines it)')
            continue
        if "." not in pattern:
            bad(f"components: key {pattern!r} names no field: write Class.field", pattern,
                f'write "<Class>.{pattern}" = ... (the class whose field it is; a glob too)')
            continue
        cfg.components.append(Component(pattern, tuple(specs), where(pattern)))
    outside = table.get("outside_writes", False)
    if not isinstance(outside, bool):
        bad("outside_writes must be a boolean", "outside_writes",
            "write outside_writes = true (follow writes through other objects) or false")
    else:
        cfg.outside_writes = outside
    if errors:
        raise ConfigError(f"{len(errors)} problem(s) in [tool.deskcheck.uniformity] of {file}",
                          errors=errors)
    return cfg
