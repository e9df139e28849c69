"""Drift verdicts: what the production surface needs against what a harness or stub provides.

Three directions: *forward* (needed, not provided), *reverse* (a stand-in, state field,
adopted default or allowlist entry for something production no longer has) and *signature*
(a stand-in callable that no longer fits the production method). An allowlist entry that
matches nothing the guard would report is stale and fails too.
"""

from __future__ import annotations

import collections
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from deskcheck.drift_guard._plant import plant_read
from deskcheck.errors import DriftError
from deskcheck.static import ELEMENT, Site, Surface, build_model, trace

MISSING: Any = type("MISSING", (), {"__repr__": lambda self: "MISSING"})()


@dataclass(frozen=True)
class StandIn:
    """A replacement for a production name, with the reason it is not the real one."""

    value: Any
    reason: str


@dataclass(frozen=True)
class Provision:
    """Everything a harness or stub declares, in the form the guard reads."""

    subject: str
    model: type | str
    roots: tuple[str, ...]  # the driven methods
    binds: Mapping[str, Any] = field(default_factory=dict)
    stand_ins: Mapping[str, StandIn] = field(default_factory=dict)
    state: Mapping[str, Any] = field(default_factory=dict)  # name -> sample value or MISSING
    adopted: frozenset[str] = frozenset()
    allow: Mapping[str, str] = field(default_factory=dict)
    location: str = ""
    binds_everything: bool = False  # stubs: every production function/property is real
    undeclared: frozenset[str] = frozenset()  # set on the harness without bind/stand_in/state
    # -- any object (deskcheck.drift_guard.objects.provision_of) ---------------------------
    kind: str = "harness"  # harness | stub | namespace | instance | mock | object
    provided_names: frozenset[str] | None = None  # every name it provides, chains included
    auto_children: frozenset[str] = frozenset()  # served by auto-created Mock children ("*": all)
    fields: frozenset[str] = frozenset()  # names the stand-in itself sets (reverse drift)
    constants: Mapping[str, Any] = field(default_factory=dict)  # its constant state
    source_roots: tuple[str, ...] = ()  # where a static "pkg.mod:Class" model is read from


class Guarded(Protocol):
    def __deskcheck_provision__(self) -> Provision: ...


@dataclass(frozen=True)
class Finding:
    direction: str  # forward | reverse | signature | stale_allow
    name: str
    detail: str = ""
    sites: tuple[Site, ...] = ()


