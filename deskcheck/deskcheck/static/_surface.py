"""The production surface: every ``self.X`` production methods touch, followed through
``self.m()`` calls, properties and ``super()`` along the class's MRO."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.static._collect import (
    CALL,
    DELETE,
    GUARDED,
    READ,
    RMW,
    WRITE,
    first_param,
    function_facts,
)
from deskcheck.static._members import ClassSource, Member
from deskcheck.static._model import (
    ClassModel,
    build_runtime,
    build_static,
    default_roots,
    import_class,
    split_spec,
)
from deskcheck.static._sources import Sources
from deskcheck.static._static import class_key
from deskcheck.static._wrappers import wrapper_functions

NEEDING_KINDS = (READ, CALL, RMW, GUARDED)
WRITING_KINDS = (WRITE, RMW, DELETE)


@dataclass(frozen=True)
class Site:
    """Where a name is touched, how, in which method, and the call path from a root."""

    file: str
    line: int
    kind: str
    method: str
    path: tuple[str, ...]
    after_write: bool = False
    swallowed: bool = False

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "kind": self.kind, "method": self.method,
                "path": list(self.path), "after_write": self.after_write,
                "swallowed": self.swallowed}


@dataclass
class NameUse:
    """One name of the surface (``ps`` or ``ps.tp_rank``) with every site that touches it."""

    name: str
    sites: list[Site] = field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return sorted({s.kind for s in self.sites})

    @property
    def needed(self) -> bool:
        """Read, called or read-modify-written before any write of it in the same method."""
        return any(s.kind in NEEDING_KINDS and not s.after_write for s in self.sites)

    @property
    def guarded(self) -> bool:
        """Every needing site is a ``getattr(self, name, default)`` / ``hasattr`` form."""
        needing = [s for s in self.sites if s.kind in NEEDING_KINDS and not s.after_write]
        return bool(needing) and all(s.kind == GUARDED for s in needing)

    def first_need(self) -> Site:
        return next((s for s in self.sites if s.kind in NEEDING_KINDS and not s.after_write),
                    self.sites[0])


@dataclass(frozen=True)
class ReachedMethod:
    name: str
    role: str
    file: str
    line: int
    path: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "file": self.file, "line": self.line,
                "path": list(self.path)}


@dataclass
class Surface:
    """The production surface of ``roots`` on a class; same type from static and runtime mode."""

    model: ClassModel
    roots: tuple[str, ...]
    methods: dict[str, ReachedMethod] = field(default_factory=dict)
    names: dict[str, NameUse] = field(default_factory=dict)
    dynamic: list[Site] = field(default_factory=list)
    context: dict[str, list[Site]] = field(default_factory=dict)
    stopped_at: tuple[str, ...] = ()
    elapsed_s: float = 0.0

    @property
    def class_name(self) -> str:
        return self.model.name

    def _with(self, kinds: Iterable[str]) -> dict[str, NameUse]:
        wanted = set(kinds)
        return {n: NameUse(n, [s for s in u.sites if s.kind in wanted])
                for n, u in sorted(self.names.items()) if any(s.kind in wanted for s in u.sites)}

    @property
    def reads(self) -> dict[str, NameUse]:
        return self._with(NEEDING_KINDS)

    @property
    def writes(self) -> dict[str, NameUse]:
        return self._with(WRITING_KINDS)

    def needed(self) -> dict[str, NameUse]:
        return {n: u for n, u in sorted(self.names.items()) if u.needed}

    def to_json(self) -> dict[str, Any]:
        def table(uses: Mapping[str, NameUse]) -> dict[str, list[dict[str, Any]]]:
            return {n: [s.to_json() for s in u.sites] for n, u in uses.items()}

        return {
            "class": self.model.qualname,
            "mode": self.model.mode,
            "roots": list(self.roots),
            "mro": [class_key(k) for k in self.model.mro],
            "methods": [m.to_json() for m in self.methods.values()],
            "reads": table(self.reads),
            "writes": table(self.writes),
            "guarded": sorted(n for n, u in self.names.items() if u.guarded),
            "dynamic": [s.to_json() for s in self.dynamic],
            "context": {n: [s.to_json() for s in sites] for n, sites in sorted(self.context.items())},
            "notes": list(self.model.notes),
            "counts": {"methods": len(self.methods), "names": len(self.names),
                       "reads": len(self.reads), "writes": len(self.writes),
                       "classes": len(self.model.sources)},
            "elapsed_s": round(self.elapsed_s, 4),
        }


def _roles_for(kind: str, member: Member) -> list[str]:
    if member.is_function:
        return ["call"] if kind in (READ, CALL, GUARDED, RMW) else []
    if member.kind == "property":
        return {READ: ["get"], CALL: ["get"], GUARDED: ["get"], RMW: ["get", "set"],
                WRITE: ["set"], DELETE: ["delete"]}.get(kind, [])
    return []


def trace(model: ClassModel, roots: Sequence[str], stop_at: Iterable[str] = ()) -> Surface:
    """Follow ``roots`` through the MRO; names in ``stop_at`` are recorded but not entered."""
    stop = set(stop_at)
    result = Surface(model=model, roots=tuple(roots), stopped_at=tuple(sorted(stop)))
    queue: deque[tuple[ClassSource, Member, str, tuple[str, ...]]] = deque()
    seen: set[tuple[str, str, str]] = set()
    indexes: dict = {}

    def enqueue(klass: ClassSource, member: Member, roles: list[str], path: tuple[str, ...]) -> None:
        for role in roles:
            key = (class_key(klass), member.name, role)
            if key not in seen:
                seen.add(key)
                queue.append((klass, member, role, (*path, f"{klass.name}.{member.name}")))

    for root in roots:
        klass, member = model.require_root(root)
        enqueue(klass, member, ["call"] if member.is_function else ["get", "set", "delete"], ())
    while queue:
        klass, member, role, path = queue.popleft()
        declared = dict(member.functions()).get(role)
        if declared is None:
            continue
        node = klass.function(declared)
        label = path[-1] + {"set": " (setter)", "delete": " (deleter)"}.get(role, "")
        result.methods.setdefault(label, ReachedMethod(label, role, klass.file, node.lineno, path))
        self_name = None if member.kind == "staticmethod" else first_param(node)
        bodies = [(klass.file, node, self_name, path)]
        if role == "call":  # decorator wrappers run around the body with the same self
            bodies += [(wfile, wnode, first_param(wnode), (*path, label))
                       for wfile, wnode, label in wrapper_functions(klass, declared, indexes)]
        for file, fnode, fself, fpath in bodies:
            _trace_body(model, result, klass, file, function_facts(fnode, fself), fpath, stop,
                        enqueue)
    return result


def _trace_body(model: ClassModel, result: Surface, klass: ClassSource, file: str, facts: Any,
                path: tuple[str, ...], stop: set[str], enqueue: Any) -> None:
    """Record one body's touches and context reads; enqueue what it reaches."""
    for ctx in facts.context:
        result.context.setdefault(ctx.name, []).append(
            Site(file, ctx.line, "context", path[-1], path))
    for acc in facts.accesses:
        site = Site(file, acc.line, acc.kind, path[-1], path, acc.after_write,
                    acc.swallowed)
        result.names.setdefault(acc.name, NameUse(acc.name)).sites.append(site)
        top = acc.name.split(".", 1)[0]
        if top in stop or ("." in acc.name and acc.kind == WRITE):
            continue
        kind = READ if "." in acc.name else acc.kind
        found = model.lookup(top)
        if found is not None:
            enqueue(found[0], found[1], _roles_for(kind, found[1]), path)
    for name, kind, _line in facts.super_uses:
        found = model.lookup(name, after=klass)
        if found is not None:
            enqueue(found[0], found[1], _roles_for(kind, found[1]), path)
    for line in facts.dynamic_lines:
        result.dynamic.append(Site(file, line, "dynamic", path[-1], path))


