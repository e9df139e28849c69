"""Reachability with call-site constants: every touch the driven methods reach, each with its
status on the driven path (``LIVE``/``DEAD``/``UNKNOWN``).

From each driven method, follow ``self.m()`` calls, properties, ``super()`` and decorator
wrappers along the MRO. The status of a touch is the weakest of its branch conditions, decided
from the stand-in's constants and the :class:`~._constants.Env` of the function it stands in:
the driven method's parameters are bound from the test's call (``entry``); a ``self.m(...)``
call binds ``m``'s parameters from its arguments, evaluated in the caller's env, so a literal
flag (``self.is_idle(for_health_check=True)``) decides the callee's branches, and a self chain it
passes (a field, an element: ``self.release(self.queue.pop())``) names what the callee reads
through that parameter (``req.session`` there is ``queue.[].session``). A method reached
with several envs is walked once per distinct env (up to :data:`MAX_ENVS`, then once with
nothing known). With ``executed`` (coverage.py lines) a touch is ``LIVE`` when its line ran.
A touch inside a callee called from a ``try`` whose handler catches ``AttributeError`` (or
``Exception``) is masked: its error never reaches the test.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deskcheck.static._binding import bind, unbound
from deskcheck.static._collect import (
    CALL,
    GUARDED,
    PARAM,
    READ,
    RMW,
    WRITE,
    Cond,
    first_param,
    function_facts,
)
from deskcheck.static._conditions import DEAD, LIVE, explain
from deskcheck.static._constants import Env, call_args, function_constants
from deskcheck.static._members import ClassSource, Member
from deskcheck.static._model import ClassModel
from deskcheck.static._static import class_key
from deskcheck.static._wrappers import wrapper_functions

MAX_ENVS = 8

Chain = tuple[tuple[str, Cond, Env], ...]  # (file, condition, env it is decided in), outermost first
Passed = tuple[tuple[str, str], ...]  # (parameter, the self chain its caller passed: `queue.[]`)


@dataclass(frozen=True)
class Use:
    """One touch of a name on the walk, with its status on the driven path."""

    name: str
    kind: str
    file: str
    line: int
    stmt_line: int
    call_path: tuple[str, ...]
    conds: Chain
    status: int
    masked: bool
    after_write: bool
    context: bool = False

    @property
    def site(self) -> str:
        return f"{self.file}:{self.line}"


def walk(model: ClassModel, methods: Sequence[str], *, constants: Mapping[str, Any],
         executed: Mapping[str, set[int]] | None = None, stand_ins: Iterable[str] = (),
         provided: set[str] | None = None,
         entry: Mapping[str, Env | Sequence[Env | None] | None] | None = None) -> list[Use]:
    """Every touch reachable from ``methods``, each with its driven-path status. A method the
    stand-in does not provide (``provided`` given) is not entered: calling it raises first.
    ``entry`` maps a driven method to the env its tests' calls bind, or a list of them (one
    per call; ``None``: a call whose values are not known); by default parameters are
    unknown. A touch is as live as on the most live of those walks."""
    stop = set(stand_ins)
    lines = {os.path.realpath(k): set(v) for k, v in executed.items()} if executed is not None \
        else None
    best: dict[tuple, int] = {}
    envs_seen: dict[tuple[str, str, str], set[tuple]] = {}
    queue: deque[tuple[ClassSource, Member, str, tuple[str, ...], int, Chain, Env | None,
                       bool, Passed]] = deque()
    passed_seen: dict[tuple[str, str, str], set[Passed]] = {}
    indexes: dict = {}
    uses: dict[tuple[str, str, int, str, bool], Use] = {}

    def enqueue(klass: ClassSource, member: Member, roles: list[str], path: tuple[str, ...],
                status: int, conds: Chain, env: Env | None, masked: bool = False,
                passed: Passed = ()) -> None:
        for role in roles:
            base = (class_key(klass), member.name, role)
            seen = envs_seen.setdefault(base, set())
            env_key = env.key() if env is not None else None
            if env_key not in seen and len(seen) >= MAX_ENVS:
                env, env_key = None, None
            chains = passed_seen.setdefault(base, set())
            if passed not in chains and len(chains) >= MAX_ENVS:
                passed = ()
            key = (*base, env_key, masked, passed)
            if best.get(key, -1) >= status:
                continue
            seen.add(env_key)
            chains.add(passed)
            best[key] = status
            queue.append((klass, member, role, (*path, f"{klass.name}.{member.name}"), status,
                          conds, env, masked, passed))

    def status_of(file: str, line: int, stmt_line: int, conds: tuple[Cond, ...],
                  incoming: int, env: Env) -> int:
        if lines is not None:
            ran = lines.get(os.path.realpath(file), set())
            return LIVE if (line in ran or stmt_line in ran) else DEAD
        status = incoming
        for cond in conds:
            status = min(status, explain(cond, constants, env).status)
        return status

    def add(use: Use) -> None:
        key = (use.name, use.file, use.line, use.kind, use.context)
        old = uses.get(key)
        if old is None or old.status < use.status or (
                old.status == use.status and old.masked and not use.masked):
            uses[key] = use

    for name in methods:
        klass, member = model.require_root(name)
        roles = ["call"] if member.is_function else ["get", "set", "delete"]
        given = (entry or {}).get(name)
        for env in given if isinstance(given, list | tuple) else [given]:
            enqueue(klass, member, roles, (), LIVE, (), env)
    while queue:
        klass, member, role, path, incoming, inherited, given, swallowed, passed = \
            queue.popleft()
        declared = dict(member.functions()).get(role)
        if declared is None:
            continue
        node = klass.function(declared)
        self_name = None if member.kind == "staticmethod" else first_param(node)
        label = f"{klass.name}.{member.name}"
        env = given if given is not None else unbound(
            node, skip_first=self_name is not None, label=label,
            why="not passed a literal by a known call site")
        bodies = [(klass.file, node, self_name, path, env)]
        if role == "call":
            for wfile, wnode, wlabel in wrapper_functions(klass, declared, indexes):
                bodies.append((wfile, wnode, first_param(wnode), (*path, wlabel),
                               unbound(wnode, skip_first=True, label=wlabel,
                                       why="a decorator wrapper's argument")))
        for file, fnode, selfname, fpath, fenv in bodies:
            facts = function_facts(fnode, selfname)
            own = dict(passed) if fnode is node else {}
            for name, acc in [*((a.name, a) for a in facts.accesses),
                              *_through_params(facts.param_accesses, own)]:
                conds = inherited + tuple((file, c, fenv) for c in acc.conds)
                status = status_of(file, acc.line, acc.stmt_line, acc.conds, incoming, fenv)
                masked = acc.kind == GUARDED or acc.swallowed or swallowed
                add(Use(name, acc.kind, file, acc.line, acc.stmt_line, fpath, conds, status,
                        masked, acc.after_write))
                top = name.split(".", 1)[0]
                if top in stop or ("." in name and acc.kind == WRITE) or status == DEAD \
                        and lines is None or provided is not None and top not in provided:
                    continue
                kind = READ if "." in name else acc.kind
                found = model.lookup(top)
                if found is not None:
                    callee_env = _callee_env(found, acc.call, fenv, f"{file}:{acc.line}") \
                        if kind == CALL else None
                    enqueue(found[0], found[1], roles_for(kind, found[1]), fpath,
                            LIVE if lines is not None else status, conds, callee_env,
                            swallowed or acc.swallowed,
                            _passed_on(found, acc.args, own) if kind == CALL else ())
            caught = facts.super_swallowed or (False,) * len(facts.super_uses)
            for (name, kind, sline), sconds, scaught in zip(
                    facts.super_uses, facts.super_conds, caught, strict=False):
                status = status_of(file, sline, sline, sconds, incoming, fenv)
                found = model.lookup(name, after=klass)
                if found is not None and (status != DEAD or lines is not None) \
                        and (provided is None or name in provided):
                    enqueue(found[0], found[1], roles_for(kind, found[1]), fpath,
                            LIVE if lines is not None else status,
                            inherited + tuple((file, c, fenv) for c in sconds), None,
                            swallowed or scaught)
            for ctx in facts.context:
                status = status_of(file, ctx.line, ctx.stmt_line, ctx.conds, incoming, fenv)
                add(Use(ctx.name, READ, file, ctx.line, ctx.stmt_line, fpath,
                        inherited + tuple((file, c, fenv) for c in ctx.conds), status, False,
                        False, context=True))
    return list(uses.values())


def _through_params(accesses: Sequence[Any], passed: Mapping[str, str]):
    """(name, touch) of each touch through a parameter its caller passed a self chain as:
    ``@req.session`` with ``req`` given ``queue.[]`` is ``queue.[].session``."""
    for acc in accesses:
        root, _, rest = acc.name.partition(".")
        chain = passed.get(root[len(PARAM):])
        if chain is not None and rest:
            yield f"{chain}.{rest}", acc


def _passed_on(found: tuple[ClassSource, Member], args: Sequence[tuple[int | str, str]],
               own: Mapping[str, str]) -> Passed:
    """The callee's parameters given a self chain by a ``self.m(...)`` call: each argument's
    chain (one of the caller's own parameters stands for what its caller passed)."""
    klass, member = found
    declared = dict(member.functions()).get("call") if member.is_function and args else None
    if declared is None:
        return ()
    params = function_constants(klass.function(declared)).params
    if member.kind != "staticmethod":
        params = params[1:]
    positional = [p.name for p in params if p.kind != "keyword-only"]
    by_keyword = {p.name for p in params if p.kind != "positional-only"}
    out: dict[str, str] = {}
    for where, chain in args:
        if chain.startswith(PARAM):
            root, dot, rest = chain[len(PARAM):].partition(".")
            if root not in own:
                continue
            chain = own[root] + dot + rest
        name = positional[where] if isinstance(where, int) and where < len(positional) else \
            where if isinstance(where, str) and where in by_keyword else None
        if name is not None:
            out[name] = chain
    return tuple(sorted(out.items()))


def _callee_env(found: tuple[ClassSource, Member], call: Any, env: Env, where: str) -> Env | None:
    klass, member = found
    if call is None or not member.is_function:
        return None
    declared = dict(member.functions()).get("call")
    if declared is None:
        return None
    node = klass.function(declared)
    return bind(node, call_args(call, env, where), skip_first=member.kind != "staticmethod",
                label=f"{klass.name}.{member.name}")


def roles_for(kind: str, member: Member) -> list[str]:
    """The roles (call/get/set/delete) a touch of ``kind`` enters on ``member``."""
    if member.is_function:
        return ["call"] if kind in (READ, CALL, GUARDED, RMW) else []
    if member.kind == "property":
        return {READ: ["get"], CALL: ["get"], GUARDED: ["get"], RMW: ["get", "set"],
                WRITE: ["set"], "delete": ["delete"]}.get(kind, [])
    return []
