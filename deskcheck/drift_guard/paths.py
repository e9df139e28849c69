"""Path-precise drift verdicts: is each needed name on the path the tests drive?

Public contract (stable; ``deskcheck standins`` builds on it)::

    judge_paths(model, methods, *, provided: set[str], roots=(), executed=None,
                constants=None, strict=False, stand_ins=frozenset(), auto_children=frozenset(),
                fields=frozenset(), subject="", built_at="") -> PathVerdict

``model`` is a class or a static ``"pkg.mod:Class"`` (resolved from source under ``roots``,
nothing imported); ``methods`` the driven methods. Every name those methods need (followed
through ``self.m()``, properties, ``super()`` and decorator wrappers) that ``provided`` lacks is
classified by its *sites*:

- **drift**: needed on an executed line (or, static, on a line no branch condition excludes).
- **silent skip**: a masked read on such a line (``getattr(self, "x", default)``, ``hasattr``,
  a ``try`` whose handler catches ``AttributeError``), or a name served by an auto-created
  ``MagicMock`` child (``auto_children``; ``"*"`` means every name): it would not raise.
- **unexercised**: needed only on branches never entered (``executed`` from coverage.py:
  ``{abs_path: {line, ...}}``), or, static, on branches the stand-in's own constant state
  (``constants``: ``x is None``, ``==`` a literal or enum member, bool fields, ``not``,
  ``and``/``or``) rules out. Listed with the branch condition; a failure only when ``strict``.
- **unknown**: static only: behind a condition the constants cannot decide. Listed; a
  failure only when ``strict``.
- **context**: module-level runtime state the driven path reads (``get_parallel().pp_size``,
  ``envs.SGLANG_X``, ``global`` names): information, every test must set it up.
- **reverse**: ``fields`` the stand-in sets that the driven methods never touch (a failure
  only when ``strict``).

``stand_ins`` are provided names whose value replaces production (a lambda, a mock): they are
not followed. Each record has ``name``, ``site`` ("file:line"), ``call_path`` (method names
from the driven method to the site) and ``condition`` (the branch condition text or "").
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.static import (
    CALL,
    DEAD,
    ELEMENT,
    GUARDED,
    LIVE,
    READ,
    RMW,
    UNKNOWN,
    ClassModel,
    Env,
    Use,
    build_model,
    explain,
    trace,
    walk,
)

NEEDING = (READ, CALL, RMW, GUARDED)
CATEGORIES = ("drift", "silent_skips", "unexercised", "unknown", "context", "reverse")


@dataclass(frozen=True)
class PathRecord:
    """One finding: the name, where it is needed, how the driven method gets there, why."""

    name: str
    site: str
    call_path: tuple[str, ...]
    condition: str = ""
    detail: str = ""
    why: str = ""  # unknown: the value that keeps the condition undecided, and from where

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "site": self.site, "call_path": list(self.call_path),
                "condition": self.condition, "detail": self.detail, "why": self.why}


@dataclass
class PathVerdict:
    """The path-precise verdict of one stand-in against its driven methods."""

    subject: str
    model: str
    methods: tuple[str, ...]
    mode: str  # "executed" (coverage lines) | "static" (constant pruning)
    strict: bool = False
    built_at: str = ""
    drift: list[PathRecord] = field(default_factory=list)
    silent_skips: list[PathRecord] = field(default_factory=list)
    unexercised: list[PathRecord] = field(default_factory=list)
    unknown: list[PathRecord] = field(default_factory=list)
    context: list[PathRecord] = field(default_factory=list)
    reverse: list[PathRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def failing(self) -> list[PathRecord]:
        out = self.drift + self.silent_skips
        if self.strict:
            out += self.unexercised + self.unknown + self.reverse
        return out

    @property
    def holds(self) -> bool:
        return not self.failing

    ok = holds  # the same word as DriftVerdict.ok

    def names(self, category: str) -> list[str]:
        return sorted({r.name for r in getattr(self, category)})

    def message(self) -> str:
        return self.render()

    def render(self) -> str:
        label = f"{self.model}.{', '.join(self.methods)}"
        built = f" (built at {_show(self.built_at)})" if self.built_at else ""
        head = (f"{self.subject}{built} holds against {label}" if self.holds else
                f"{self.subject}{built} has drifted behind {label}")
        lines = [f"{head} [{self.mode}]"]
        titles = {
            "drift": "drift: needed on the driven path, not provided",
            "silent_skips": "silent skip: masked read on the driven path (would not raise)",
            "unexercised": "unexercised: needed only on branches the tests do not enter",
            "unknown": "unknown: behind conditions the stand-in's state cannot decide",
            "context": "context: module-level state the driven path reads",
            "reverse": "reverse: set on the stand-in, never touched by the driven methods",
        }
        for category in CATEGORIES:
            records = getattr(self, category)
            if not records:
                continue
            failing = category in ("drift", "silent_skips") or self.strict and category in (
                "unexercised", "unknown", "reverse")
            lines.append(f"  {titles[category]}{' (FAILS)' if failing else ''}:")
            for rec in records:
                lines.append(f"    {rec.name}  {_show(rec.site)}".rstrip())
                if rec.call_path:
                    lines.append(f"      path: {' -> '.join(rec.call_path)}")
                if rec.condition:
                    lines.append(f"      under: {rec.condition}")
                if rec.detail:
                    lines.append(f"      {rec.detail}")
        if not self.holds:
            lines.append("  fix: give the stand-in the name (a value, or types.MethodType of")
            lines.append("       the real function), or drive a path that does not need it")
        return "\n".join(lines)

    def raise_if_drifted(self) -> None:
        from deskcheck.errors import DriftError

        if not self.holds:
            error = DriftError(self.render(), location=self.built_at or None)
            error.verdict = self  # type: ignore[attr-defined]
            raise error

    def to_json(self) -> dict[str, Any]:
        return {"subject": self.subject, "model": self.model, "methods": list(self.methods),
                "mode": self.mode, "strict": self.strict, "built_at": self.built_at,
                "holds": self.holds,
                **{c: [r.to_json() for r in getattr(self, c)] for c in CATEGORIES},
                "notes": list(self.notes), "message": self.render()}


def _show(site: str) -> str:
    path, sep, line = site.rpartition(":")
    if sep and line.isdigit():
        shown = _relative(path, os.getcwd())
        if shown is not None:
            return f"{shown}:{line}"
    return site


@functools.lru_cache(maxsize=4096)
def _relative(path: str, cwd: str) -> str | None:
    """``path`` relative to ``cwd`` (None when outside it); cached: every record of a report
    shows its site, and resolving a path stats each of its folders."""
    try:
        return str(Path(path).resolve().relative_to(Path(cwd)))
    except ValueError:
        return None


def is_provided(name: str, provided: set[str]) -> bool | None:
    """True/False, or None when ``name`` is a chain under a value whose attributes are not
    enumerated (not judged) or under a name that is itself missing (reported once, there)."""
    if name in provided:
        return True
    parent, dot, last = name.rpartition(".")
    if not dot:
        return False
    if is_provided(parent, provided) is not True:
        return None
    if last == ELEMENT:  # `queue.[]`: judged only where the elements are listed
        return None
    prefix = parent + "."
    elements = prefix + ELEMENT
    return False if any(p.startswith(prefix) and not p.startswith(elements)
                        for p in provided) else None


def _pick_condition(conds, constants: Mapping[str, Any],
                    lines: Mapping[str, set[int]] | None) -> tuple[str, str]:
    """The branch that keeps the site off the path, and why it is undecided ("" when it is
    decided): the innermost condition that the constants rule out (static), or whose line
    ran without entering it (executed)."""
    if not conds:
        return "", ""
    if lines is None:
        for wanted in (DEAD, UNKNOWN):
            for file, cond, env in reversed(conds):
                decision = explain(cond, constants, env)
                if decision.status == wanted:
                    return f"{cond.text} at {_show(f'{file}:{cond.line}')}", decision.why
        return "", ""
    for file, cond, env in reversed(conds):
        if cond.line in lines.get(os.path.realpath(file), set()) \
                and explain(cond, constants, env).status != LIVE:  # went the site's way: not it
            return f"{cond.text} at {_show(f'{file}:{cond.line}')}", ""
    if all(explain(cond, constants, env).status == LIVE for _f, cond, env in conds):
        return "no branch: the run left the driven method before it", ""
    file, cond, _env = conds[-1]
    return f"{cond.text} at {_show(f'{file}:{cond.line}')}", ""


def judge_paths(model: type | str | ClassModel, methods: Sequence[str], *, provided: set[str],
                roots: Sequence[str | Path] = (),
                executed: Mapping[str, set[int]] | None = None,
                constants: Mapping[str, Any] | None = None, strict: bool = False,
                stand_ins: Iterable[str] = frozenset(), auto_children: Iterable[str] = frozenset(),
                fields: Iterable[str] = frozenset(), subject: str = "",
                built_at: str = "", overlay: Mapping[str, str] | None = None,
                entry: Mapping[str, Env] | None = None, stopped: bool = False) -> PathVerdict:
    """Classify every name ``methods`` need on ``model`` (see the module docstring)."""
    if isinstance(model, str) and not roots:
        from deskcheck.errors import UnknownTargetError

        raise UnknownTargetError(
            f"a static model {model!r} needs its source roots (the working directory is "
            f"never assumed)", location=model,
            fix="pass roots=[the folder holding the top-level package]")
    class_model = model if isinstance(model, ClassModel) else build_model(
        model, roots=list(roots) or None, mode="static" if isinstance(model, str) else "runtime",
        overlay=overlay)
    consts = dict(constants or {})
    provided = set(provided)
    auto = set(auto_children)
    uses = walk(class_model, methods, constants=consts, executed=executed, stand_ins=stand_ins,
                provided=provided, entry=entry)
    lines = {os.path.realpath(k): set(v) for k, v in executed.items()} if executed is not None \
        else None
    verdict = PathVerdict(subject or "stand-in", class_model.name, tuple(methods),
                          "executed" if executed is not None else "static", strict, built_at,
                          notes=list(class_model.notes))
    by_name: dict[str, list[Use]] = {}
    for use in uses:
        by_name.setdefault(use.name, []).append(use)
    context_seen: set[str] = set()
    either_way = _missing_on_every_side(by_name, provided, auto, consts) \
        if lines is None else {}
    for name in sorted(by_name):
        group = sorted(by_name[name], key=lambda u: (-u.status, u.file, u.line))
        contexts = [u for u in group if u.context]
        if contexts:
            live = [u for u in contexts if u.status != DEAD]
            if live and name not in context_seen:
                context_seen.add(name)
                u = live[0]
                verdict.context.append(PathRecord(name, u.site, u.call_path,
                                                  *_cond_text(u, consts, lines)[:1]))
            group = [u for u in group if not u.context]
        needing = [u for u in group if u.kind in NEEDING and not u.after_write]
        if not needing:
            continue
        known = is_provided(name, provided)
        top = name.split(".", 1)[0]
        served = known is False and ("*" in auto or name in auto or top in auto)
        if known is not False and not served:
            continue
        if known is None:
            continue
        live = [u for u in needing if u.status == LIVE]
        loud = [u for u in live if not u.masked]
        if served and live:
            u = live[0]
            verdict.silent_skips.append(PathRecord(
                name, u.site, u.call_path, "",
                "served by an auto-created MagicMock child: nothing raises"))
        elif loud:
            u = loud[0]
            verdict.drift.append(PathRecord(name, u.site, u.call_path))
        elif live:
            u = live[0]
            how = "a getattr/hasattr default" if u.kind == GUARDED else \
                "a try that catches AttributeError"
            init_sets = _init_sets(class_model)
            if init_sets is not None and top not in init_sets \
                    and class_model.lookup(top) is None:  # a method is on every real instance
                verdict.notes.append(
                    f"`{name}` is read masked by {how} at {_show(u.site)}, and "
                    f"{class_model.name}.__init__ never sets it either: the stand-in is as "
                    "faithful as production there (not drift)")
                continue
            verdict.silent_skips.append(PathRecord(
                name, u.site, u.call_path, "", f"masked by {how}: missing, silently skipped"))
        elif name in either_way:
            u, cond_text = either_way[name]
            verdict.drift.append(PathRecord(
                name, u.site, u.call_path, cond_text,
                why="undecided, but every side of it needs a name the stand-in lacks"))
        elif any(u.status == UNKNOWN for u in needing):
            u = next(u for u in needing if u.status == UNKNOWN)
            text, why = _cond_text(u, consts, lines)
            verdict.unknown.append(PathRecord(name, u.site, u.call_path, text, why=why))
        elif stopped and (cut := next((u for u in needing if not u.masked
                                       and _static_live(u, consts)), None)) is not None:
            verdict.drift.append(PathRecord(
                name, cut.site, cut.call_path, "",
                "not reached in the run only because its tests failed before this line: "
                "no branch on the way keeps it off"))
        else:
            u = needing[0]
            verdict.unexercised.append(PathRecord(name, u.site, u.call_path,
                                                  _cond_text(u, consts, lines)[0]))
    touched = {u.name for u in uses if not u.context}
    touched |= set(methods)
    for name in sorted(set(fields)):
        if name in touched:
            continue
        parent, dot, _ = name.rpartition(".")
        if dot and not any(t.startswith(parent + ".") for t in touched):
            continue  # the parent is handed on whole: its attributes are not ours to judge
        verdict.reverse.append(PathRecord(
            name, built_at, (), "",
            f"the driven methods ({', '.join(methods)}) never read or write it"))
    return verdict


_INIT_SETS: dict[int, tuple[ClassModel, frozenset[str] | None]] = {}


def _init_sets(model: ClassModel) -> frozenset[str] | None:
    """The names production's own ``__init__`` sets (followed through ``self.m()`` and
    ``super().__init__``); None when the class has no ``__init__`` in source to read."""
    key = id(model)
    if key not in _INIT_SETS:
        found = model.lookup("__init__")
        names: frozenset[str] | None = None
        if found is not None and found[1].is_function:
            traced = trace(model, ["__init__"])
            names = frozenset(n.split(".", 1)[0] for n in traced.writes)
        _INIT_SETS[key] = (model, names)  # the model is kept: its id is never reused
    return _INIT_SETS[key][1]


def _missing_on_every_side(by_name: Mapping[str, list[Use]], provided: set[str],
                           auto: set[str], constants: Mapping[str, Any]
                           ) -> dict[str, tuple[Use, str]]:
    """Missing names the stand-in fails on whichever way an undecided branch goes: each is
    read (unmasked) behind exactly one undecided ``if``/``while``/ternary, every other
    condition on its way decided LIVE, and both sides of that branch (its body and its
    ``else``, or the code past an early ``return``) read a name the stand-in lacks."""
    sides: dict[tuple, dict[bool, list[tuple[str, Use]]]] = {}
    for name, group in by_name.items():
        top = name.split(".", 1)[0]
        if is_provided(name, provided) is not False or "*" in auto or name in auto \
                or top in auto:
            continue
        needing = [u for u in group if u.kind in NEEDING and not u.after_write
                   and not u.context]
        if any(u.status == LIVE for u in needing):
            continue
        for u in needing:
            if u.status != UNKNOWN or u.masked:
                continue
            undecided = [(file, cond) for file, cond, env in u.conds
                         if explain(cond, constants, env).status != LIVE]
            if len(undecided) != 1 or undecided[0][1].kind != "if":
                continue
            file, cond = undecided[0]
            key = (u.call_path, file, cond.line, id(cond.test))
            sides.setdefault(key, {}).setdefault(cond.negated, []).append((name, u))
    out: dict[str, tuple[Use, str]] = {}
    for (_path, file, line, _test), found in sides.items():
        if len(found) == 2:
            shown = found[False][0][1]
            cond = next(c for f, c, _e in shown.conds if c.line == line and f == file)
            text = f"either way of {cond.text} at {_show(f'{file}:{line}')}"
            for pairs in found.values():
                for name, u in pairs:
                    out.setdefault(name, (u, text))
    return out


def _static_live(use: Use, constants: Mapping[str, Any]) -> bool:
    """Every branch condition on the way to ``use`` is decided toward it by the stand-in's
    constants and the call's values (none can keep it off the path)."""
    return all(explain(cond, constants, env).status == LIVE for _f, cond, env in use.conds)


def _cond_text(use: Use, constants: Mapping[str, Any],
               lines: Mapping[str, set[int]] | None) -> tuple[str, str]:
    return _pick_condition(use.conds, constants, lines)