def build_model(target: type | str, *, roots: Sequence[str | Path] | None = None,
                mode: str = "auto", overlay: Mapping[str, str] | None = None) -> ClassModel:
    """A :class:`ClassModel` for a class object or ``"module:Class"`` in ``mode``."""
    sources = Sources(overlay)
    if isinstance(target, str):
        module, qualname, _method = split_spec(target)
        if mode == "runtime":
            return build_runtime(import_class(module, qualname), sources)
        return build_static(module, qualname, roots or [Path.cwd()], sources)
    if mode == "static":
        search = [*(roots or []), *default_roots(target)]
        return build_static(target.__module__, target.__qualname__, search, sources)
    return build_runtime(target, sources)


def surface(target: type | str, *methods: str, roots: Sequence[str | Path] | None = None,
            mode: str = "auto", stop_at: Iterable[str] = (),
            overlay: Mapping[str, str] | None = None) -> Surface:
    """The production surface of ``methods`` on ``target``.

    ``target`` is a class (runtime mode by default: its real MRO) or ``"module:Class"`` /
    ``"module:Class.method"`` (static mode by default: resolved from source under ``roots``,
    nothing imported). ``overlay`` maps a file path to in-memory replacement text.
    """
    start = time.perf_counter()
    names = list(methods)
    if isinstance(target, str):
        method = split_spec(target)[2]
        names = ([method] if method else []) + names
    model = build_model(target, roots=roots, mode=mode, overlay=overlay)
    result = trace(model, names, stop_at)
    result.elapsed_s = time.perf_counter() - start
    return result
