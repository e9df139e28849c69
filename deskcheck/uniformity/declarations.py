"""Every declaration is checked: an ``agreed`` field whose writes do not come from the named
collective is unproven; a ``replica`` whose congruence arm does not exist is claimed, not
enforced; a declaration that matches nothing in the code is stale."""

from __future__ import annotations

import ast
import re
from fnmatch import fnmatchcase

from deskcheck.static import ALL, field_writes, method_functions, note_read, read_as, subnodes
from deskcheck.uniformity.config import UniformityConfig
from deskcheck.uniformity.consensus import consensus_decorator
from deskcheck.uniformity.model import AuditReport, DeclarationFinding
from deskcheck.uniformity.reach import Reach
from deskcheck.uniformity.rules import hop_text, matches
from deskcheck.uniformity.trace import Tracer


def check_declarations(config: UniformityConfig, report: AuditReport, reach: Reach,
                       tracer: Tracer, model,
                       inline: dict[str, tuple[str, str]] | None = None,
                       ) -> list[DeclarationFinding]:
    out: list[DeclarationFinding] = []
    writes = field_writes(model)
    out += _check_inline_agreed(inline or {}, writes, tracer, model)
    for agreed in config.agreed:
        if agreed.call:
            continue  # checked below, against every call in the code
        name = agreed.field.removeprefix("self.")
        found = writes.get(name, [])
        if not found:
            out.append(DeclarationFinding("agreed", agreed.field, "stale", agreed.where,
                                          f"no write of self.{name} in {model.name}'s MRO"))
            continue
        if not _made_by(tracer, model, found, agreed.collective, agreed.field):
            out.append(DeclarationFinding(
                "agreed", agreed.field, "unproven", agreed.where,
                f"no write of self.{name} comes from {agreed.collective} "
                f"(writes: {', '.join(w.where for w in found[:4])})"))
    for replica in config.replica:
        name = replica.field.removeprefix("self.")
        if name not in writes:
            out.append(DeclarationFinding("replica", replica.field, "stale", replica.where,
                                          f"no write of self.{name} in {model.name}'s MRO"))
        elif not arm_exists(config, replica.arm):
            out.append(DeclarationFinding("replica", replica.field, "claimed, not enforced",
                                          replica.where, f"no test {replica.arm} exists"))
    out += _check_components(config, reach, model, writes)
    out += _check_consensus(config, reach)
    # stale = matches nothing in the code (the class's MRO and every function the audit
    # entered), whichever roots this audit started from
    calls, tests = _code_calls_and_tests(model, reach)
    conditions = {" ".join(d.condition.split()) for d in report.decisions} | tests
    for role in config.role:
        if " ".join(role.condition.split()) not in conditions:
            out.append(DeclarationFinding("role", role.condition, "stale", role.where,
                                          "no condition in the code reads like this"))
    calls |= {s.call for s in report.sites}
    for agreed in config.agreed:
        if agreed.call:
            found = _check_agreed_call(agreed, calls, config, reach, tracer, model)
            if found is not None:
                out.append(found)
    for kind, patterns in (("collectives", config.collectives), ("forward", config.forward)):
        for pattern in patterns:
            if not any(matches(c, [pattern.call]) for c in calls) \
                    and not _called_in_files(pattern.call, reach, model):
                out.append(DeclarationFinding(kind, pattern.call, "stale", pattern.where,
                                              "matches no call in the code"))
    return out


def _check_components(config: UniformityConfig, reach: Reach, model,
                      writes: dict) -> list[DeclarationFinding]:
    """A declared component class must exist under the roots; the declaration is stale
    when no field the walk looked up, nor any field of the audited class, matches it."""
    out: list[DeclarationFinding] = []
    resolver = reach.resolver
    own = {f"{k.qualname}.{name}" for k in model.sources for name in writes}
    for component in config.components:
        missing = [c for c in component.classes if resolver.declared_class(c) is None]
        if missing:
            out.append(DeclarationFinding(
                "components", component.field, "unknown class", component.where,
                f"no class {' or '.join(missing)} under the roots (write module:Class, the "
                f"module that defines the class)"))
        elif component.field not in resolver.declared_used \
                and not any(fnmatchcase(key, component.field) for key in own):
            out.append(DeclarationFinding(
                "components", component.field, "stale", component.where,
                f"no field of {model.name}'s MRO, nor of a component the walk entered, "
                f"matches it"))
    return out


def _check_consensus(config: UniformityConfig, reach: Reach) -> list[DeclarationFinding]:
    """A ``consensus`` decorator is stale when no function the walk entered carries it."""
    out: list[DeclarationFinding] = []
    entered = [c.fn for c in reach.ctxs.values()]
    for entry in config.consensus:
        if not any(consensus_decorator(fn, [entry.decorator]) is not None for fn in entered):
            out.append(DeclarationFinding(
                "consensus", entry.decorator, "stale", entry.where,
                "no function the audit entered carries this decorator"))
    return out


def _called_in_files(pattern: str, reach: Reach, model) -> bool:
    """Whether a call matching ``pattern`` is anywhere in the files the audit read (a
    sibling class of one project file calls it: one declaration table serves several
    targets). Asked only of a declaration about to be called stale; such a file counts as
    read whole (an edit anywhere in it audits again)."""
    needle = pattern.rsplit(".", 1)[-1]
    needle = "" if any(ch in needle for ch in "*?[") else needle
    sources = reach.resolver.index.sources
    for file in sorted(reach.files_read(model)):
        try:
            text = sources.parse(file).data.decode("utf-8", "replace")
        except Exception:
            continue
        if needle not in text:
            continue
        note_read(file, ALL, "calls")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if any(isinstance(n, ast.Call) and matches(hop_text(n.func), [pattern])
               for n in subnodes(tree)):
            return True
    return False