def display_path(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


_HEADLINES = {
    "forward": "{subject} has drifted behind {roots}: {names}",
    "reverse": "{subject} stands in for names {model} no longer has: {names}",
    "signature": "{subject} has stand-ins that no longer fit {model}: {names}",
    "stale_allow": "{subject} has allowlist entries that match nothing: {names}",
}
_FIXES = {
    "forward": "bind the real function (bind(Model.name)), add it to the state, adopt the class "
               "default, stand it in with a reason, or allow it with a reason",
    "reverse": "remove the stand-in/state/allow entry, or rename it to what production has now",
    "signature": "make the stand-in accept exactly what the production method accepts",
    "stale_allow": "delete the allowlist entry (stubtest's rule: stale entries fail)",
}
# A stub has fields, not declarations: its fixes say what to pass to ``stub(...)``.
_STUB_FIXES = {
    **_FIXES,
    "forward": "set the field: pass it to stub(...) (e.g. stub(Model, name=value)), or allow it "
               "with a reason (allow={\"name\": \"why\"})",
    "reverse": "remove the field from stub(...), or rename it to what production has now",
}


@dataclass
class DriftVerdict:
    subject: str
    model: str
    roots: tuple[str, ...]
    findings: list[Finding]
    surface: Surface
    location: str = ""
    stub: bool = False  # a stub (fields) rather than a harness (bind/stand_in/state)

    @property
    def ok(self) -> bool:
        return not self.findings

    def names(self, direction: str | None = None) -> list[str]:
        return sorted(f.name for f in self.findings if direction in (None, f.direction))

    def message(self) -> str:
        if self.ok:
            return f"{self.subject} holds against {self._roots_label()}"
        lines: list[str] = []
        for direction, template in _HEADLINES.items():
            found = sorted((f for f in self.findings if f.direction == direction),
                           key=lambda f: f.name)
            if not found:
                continue
            lines.append(template.format(subject=self.subject, roots=self._roots_label(),
                                         model=self.model, names=[f.name for f in found]))
            for item in found:
                lines.append(f"  {item.name}:" + (f" {item.detail}" if item.detail else ""))
                for site in item.sites:
                    caught = " [inside try/except that would swallow the AttributeError]" \
                        if site.swallowed else ""
                    lines.append(f"    {site.kind} at {display_path(site.file)}:{site.line} "
                                 f"(path: {' -> '.join(site.path)}){caught}")
            lines.append(f"  fix: {(_STUB_FIXES if self.stub else _FIXES)[direction]}")
        return "\n".join(lines)

    def _roots_label(self) -> str:
        return ", ".join(f"{self.model}.{r}" for r in self.roots)

    def raise_if_drifted(self) -> None:
        if not self.ok:
            error = DriftError(self.message(), location=self.location or None)
            error.verdict = self  # type: ignore[attr-defined]
            raise error

    def to_json(self) -> dict[str, Any]:
        return {
            "subject": self.subject, "model": self.model, "roots": list(self.roots),
            "location": self.location, "ok": self.ok,
            **{d: [{"name": f.name, "detail": f.detail, "sites": [s.to_json() for s in f.sites]}
                   for f in sorted(self.findings, key=lambda f: f.name) if f.direction == d]
               for d in _HEADLINES},
            "surface": {"methods": len(self.surface.methods), "names": len(self.surface.names),
                        "notes": self.surface.model.notes},
            "message": self.message(),
        }


def provision_of(subject: Any) -> Provision:
    if isinstance(subject, Provision):
        return subject
    get = getattr(subject, "__deskcheck_provision__", None)
    if get is None:
        raise TypeError(f"{subject!r} is neither a Harness, a stub spec nor a Provision")
    return get()


def guard(harness: Any, model: Any = None, roots: Iterable[Any] | None = None, *,
          methods: Iterable[Any] | None = None, allow: Mapping[str, str] | None = None,
          mode: str = "runtime", overlay: Mapping[str, str] | None = None,
          strict: bool = False, executed: Mapping[str, set[int]] | None = None) -> Any:
    """The drift verdict of a stand-in.

    A registered ``Harness``/stub (or a :class:`Provision`): a :class:`DriftVerdict` against
    ``model``'s surface of its roots (``roots`` here are method names, as before; ``methods=``
    says the same). ANY other object (``SimpleNamespace``, ``Cls.__new__(Cls)``, a spec'd
    ``MagicMock``, a plain object): the path-precise :class:`~deskcheck.drift_guard.paths.
    PathVerdict` of ``methods`` (functions, names or ``"pkg.mod:Class.method"``), with
    ``model`` a class or ``"pkg.mod:Class"`` read from source under ``roots`` (folders).
    """
    if not isinstance(harness, Provision) and not hasattr(harness, "__deskcheck_provision__"):
        from deskcheck.drift_guard.objects import judge_object

        return judge_object(harness, methods or (), model=model, roots=tuple(roots or ()),
                            strict=strict, executed=executed, allow=allow)
    if isinstance(harness, Provision) and harness.provided_names is not None:
        return _judge_provision(harness, model, roots, methods, strict, executed)
    prov = provision_of(harness)
    model = model or prov.model
    if methods is not None:
        roots = tuple(m if isinstance(m, str) else m.__name__ for m in methods)
    roots = tuple(roots) if roots is not None else prov.roots
    allowed = {**prov.allow, **(allow or {})}
    class_model = build_model(model, mode=mode, overlay=overlay)
    surf = trace(class_model, roots, stop_at=prov.stand_ins.keys())
    provided = set(prov.binds) | set(prov.stand_ins) | set(prov.state) | set(prov.adopted)
    findings: list[Finding] = []
    unprovided: set[str] = set()
    for name, use in surf.needed().items():
        top, _, rest = name.partition(".")
        if rest:
            missing = _chain_missing(prov, top, rest)
        elif prov.binds_everything:
            lookup = class_model.lookup(name)
            missing = name not in provided and (lookup is None or lookup[1].kind in
                                                {"attribute", "annotation"})
        else:
            missing = name not in provided
        if not missing:
            continue
        unprovided.add(name)
        if name in allowed:
            continue
        needing = tuple(s for s in use.sites if s.kind != "write")
        detail = "guarded read: a getattr/hasattr default would silently skip it" \
            if use.guarded else ""
        if name in prov.undeclared:
            detail = ("set on the harness class without bind/stand_in/state: declare it "
                      "so the guard can see it")
        findings.append(Finding("forward", name, detail, needing))
    for kind, names in (("stand-in", prov.stand_ins), ("state", prov.state),
                        ("adopted default", prov.adopted)):
        for name in names:
            if not class_model.has_name(name):
                findings.append(Finding("reverse", name, f"{kind} declared at {prov.location}"))
    for name, reason in allowed.items():
        if name not in unprovided:
            why = ("production no longer has it" if not class_model.has_name(name.split(".")[0])
                   else "nothing in the surface needs it unprovided")
            findings.append(Finding("stale_allow", name, f"{why} (reason given: {reason})"))
    findings += _signature_findings(prov, model)
    return DriftVerdict(prov.subject, class_model.name, roots, findings, surf, prov.location,
                        stub=prov.binds_everything)


def _judge_provision(prov: Provision, model: Any, roots: Iterable[Any] | None,
                     methods: Iterable[Any] | None, strict: bool,
                     executed: Mapping[str, set[int]] | None) -> Any:
    """A Provision of any object (``objects.provision_of``): the path-precise verdict."""
    from deskcheck.drift_guard.paths import judge_paths

    names = [m if isinstance(m, str) else m.__name__ for m in (methods or prov.roots)]
    return judge_paths(model or prov.model, names, provided=set(prov.provided_names or ()),
                       roots=tuple(roots or prov.source_roots), executed=executed,
                       constants=prov.constants, strict=strict, stand_ins=set(prov.stand_ins),
                       auto_children=prov.auto_children, fields=prov.fields,
                       subject=prov.subject, built_at=prov.location)


def _chain_missing(prov: Provision, top: str, rest: str) -> bool:
    """``ps.tp_rank``: judged only when ``ps`` is a plain state value (or stand-in value)."""
    if top in prov.state:
        value = prov.state[top]
    elif top in prov.stand_ins and not callable(prov.stand_ins[top].value):
        value = prov.stand_ins[top].value
    else:
        return False
    if value is MISSING or value is None:
        return False
    return _path_missing(value, rest.split("."))


def _path_missing(value: object, parts: list[str]) -> bool:
    """Whether reading ``parts`` from ``value`` raises AttributeError; ``[]`` (ELEMENT) reads
    every element of a list, tuple, deque, set or dict's values (none: nothing to judge)."""
    for i, part in enumerate(parts):
        if part == ELEMENT:
            items = _elements(value)
            return items is not None and any(_path_missing(item, parts[i + 1:])
                                             for item in items)
        try:
            value = inspect.getattr_static(value, part)
        except AttributeError:
            try:
                value = getattr(value, part)
            except AttributeError:
                return True
        if isinstance(value, property | staticmethod | classmethod) or callable(value):
            return False
    return False


def _elements(value: object) -> list[object] | None:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list | tuple | set | frozenset | collections.deque):
        return list(value)
    return None


