"""Binding a call to its callee: each parameter bound to the value the call passes (or its
literal default), the callee's :class:`Env` when nothing is known of its callers, what several
call sites agree on, and where a call no longer fits the signature."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from deskcheck.static._constants import (
    EMPTY,
    CallArgs,
    Env,
    FunctionNode,
    Unknown,
    function_constants,
)


def bind(node: FunctionNode, args: CallArgs, *, skip_first: bool = False,
         label: str = "") -> Env:
    """The callee's :class:`Env` for a call passing ``args``: each parameter bound to the
    value passed (or its literal default), or unknown with why. ``skip_first`` drops ``self``
    / ``cls`` (a method called on its instance). Values the call cannot fit are unknown."""
    facts = function_constants(node)
    params = list(facts.params[1:] if skip_first and facts.params else facts.params)
    where = f" at {args.where}" if args.where else ""
    fn = f" of {label}" if label else ""
    values: dict[str, Any] = {}
    unknown: dict[str, str] = {}
    passed = dict(args.keywords)
    positional = [p for p in params if p.kind != "keyword-only"]
    for param, value in zip(positional, args.positional, strict=False):
        passed.setdefault(param.name, value)
    hidden = args.star or args.double_star
    for param in params:
        if param.name in passed:
            value = passed[param.name]
            if isinstance(value, Unknown):
                unknown[param.name] = f"parameter `{param.name}`{fn}: {value.why}"
            else:
                values[param.name] = value
        elif hidden:
            unknown[param.name] = f"parameter `{param.name}`{fn} may come from *args/**kwargs{where}"
        elif param.has_default and not isinstance(param.default, Unknown):
            values[param.name] = param.default
        else:
            unknown[param.name] = f"parameter `{param.name}`{fn}: default is not a literal" \
                if param.has_default else f"parameter `{param.name}`{fn} is not passed{where}"
    return Env(values, unknown).with_locals(facts)


def unbound(node: FunctionNode, *, skip_first: bool = False, label: str = "",
            why: str = "no call site is known") -> Env:
    """The :class:`Env` of ``node`` when nothing is known of its callers: every parameter
    unknown (``why``), literal locals known."""
    facts = function_constants(node)
    params = facts.params[1:] if skip_first and facts.params else facts.params
    fn = f" of {label}" if label else ""
    return Env({}, {p.name: f"parameter `{p.name}`{fn}: {why}" for p in params}).with_locals(facts)


def merge(envs: Iterable[Env]) -> Env:
    """What every env agrees on: a name known with one value in all of them stays known;
    otherwise it is unknown (with the first reason, or "differs between call sites")."""
    envs = list(envs)
    if not envs:
        return EMPTY
    if len(envs) == 1:
        return envs[0]
    names = set().union(*(set(e.values) | set(e.unknown) for e in envs))
    values: dict[str, Any] = {}
    unknown: dict[str, str] = {}
    for name in sorted(names):
        got = [e.get(name) for e in envs]
        bad = next((g for g in got if isinstance(g, Unknown)), None)
        if bad is not None:
            unknown[name] = bad.why
        elif all(_same(g, got[0]) for g in got[1:]):
            values[name] = got[0]
        else:
            unknown[name] = f"`{name}` differs between call sites"
    return Env(values, unknown)


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - a literal's __eq__ cannot raise, but be safe
        return False


def signature_problems(node: FunctionNode, args: CallArgs, *,
                       skip_first: bool = False) -> list[str]:
    """Why a call passing ``args`` no longer fits ``node``'s signature (empty when it fits):
    keywords it does not accept, required parameters not passed, too many positionals."""
    facts = function_constants(node)
    params = list(facts.params[1:] if skip_first and facts.params else facts.params)
    problems: list[str] = []
    positional = [p for p in params if p.kind != "keyword-only"]
    if len(args.positional) > len(positional) and not facts.vararg:
        problems.append(f"passes {len(args.positional)} positional argument(s); it takes "
                        f"{len(positional)}")
    by_name = {p.name: p for p in params}
    for name, _value in args.keywords:
        param = by_name.get(name)
        if param is None and not facts.kwarg:
            problems.append(f"passes keyword `{name}`, which it does not accept")
        elif param is not None and param.kind == "positional-only":
            problems.append(f"passes positional-only `{name}` by keyword")
    if not (args.star or args.double_star):
        filled = {p.name for p in positional[:len(args.positional)]} | dict(args.keywords).keys()
        missing = [p.name for p in params if not p.has_default and p.name not in filled]
        if missing:
            problems.append("does not pass required " + ", ".join(f"`{m}`" for m in missing))
    return problems
