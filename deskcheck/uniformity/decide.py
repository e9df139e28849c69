"""Gating decisions and their verdicts: the guards above every call that reaches a collective,
each judged by its input set relative to the group of each collective it gates."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from deskcheck.static import Guard, holding_guards, subnodes
from deskcheck.uniformity.cycles import expand_witness
from deskcheck.uniformity.leaves import param_group
from deskcheck.uniformity.model import (
    AGREED,
    CONFIG,
    RANK_LOCAL,
    SANCTIONED,
    TRIVIAL_INPUT,
    UNKNOWN,
    CollectiveSite,
    Decision,
    Input,
    InputClass,
    Verdict,
)
from deskcheck.uniformity.reach import (
    ANY,
    RAISE_DEPTH,
    Ctx,
    Reach,
    caught_above,
    guard_state,
    is_dead,
    tested,
)
from deskcheck.uniformity.rules import (
    covers,
    single_rank_dim,
    trivial_for,
    varies_within,
)
from deskcheck.uniformity.trace import Leaf, Tracer

_ORDER = {RANK_LOCAL: 5, UNKNOWN: 4, SANCTIONED: 3, TRIVIAL_INPUT: 2, AGREED: 1, CONFIG: 0}


@dataclass
class _Build:
    guard: Guard
    first: Ctx
    ctxs: list[Ctx] = field(default_factory=list)
    sites: dict[tuple, CollectiveSite] = field(default_factory=dict)
    calls: list[ast.Call] = field(default_factory=list)
    shape: ast.Call | None = None


def gather(reach: Reach) -> list[_Build]:
    """One build per (function, condition): every context and every site it gates."""
    builds: dict[tuple, _Build] = {}
    for ctx in reach.ctxs.values():
        if not ctx.reaches:
            continue
        nodes = [(call, [site]) for call, site in ctx.sites]
        nodes += [(call, reach.sites_at(ctx, call, t)) for call, t in ctx.edges if t.reaches]
        for call, sites in nodes:
            for g in deciding(ctx.flow.guards.get(id(call), ()), ctx.consts):
                key = (ctx.fn.qualname, id(g.test) if g.test is not None else ("handler", g.line))
                _gate(builds, key, g, ctx, sites).calls.append(call)
        _raise_gated(reach, ctx, nodes, builds)
        for call, site in ctx.sites:
            if site.kind == "forward" and (call.args or call.keywords):
                key = (ctx.fn.qualname, ("shape", call.lineno, id(call)))
                if key not in builds:
                    builds[key] = _Build(Guard("shape", call.lineno, call, node=call), ctx,
                                         shape=call)
                _gate(builds, key, builds[key].guard, ctx, [site])
    return list(builds.values())


def deciding(guards, consts: dict) -> Iterator[Guard]:
    """The guards that are decisions in a context with ``consts``: each with a test (or an
    ``except`` handler), not one the constants decide; ``if a: if b: continue``'s outer
    ``a`` as an exit too (it decides the exit)."""
    for g in guards:
        if not tested(g):
            continue
        if g.kind == "exit-outer":
            g = Guard("exit", g.line, g.test, g.negated, node=g.node)
        if guard_state(g, consts) is None:
            yield g


def _gate(builds: dict[tuple, _Build], key: tuple, guard: Guard, ctx: Ctx,
          sites: list[CollectiveSite]) -> _Build:
    """The build under ``key`` (made with ``guard`` in ``ctx`` if new), gating ``sites``."""
    build = builds.get(key)
    if build is None:
        build = builds[key] = _Build(guard, ctx)
    if ctx not in build.ctxs:
        build.ctxs.append(ctx)
    for site in sites:
        build.sites.setdefault((site.file, site.line, site.call), site)
    return build


def _raise_gated(reach: Reach, ctx: Ctx, nodes: list, builds: dict[tuple, _Build]) -> None:
    """The conditions under which a call made before a gated node raises (in the callee or
    a function it calls) where the exception is caught and the rank goes on: by a try
    around both the call and the node, or, past this function, by a caller's try. There
    the raising ranks skip the collectives after the call and the others wait for them (an
    exception nothing catches ends the rank's process: a crash, not a hang)."""
    targets: dict[int, list[Ctx]] = {}
    for call, target in ctx.edges:
        targets.setdefault(id(call), []).append(target)
    for node, sites in nodes:
        for before in ctx.flow.prior_calls(node):
            if is_dead(ctx.flow.guards.get(id(before), ()), ctx.consts):
                continue
            around = ctx.flow.tries.get(id(before), ())
            if not around and not caught_above(reach, ctx, ANY):
                continue  # no try here or above: whatever it raises is a crash
            for target in targets.get(id(before), ()):
                for where, guards, exc in raising(reach, target):
                    catcher = ctx.flow.catcher(around, exc)
                    if catcher is None and not caught_above(reach, ctx, exc) \
                            or catcher is not None \
                            and catcher not in ctx.flow.tries.get(id(node), ()):
                        continue  # a crash, or caught before the node: every rank gets there
                    for g in deciding(guards, where.consts):
                        key = (where.fn.qualname, "raise", id(g.test) if g.test is not None
                               else ("handler", g.line))
                        _gate(builds, key, Guard("raise", g.line, g.test, g.negated,
                                                 node=g.node), where, sites)


Raising = tuple[Ctx, tuple[Guard, ...], "str | None"]


def raising(reach: Reach, target: Ctx, depth: int = 0) -> list[Raising]:
    """(context, guards, exception class) for each way a call into ``target`` raises out of
    it: its raise and assert statements, and its calls to functions that raise (a few calls
    deep, with the guards of that call in ``target``), but for what a try there catches."""
    memo: dict[tuple, list] = reach.__dict__.setdefault("_raising", {})
    key = (target.key, depth)
    found = memo.get(key)
    if found is not None:
        return found
    memo[key] = []  # a recursive call raises through what the outer one found
    out: dict[tuple, Raising] = {}
    flow = target.flow
    for _stmt, guards, exc, tries in flow.raises.values():
        if flow.catcher(tries, exc) is None and not is_dead(guards, target.consts):
            out.setdefault((target.key, guards, exc), (target, guards, exc))
    if depth < RAISE_DEPTH:
        for call, inner in target.edges:
            guards = flow.guards.get(id(call), ())
            if is_dead(guards, target.consts):
                continue
            for where, inner_guards, exc in raising(reach, inner, depth + 1):
                if flow.catcher(flow.tries.get(id(call), ()), exc) is None:
                    out.setdefault((where.key, inner_guards, exc), (where, inner_guards, exc))
                    out.setdefault((target.key, guards, exc), (target, guards, exc))
    memo[key] = found = list(out.values())
    return found


def judge(build: _Build, reach: Reach, tracer: Tracer, roles: dict[str, str],
          inline_roles: dict[str, str]) -> Decision:
    g, ctx = build.guard, build.first
    sites = sorted(build.sites.values(), key=lambda s: (s.file, s.line))
    condition = _condition_text(g)
    decision = Decision(ctx.fn.qualname, ctx.fn.file, g.line, condition, g.kind, sites,
                        chain=reach.chain(ctx))
    leaves: list[Leaf] = []
    for c in build.ctxs:
        leaves += _inputs(build, c, tracer)
    # a point-to-point pair is not entered by every rank of its group: when the decision also
    # gates group collectives, uniformity is judged over those groups
    judged = [s for s in sites if s.kind != "p2p"] or sites
    dims = sorted({d for s in judged for d in s.dim.split("|")}) or ["world"]
    planned = _planned_over(sites, leaves)
    if planned:  # default-group transfers: their peers are taken to be in the plan's group
        dims = planned
    worst_inputs: list[Input] = []
    worst = -1
    paired = _paired_group(judged, ctx)
    for dim in dims:
        inputs = _classify(leaves, dim, paired)
        rank = max((_ORDER[i.klass] for i in inputs), default=0)
        if rank > worst:
            worst, worst_inputs = rank, inputs
    decision.inputs = worst_inputs
    decision.covered_by = sorted({i.reason.removeprefix("replica checked by ")
                                  for i in worst_inputs if i.klass is SANCTIONED
                                  and i.reason.startswith("replica checked by ")})
    role_why = roles.get(" ".join(condition.split())) or inline_roles.get(
        f"{ctx.fn.file}:{g.line}")
    if role_why:
        decision.verdict, decision.why = Verdict.ROLE, f"declared role: {role_why}"
    elif _all_trivial(build, reach, sites):
        decision.verdict = Verdict.TRIVIAL
        decision.why = "every collective it gates runs only where its group has one rank"
        if not _all_trivial(build, reach, sites, roots=False):
            dims = ", ".join(sorted(reach.only_where.get(ctx.fn.key, ())))
            decision.why += (f": it is reached only from roots started where the {dims} "
                             "group has one rank (see the notes)")
    elif _exit_only_single(build, sites):
        decision.verdict = Verdict.TRIVIAL
        decision.why = "the exit it decides is taken only where its group has one rank"
    elif _symmetric(build, reach, with_p2p=True):
        decision.verdict = Verdict.SYMMETRIC
        decision.why = "both arms issue the same collective sequence"
    elif _only_rank_ids(decision.inputs) and all(s.kind == "p2p" for s in sites):
        decision.verdict = Verdict.ROLE
        decision.why = "a rank-id role that gates point-to-point transfers only"
        if planned:
            decision.why += _planned_note(planned)
    elif _only_rank_ids(decision.inputs) and _symmetric(build, reach, with_p2p=False):
        decision.verdict = Verdict.ROLE
        decision.why = ("a rank-id role: both arms issue the same group collectives; only "
                        "point-to-point transfers differ")
    else:
        decision.verdict, decision.why = _verdict(decision.inputs)
        if planned and decision.verdict is Verdict.UNIFORM:
            decision.why += _planned_note(planned)
    return decision


def _planned_over(sites: list[CollectiveSite], leaves: list[Leaf]) -> list[str]:
    """For a decision that gates only point-to-point transfers over the default group
    (``batch_isend_irecv(ops)``, ``isend(t, dst=get_global_rank(ep_group, r))``: peers named
    by global rank), the groups its agreed inputs were agreed over, narrowest first: a
    transfer plan agreed over a group pairs members of that group. Else []."""
    if not sites or any(s.kind != "p2p" or s.dim != "world" for s in sites):
        return []
    return sorted({d for leaf in leaves if leaf.category == "agreed"
                   for d in re.split(r"[|+]", leaf.dim) if d and d != "world"})


def _planned_note(planned: list[str]) -> str:
    return (f" (point-to-point over the default group: its peers are taken to be in the "
            f"{'|'.join(planned)} group its plan was agreed over)")


def _condition_text(g: Guard) -> str:
    if g.kind == "shape":
        assert isinstance(g.test, ast.Call)
        args = ", ".join(ast.unparse(a) for a in [*g.test.args, *(k.value for k in g.test.keywords)])
        return f"shape of {ast.unparse(g.test.func)}({args})"
    if g.kind == "except":
        return g.text
    if isinstance(g.node, ast.ExceptHandler):  # a break/return/exit inside a handler
        return f"except {ast.unparse(g.test)}" if g.test is not None else "except"
    if g.kind in ("for", "while"):
        return g.text
    return ast.unparse(g.test) if g.test is not None else g.kind


def _inputs(build: _Build, ctx: Ctx, tracer: Tracer) -> list[Leaf]:
    g = build.guard
    if g.kind == "shape" and build.shape is not None:
        call = build.shape
        args = [*call.args, *(k.value for k in call.keywords)]
        # an argument that is an object of ours: the sizes it was built from (``shapes``)
        return [x for a in args for x in tracer.trace(a, ctx, "length")] + [
            x for a in args for x in tracer.record_sizes(a, ctx)]
    return list(tracer.guard_sources(g, ctx, -1))


def _paired_group(sites: list[CollectiveSite], ctx: Ctx) -> str:
    """Every gated site runs in the decision's own function over one group parameter of it:
    that parameter (``param_group``), else "". A value reduced over the same parameter is
    agreed over whichever group the caller passed, the very group of the sites."""
    fn = ctx.fn
    if not sites or any(s.function != fn.qualname or s.file != fn.file for s in sites):
        return ""
    raws = {s.group.split(" = ", 1)[0] for s in sites}
    return param_group(fn, raws.pop(), ctx.flow) if len(raws) == 1 else ""


def _classify(leaves: list[Leaf], dim: str, paired: str = "") -> list[Input]:
    out: dict[tuple, Input] = {}
    for leaf in leaves:
        if paired and leaf.category == "agreed" and leaf.group == paired:
            klass, reason = AGREED, (f"{leaf.reason}: the same group parameter as the "
                                     f"collectives it gates")
        elif paired and leaf.category == "unknown" and leaf.group == paired:
            # a rank in the root's group parameter gating collectives over that parameter
            klass, reason = RANK_LOCAL, (f"{leaf.reason.split(':', 1)[0]}: differs within "
                                         f"that group, which the collectives it gates run over")
        elif any(trivial_for(single, dim) for single in leaf.single):
            klass, reason = TRIVIAL_INPUT, (f"reaches the decision only where the {dim} group "
                                            f"has one rank ({leaf.reason})")
        elif leaf.category == "rank_id" and any(trivial_for(s, leaf.dim) for s in leaf.single):
            klass, reason = CONFIG, (f"{leaf.reason}: the same on every rank where the "
                                     f"{leaf.dim} group has one rank, as on its path")
        elif leaf.category == "rank_id":
            if varies_within(leaf.dim, dim):
                klass, reason = RANK_LOCAL, f"{leaf.reason}: differs within a {dim} group"
            else:
                klass, reason = CONFIG, f"{leaf.reason}: the same on every rank of a {dim} group"
        elif leaf.category == "agreed":
            if all(covers(a, dim) for a in leaf.dim.split("|")):
                klass, reason = AGREED, leaf.reason
            else:
                klass, reason = RANK_LOCAL, f"{leaf.reason}: agreed over {leaf.dim}, not over {dim}"
        else:
            klass = {"rank_local": RANK_LOCAL, "config": CONFIG, "sanctioned": SANCTIONED,
                     "unknown": UNKNOWN}.get(leaf.category, UNKNOWN)
            reason = leaf.reason
        key = (leaf.name, klass)
        found = out.get(key)
        if found is None or len(leaf.witness) < len(found[0].witness):
            out[key] = (leaf, reason)
    inputs = [Input(leaf.name, klass, expand_witness(leaf.witness), reason)
              for (_name, klass), (leaf, reason) in out.items()]
    # the input closest to the decision first: its witness is the one a reader checks first
    return sorted(inputs, key=lambda i: (-_ORDER[i.klass], len(i.witness), i.name))


def _verdict(inputs: list[Input]) -> tuple[Verdict, str]:
    classes = {i.klass for i in inputs}
    if RANK_LOCAL in classes:
        first = next(i for i in inputs if i.klass is RANK_LOCAL)
        return Verdict.RANK_LOCAL, f"{first.name}: {first.reason}"
    if UNKNOWN in classes:
        first = next(i for i in inputs if i.klass is UNKNOWN)
        return Verdict.UNKNOWN, f"{first.name}: {first.reason}"
    if SANCTIONED in classes:
        return Verdict.SANCTIONED, "through a declared source"
    if TRIVIAL_INPUT in classes:
        return Verdict.TRIVIAL, "its rank-local inputs reach it only where the group has one rank"
    return Verdict.UNIFORM, "every input is agreed or configuration"


def _all_trivial(build: _Build, reach: Reach, sites: list[CollectiveSite],
                 roots: bool = True) -> bool:
    """Every gated call sits under a single-rank condition for its collectives' group, or
    (``roots``) in a function reached only from roots started where that group has one rank
    (``preconditions.py``)."""
    if not build.calls or not sites:
        return False
    dims = {s.dim for s in sites}
    for ctx in build.ctxs:
        for call in build.calls:
            guards = ctx.flow.guards.get(id(call))
            if guards is None:
                continue
            singles = {single_rank_dim(x.test, x.negated) for x in holding_guards(guards)
                       if x.test is not None and x.kind in ("if", "exit")}
            if roots:
                singles |= reach.only_where.get(ctx.fn.key, frozenset())
            if not all(any(s and trivial_for(s, d) for s in singles) for d in dims):
                return False
    return True


def _exit_only_single(build: _Build, sites: list[CollectiveSite]) -> bool:
    """An early exit (``assert polls is not None`` inside ``if pp_size <= 1:``) sits under a
    condition that proves each gated collective's group has one rank: taking it or not, no
    peer waits."""
    g = build.guard
    if g.kind != "exit" or not build.calls or not sites:
        return False
    dims = {s.dim for s in sites}
    for ctx in build.ctxs:
        for call in build.calls:
            around = [x for x in ctx.flow.guards.get(id(call), ()) if x.kind == "exit-outer"
                      and x.test is not None and x.test is not g.test
                      and isinstance(x.node, ast.If)
                      and x.node.lineno <= g.line <= (x.node.end_lineno or x.node.lineno)]
            singles = {single_rank_dim(x.test, x.negated) for x in around}
            if not all(any(s and trivial_for(s, d) for s in singles) for d in dims):
                return False
    return True


def _only_rank_ids(inputs: list[Input]) -> bool:
    """Its rank-local inputs are all rank ids, and it has one (a rank in a group left
    unknown counts: a role is a role whichever group it is the rank in)."""
    local = [i for i in inputs if i.klass is RANK_LOCAL
             or i.klass is UNKNOWN and i.reason.startswith("rank id")]
    return bool(local) and all(i.reason.startswith("rank id") for i in local)


def _arm_signature(body: list[ast.AST], ctx: Ctx, reach: Reach, with_p2p: bool = True) -> tuple:
    calls: list[ast.AST] = []
    for stmt in body:
        calls += [n for n in subnodes(stmt) if isinstance(n, ast.Call)]
    ids = {id(c): c for c in calls}
    found: list[tuple[int, int, tuple]] = []
    for call, site in ctx.sites:
        if id(call) in ids and (with_p2p or site.kind != "p2p"):
            found.append((call.lineno, call.col_offset, ((site.call.rsplit(".", 1)[-1],
                                                          site.group),)))
    for call, target in ctx.edges:
        if id(call) in ids and target.reaches:
            sig = tuple(sorted((s.call.rsplit(".", 1)[-1], s.group)
                               for s in reach.sites_under(target)
                               if with_p2p or s.kind != "p2p"))
            found.append((call.lineno, call.col_offset, sig))
    return tuple(x for _l, _c, sig in sorted(found) for x in sig)


def _symmetric(build: _Build, reach: Reach, with_p2p: bool) -> bool:
    """Both arms issue the same collective sequence (``with_p2p=False``: the same group
    collectives, point-to-point transfers aside)."""
    node = build.guard.node
    ctx = build.first
    if isinstance(node, ast.If) and build.guard.kind == "if":
        arms = (node.body, node.orelse)
    elif isinstance(node, ast.IfExp):
        arms = ([node.body], [node.orelse])
    else:
        return False
    yes = _arm_signature(arms[0], ctx, reach, with_p2p)
    no = _arm_signature(arms[1], ctx, reach, with_p2p)
    if with_p2p:
        return bool(yes) and yes == no
    return yes == no and (bool(yes) or bool(_arm_signature(arms[0], ctx, reach)
                                             or _arm_signature(arms[1], ctx, reach)))


def verdict_holds(verdict: Verdict, strict: bool) -> bool:
    return verdict.holds or (verdict is Verdict.UNKNOWN and not strict)


__all__ = ["gather", "judge", "verdict_holds", "InputClass"]