def _signature_findings(prov: Provision, model: type) -> list[Finding]:
    out: list[Finding] = []
    for name, standin in prov.stand_ins.items():
        try:
            production = inspect.getattr_static(model, name)
        except AttributeError:
            continue
        problem = signature_misfit(production, standin.value)
        if problem:
            out.append(Finding("signature", name, problem))
    return out


def _as_function(obj: Any) -> tuple[Any, bool]:
    """(callable, takes_self) for a class-dict entry."""
    if isinstance(obj, staticmethod):
        return obj.__func__, False
    if isinstance(obj, classmethod):
        return obj.__func__, True
    return obj, True


def signature_misfit(production: Any, standin: Any) -> str | None:
    """Why ``standin`` cannot take every call ``production`` accepts (None when it fits)."""
    if isinstance(production, property):
        if callable(standin) and not isinstance(standin, property) and inspect.isfunction(standin):
            return "production is a property; stand in with a property or a plain value"
        return None
    prod_fn, prod_self = _as_function(production)
    if not callable(prod_fn):
        return None
    if isinstance(standin, property):
        return "production is a method; a property cannot be called like it"
    stand_fn, stand_self = _as_function(standin)
    if not callable(stand_fn):
        return f"production is a method; the stand-in is a {type(standin).__name__} value"
    try:
        prod_sig = inspect.signature(prod_fn)
        stand_sig = inspect.signature(stand_fn)
    except (TypeError, ValueError):
        return None
    prod_params = list(prod_sig.parameters.values())[1 if prod_self else 0:]
    stand_params = list(stand_sig.parameters.values())
    if stand_self and inspect.isfunction(stand_fn) and not isinstance(standin, staticmethod):
        stand_params = stand_params[1:]
    stand_sig = stand_sig.replace(parameters=stand_params)
    P = inspect.Parameter
    positional = [p for p in prod_params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    keyword = [p for p in prod_params if p.kind == P.KEYWORD_ONLY]
    calls = [
        ([p.name for p in positional], {p.name: 0 for p in keyword}),
        ([p.name for p in positional if p.default is P.empty],
         {p.name: 0 for p in keyword if p.default is P.empty}),
        ([p.name for p in positional if p.kind == P.POSITIONAL_ONLY],
         {p.name: 0 for p in positional + keyword if p.kind != P.POSITIONAL_ONLY}),
    ]
    for args, kwargs in calls:
        try:
            stand_sig.bind(*args, **kwargs)
        except TypeError as exc:
            return (f"production takes {prod_sig}, the stand-in takes {inspect.signature(stand_fn)} "
                    f"({exc})")
    return None


def can_fail(harness: Guarded | Provision, model: type | None = None,
             roots: Iterable[str] | None = None, *, mode: str = "runtime") -> CanFailResult:
    """Plant a read of a name that does not exist into the first root (in memory) and check
    the guard reports exactly that name on top of its unplanted verdict."""
    prov = provision_of(harness)
    model = model or prov.model
    roots = tuple(roots) if roots is not None else prov.roots
    baseline = guard(prov, model, roots, mode=mode)
    canary, overlay = plant_read(baseline.surface.model, roots[0])
    planted = guard(prov, model, roots, mode=mode, overlay=overlay)
    before = {(f.direction, f.name) for f in baseline.findings}
    added = sorted(f"{f.direction}:{f.name}" for f in planted.findings
                   if (f.direction, f.name) not in before)
    return CanFailResult(prov.subject, canary, added, planted)


@dataclass
class CanFailResult:
    subject: str
    canary: str
    added: list[str]
    planted: DriftVerdict

    @property
    def ok(self) -> bool:
        return self.added == [f"forward:{self.canary}"]

    def message(self) -> str:
        if self.ok:
            return f"{self.subject}: the guard is live (a planted read of {self.canary} was reported alone)"
        return (f"{self.subject}: the guard is NOT live: a planted read of {self.canary!r} should "
                f"add exactly ['forward:{self.canary}'], it added {self.added}")
