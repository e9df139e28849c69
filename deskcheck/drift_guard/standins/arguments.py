"""Stand-ins passed as ARGUMENTS: a ``SimpleNamespace`` (or a plain test-file object) handed to
a production method as a parameter (``Scheduler.abort(sched, req=SimpleNamespace(rid="a"))``,
``sched.process(SimpleNamespace(...))``) stands in for what that parameter receives.

The needed names are the parameter's own touches in the method body (``req.rid``,
``req.finished()``; ``req.params.limit`` where the namespace holds a namespace in
``params``, see ``Obj.nested``), each under its branch conditions, decided from the
namespace's literal fields and the call's literals; a name the namespace lacks is drift on the driven path,
silent skip when masked, unexercised or unknown off it. Touches in functions the parameter is
handed on to are not followed (a reverse list would be unsound, so none is given).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from deskcheck.drift_guard.paths import PathRecord, PathVerdict, is_provided
from deskcheck.drift_guard.standins.flow_choices import call_rows
from deskcheck.drift_guard.standins.records import NAMESPACE, Construction, Drive
from deskcheck.drift_guard.standins.resolve import Resolved
from deskcheck.static import (
    DEAD,
    GUARDED,
    LIVE,
    UNKNOWN,
    CallArgs,
    Env,
    Something,
    bind,
    explain,
    function_facts,
)

NEEDING = ("read", "call", "rmw", "guarded")


def parameter(node: Any, argument: str, skip_self: bool) -> str | None:
    """The parameter a positional index (``"0"``: the first after self) or keyword fills."""
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if skip_self:
        positional = positional[1:]
    if argument.isdigit():
        index = int(argument)
        return positional[index] if index < len(positional) else None
    names = set(positional) | {a.arg for a in args.kwonlyargs}
    return argument if argument in names else None


def judge_argument(cons: Construction, drives: list[Drive], resolved: Resolved,
                   constants: dict[str, Any], provided: set[str],
                   built_at: str) -> PathVerdict | None:
    """The verdict of one namespace passed as one parameter of one method (``drives`` share
    the method and the parameter)."""
    first = drives[0]
    found = resolved.model.lookup(first.method)
    if found is None or not found[1].is_function:
        return None
    klass, member = found
    declared = dict(member.functions()).get("call")
    if declared is None:
        return None
    node = klass.function(declared)
    skip = member.kind != "staticmethod"
    param = parameter(node, first.argument, skip)
    if param is None:
        return None
    envs = [_with_receiver(bind(node, row, skip_first=skip,
                                label=f"{klass.name}.{first.method}"), node, d, skip)
            for d in drives for row in call_rows(_args(d.args))]
    facts = function_facts(node, param)
    if cons.kind == NAMESPACE:
        constants = {**constants, "": Something(True, "namespace")}  # the argument itself
    best: dict[str, tuple[int, bool, str, str, str]] = {}
    for acc in facts.accesses:
        top = acc.name  # a chain is judged only under a namespace whose names are listed
        if acc.kind not in NEEDING or acc.after_write or top in provided or (
                "." in top and is_provided(top, provided) is not False):
            continue
        results = []
        for env in envs:  # live on any call's path: the most live of them
            here, text, why = LIVE, "", ""
            for cond in acc.conds:
                decision = explain(cond, constants, env)
                if decision.status < here:
                    here, text, why = (decision.status, f"{cond.text} at {klass.file}:{cond.line}",
                                       decision.why)
            results.append((here, text, why))
        status, text, why = max(results, key=lambda r: r[0])
        masked = acc.kind == GUARDED or acc.swallowed
        old = best.get(top)
        if old is None or (status, not masked) > (old[0], not old[1]):
            best[top] = (status, masked, f"{klass.file}:{acc.line}", text, why)
    label = f"{klass.name}.{first.method}({param})"
    verdict = PathVerdict(cons.form, label, (first.method,), "static", built_at=built_at)
    path = (f"{klass.name}.{first.method}",)
    for name, (status, masked, site, text, why) in sorted(best.items()):
        if status == LIVE and not masked:
            verdict.drift.append(PathRecord(name, site, path))
        elif status == LIVE:
            verdict.silent_skips.append(PathRecord(
                name, site, path, "", "masked by a getattr/hasattr default or a try that "
                "catches AttributeError: missing, silently skipped"))
        elif status == UNKNOWN:
            verdict.unknown.append(PathRecord(name, site, path, text, why=why))
        elif status == DEAD:
            verdict.unexercised.append(PathRecord(name, site, path, text))
    verdict.notes.append(f"a stand-in for parameter `{param}` of {label.partition('(')[0]}: "
                         "only the parameter's own touches in that method are judged")
    return verdict


def _with_receiver(env: Env, node: Any, drive: Drive, skip: bool) -> Env:
    """``env`` with the method's ``self`` bound to what the receiver stand-in holds (its
    literal fields), so ``self.prefill_max_requests is not None`` decides too."""
    params = node.args.posonlyargs + node.args.args
    if not skip or not params or not drive.receiver:
        return env
    fields = {s.name: s.value for s in drive.receiver if s.constant}
    return Env({**env.values, params[0].arg: SimpleNamespace(**fields)}, env.unknown)


def _args(args: CallArgs | None) -> CallArgs:
    return args if args is not None else CallArgs(star=True, double_star=True)


__all__ = ["Env", "judge_argument", "parameter"]