def _check_agreed_call(agreed, calls: set[str], config: UniformityConfig, reach: Reach,
                       tracer: Tracer, model) -> DeclarationFinding | None:
    """A call declared agreed is proven when it is itself the collective it names (a
    configured forward pass or collective) or when a callee it reaches returns a value that
    collective makes agreed; stale when it matches no call in the code."""
    hits = sorted(c for c in calls if matches(c, [agreed.call]))
    if not hits:
        if _called_in_files(agreed.call, reach, model):
            return None  # a sibling class calls it: in use, not for this target to prove
        return DeclarationFinding("agreed", agreed.call, "stale", agreed.where,
                                  "matches no call in the code")
    configured = [p.call for p in (*config.forward, *config.collectives)]
    if any(matches(c, configured) and _names(c, agreed.collective) for c in hits):
        return None
    saved = dict(tracer.agreed_calls)
    tracer.agreed_calls.clear()
    tracer.forget()
    try:
        for ctx in list(reach.ctxs.values()):
            for call in ctx.flow.calls:
                if not matches(hop_text(call.func), [agreed.call]):
                    continue
                for callee in tracer.callees_of(ctx, call)[0]:
                    for value, _guards in callee.flow.returns:
                        if any(leaf.category == "agreed" and _shows(leaf, agreed.collective)
                               for leaf in tracer.trace(value, callee)):
                            return None
    finally:
        tracer.agreed_calls.update(saved)
        tracer.forget()
    return DeclarationFinding(
        "agreed", agreed.call, "unproven", agreed.where,
        f"{', '.join(hits[:3])} is no {agreed.collective} and returns nothing "
        f"{agreed.collective} makes agreed")


def _names(text: str, pattern: str) -> bool:
    return fnmatchcase(text, pattern) or matches(text, [pattern]) is not None


def _shows(leaf, collective: str) -> bool:
    """Whether an agreed leaf was made by ``collective``: its name, or a call on its hops."""
    return _names(leaf.name, collective) or any(
        _names(hop.split(" ", 1)[1].split("(", 1)[0], collective)
        for hop in leaf.witness if " " in hop)


def _check_inline_agreed(inline: dict[str, tuple[str, str]], writes, tracer: Tracer,
                         model) -> list[DeclarationFinding]:
    """``# deskcheck: agreed <why>`` names no collective: the field written on its line must
    come from some collective (unproven otherwise); a line writing no field is stale."""
    out: list[DeclarationFinding] = []
    by_line = {}
    for found in writes.values():
        for write in found:
            by_line.setdefault(f"{write.file}:{write.line}", []).append(write)
    for key, (kind, _why) in sorted(inline.items()):
        if kind != "agreed":
            continue
        on_line = by_line.get(key, [])
        if not on_line:
            out.append(DeclarationFinding("agreed", key, "stale", key,
                                          "the comment's line writes no self field"))
            continue
        field = f"self.{on_line[0].name}"
        if not _made_by(tracer, model, on_line, "*", field, key):
            out.append(DeclarationFinding(
                "agreed", field, "unproven", key,
                f"the write at {key} comes from no collective"))
    return out


def _code_calls_and_tests(model, reach: Reach) -> tuple[set[str], set[str]]:
    """Every call (as written, without arguments) and every if/while test in the class's MRO
    and in the functions the audit entered."""
    with read_as("calls"):  # only call and test texts: an edit keeping them keeps this
        nodes = [node for _k, _n, node in method_functions(model)]
    nodes += [c.fn.node for c in reach.ctxs.values()]
    calls: set[str] = set()
    tests: set[str] = set()
    seen: set[int] = set()
    for node in nodes:
        if id(node) in seen:
            continue
        seen.add(id(node))
        for sub in subnodes(node):
            if isinstance(sub, ast.Call):
                calls.add(hop_text(sub.func))
            elif isinstance(sub, ast.If | ast.While | ast.IfExp):
                tests.add(" ".join(ast.unparse(sub.test).split()))
    return calls, tests


def _made_by(tracer: Tracer, model, writes, collective: str, field: str,
             *declared_at: str) -> bool:
    saved = dict(tracer.sanctioned)
    for key in (field, field.removeprefix("self."), *declared_at):
        tracer.sanctioned.pop(key, None)
    tracer.forget()
    try:
        for write in writes:
            wctx = tracer.write_ctx(model, write)
            if wctx is None or write.value is None:
                continue
            for leaf in tracer.trace(write.value, wctx):
                if leaf.category == "agreed" and (fnmatchcase(leaf.name, collective) or matches(
                        leaf.name, [collective])):
                    return True
        return False
    finally:
        tracer.sanctioned.clear()
        tracer.sanctioned.update(saved)
        tracer.forget()


def arm_exists(config: UniformityConfig, arm: str) -> bool:
    """Whether the congruence arm ``path.py::test`` names a file (and test) that exists."""
    path, _sep, name = arm.partition("::")
    file = (config.base / path)
    if not file.is_file():
        return False
    if not name:
        return True
    test = name.split("::")[-1].split("[")[0]
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return False
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == test
               for n in subnodes(tree)) or bool(re.search(rf"def {re.escape(test)}\b",
                                                          file.read_text(encoding="utf-8")))
