"""Judge each discovered stand-in on the paths its tests drive (``drift_guard.paths``).

Per stand-in: the model is resolved through the test file's imports; its drives are grouped by
what the stand-in holds when driven (a test may set more names than the factory did), and each
group is one ``judge_paths`` call with the names set, their literal values (static branch
pruning) and, after ``--run``, the lines those tests executed.
"""

from __future__ import annotations

import ast
import enum
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from deskcheck.drift_guard.paths import CATEGORIES, PathRecord, PathVerdict, judge_paths
from deskcheck.drift_guard.standins.arguments import judge_argument
from deskcheck.drift_guard.standins.flow_choices import call_rows
from deskcheck.drift_guard.standins.record_values import misfit, record_value
from deskcheck.drift_guard.standins.records import (
    MOCK,
    NEW,
    NONE,
    PLAIN,
    Constructed,
    Construction,
    Drive,
    Problem,
    SetName,
    Symbol,
    is_marker,
)
from deskcheck.drift_guard.standins.resolve import Resolved, Resolver
from deskcheck.static import CallArgs, ClassModel, Env, Unknown, bind, signature_problems

Executed = Mapping[str, Mapping[str, set[int]]]  # test node id -> {abs file: lines}
SEVERITY = ("drift", "silent_skips", "unexercised", "unknown")  # worst first


@dataclass
class DrivenMethod:
    method: str
    how: str
    tests: list[str] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)


@dataclass
class Judgment:
    """One ``judge_paths`` call: the tests that drive the stand-in holding the same names."""

    tests: list[str]
    methods: list[str]
    verdict: PathVerdict
    fields: frozenset[str] = frozenset()  # the names the stand-in holds in this group


@dataclass(frozen=True)
class SignatureDrift:
    """A driven call that no longer fits the production method's signature."""

    method: str
    site: str
    test: str
    problem: str

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "site": self.site, "test": self.test,
                "problem": self.problem}


@dataclass
class StandInReport:
    construction: Construction
    model: str
    sets: dict[str, SetName]
    driven: list[DrivenMethod] = field(default_factory=list)
    judgments: list[Judgment] = field(default_factory=list)
    needed: int = 0
    undecided: list[str] = field(default_factory=list)  # needed names no condition decides
    signature: list[SignatureDrift] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def built_at(self) -> str:
        return self.construction.where

    @property
    def decided(self) -> int:
        return self.needed - len(self.undecided)

    @property
    def holds(self) -> bool:
        return not self.signature and all(j.verdict.holds for j in self.judgments)

    @property
    def status(self) -> str:
        if not self.judgments:
            return "not driven"
        return "holds" if self.holds else "DRIFT"

    def records(self, category: str) -> list[PathRecord]:
        """The findings of every driving group, each once, in the worst category any group
        gives it (a read drift in one group is not listed again as unexercised from another;
        of its drift records, one whose line ran is shown). ``reverse``: only the names no
        group that sets them touches (a name one group's path reads is not reverse)."""
        seen: set[tuple[str, str]] = set()
        out: list[PathRecord] = []
        touched: set[str] = set()
        if category == "reverse":
            for judgment in self.judgments:
                unused = {r.name for r in judgment.verdict.reverse}
                touched |= {n for n in judgment.fields if n not in unused}
        if category in SEVERITY:
            for judgment in self.judgments:
                for worse in SEVERITY[:SEVERITY.index(category)]:
                    seen |= {(r.name, r.site) for r in getattr(judgment.verdict, worse)}
        for judgment in self.judgments:
            for rec in getattr(judgment.verdict, category):
                if rec.name in touched:
                    continue
                if (rec.name, rec.site) not in seen:
                    seen.add((rec.name, rec.site))
                    out.append(rec)
                elif category == "drift" and not rec.detail:  # prefer one whose line ran
                    out = [rec if (o.name, o.site) == (rec.name, rec.site) and o.detail else o
                           for o in out]
        return out


def _entry_envs(drive: Drive, resolved: Resolved,
                record: Callable[[Constructed], Any] = lambda made: made) -> list[Env | None]:
    """The driven method's parameters as the test's call binds them, one env per row of the
    literal loops and parametrize tables its values come from (``[None]``: not known);
    ``record``: the value a production record the test constructs stands for."""
    if drive.args is None:
        return [None]
    found = resolved.model.lookup(drive.method)
    if found is None or not found[1].is_function:
        return [None]
    klass, member = found
    declared = dict(member.functions()).get("call")
    if declared is None:
        return [None]
    args: CallArgs = drive.args

    def value(v: Any) -> Any:
        if isinstance(v, Constructed):
            return record(v)
        got = _constant(v)
        return Unknown(f"`{v!r}` passed at {args.where} is not an enum member") \
            if got is _SKIP else got

    envs: list[Env | None] = []
    for row in call_rows(args):
        one = CallArgs(tuple(value(v) for v in row.positional),
                       tuple((k, value(v)) for k, v in row.keywords), row.star,
                       row.double_star, row.where)
        envs.append(bind(klass.function(declared), one, skip_first=member.kind != "staticmethod",
                         label=f"{klass.name}.{drive.method}"))
    return envs


def _constant(value: Any) -> Any:
    """A literal as the branch pruning wants it; an enum-like symbol becomes an enum member
    named like it (``DisaggregationMode.NULL``); anything else is left out (``None`` marker)."""
    if isinstance(value, Symbol):
        owner, _, name = value.name.rpartition(".")
        owner = owner.rpartition(".")[2]
        if owner[:1].isupper() and name.isupper():
            return _member(owner, name)
        return _SKIP
    return value


_SKIP = object()
_ENUMS: dict[tuple[str, str], enum.Enum] = {}


def _member(owner: str, name: str) -> enum.Enum:
    key = (owner, name)
    if key not in _ENUMS:
        _ENUMS[key] = enum.Enum(owner, [name])[name]  # type: ignore[misc]
    return _ENUMS[key]


class Judge:
    """Resolves and judges; ``qualify(file, expr)`` maps a class expression as written in a
    test file to the dotted name its imports bind."""

    def __init__(self, resolver: Resolver, qualify: Callable[[str, str], str | None],
                 rootdir: str, *, strict: bool = False, executed: Executed | None = None,
                 verdicts: bool = True, failed: frozenset[str] = frozenset()):
        self.resolver = resolver
        self.qualify = qualify
        self.rootdir = rootdir
        self.strict = strict
        self.executed = executed
        self.failed = failed  # --run: the driving tests that failed (their runs stopped early)
        self.verdicts = verdicts  # False: resolve and group only (which tests drive what)
        self.problems: list[Problem] = []
        self._signatures: dict[int, list[SignatureDrift]] = {}

    def model_of(self, file: str, expr: str, line: int, *, report: bool) -> Resolved | None:
        qualified = self.qualify(file, expr)
        if qualified is None:
            if report:
                self.problems.append(Problem(
                    "unresolved-model", file, line,
                    f"cannot resolve the model `{expr}`: it is not imported in {file} (a class "
                    "defined in the test file is not production code)",
                    "build the stand-in from the production class, imported from its module"))
            return None
        found = self.resolver.resolve(qualified)
        if isinstance(found, str):
            if report or expr.split(".")[-1][:1].isupper():
                self.problems.append(Problem(
                    "unresolved-model", file, line,
                    f"cannot resolve the model `{expr}` ({qualified}): {found}",
                    "pass the folder holding the production package with --root, or set "
                    "[tool.deskcheck] source_paths"))
            return None
        return found

    def judge(self, cons: Construction, drives: list[Drive]) -> StandInReport | None:
        started = time.perf_counter()
        own = self.model_of(cons.file, cons.model_expr, cons.line, report=True) \
            if cons.model_expr else None
        if cons.model_expr and own is None:
            return None
        usable: list[tuple[Drive, Resolved]] = []
        arguments = [d for d in drives if d.how == "argument"]
        for drive in (d for d in drives if d.how != "argument"):
            model = own if drive.model_expr == cons.model_expr and own is not None else \
                self.model_of(drive.file, drive.model_expr, drive.line, report=False)
            if model is None:
                continue
            found = model.model.lookup(drive.method)
            if found is None or found[1].kind in ("attribute", "annotation"):
                if drive.how in ("Cls.method(obj)", "MethodType") \
                        or drive.how == "obj.method()" and found is None:
                    self.problems.append(Problem(
                        "missing-method", drive.file, drive.line,
                        f"{model.spec} has no method {drive.method!r} (driven here)",
                        "the production method was renamed or removed: update the test"))
                continue
            if drive.how == "property" and found[1].kind != "property":
                continue
            usable.append((drive, model))
            if found[1].is_function and drive.args is not None:
                self._signature(drive, found, model)
        as_argument = self._arguments(cons, arguments) if self.verdicts else []
        if not usable and not as_argument and (own is None or cons.kind == NONE):
            return None  # None as self exists only in its drives (a missing method: a problem)
        spec = own.spec if own is not None else usable[0][1].spec if usable else \
            as_argument[0][0]
        sets: dict[str, SetName] = dict(cons.sets)
        for drive in [d for d, _model in usable] + arguments:
            for item in drive.sets:
                if not is_marker(item.name):
                    sets.setdefault(item.name, item)
        report = StandInReport(cons, spec, dict(sorted(sets.items())))
        by_method: dict[tuple[str, str], DrivenMethod] = {}
        groups: dict[tuple, list[tuple[Drive, Resolved]]] = {}
        for drive, model in usable:
            entry = by_method.setdefault((drive.method, drive.how),
                                         DrivenMethod(drive.method, drive.how))
            if drive.test not in entry.tests:
                entry.tests.append(drive.test)
            if drive.where not in entry.sites:
                entry.sites.append(drive.where)
            key = (model.spec, tuple(sorted((s.name, s.text, repr(s.value))
                                            for s in drive.sets)))
            groups.setdefault(key, []).append((drive, model))
        report.driven = list(by_method.values())
        needed: set[str] = set()
        decided: set[str] = set()
        for members in groups.values() if self.verdicts else ():
            judgment = self._one(cons, members)
            report.judgments.append(judgment)
            needed |= {r.name for c in ("drift", "silent_skips", "unexercised", "unknown")
                       for r in getattr(judgment.verdict, c)}
            decided |= {r.name for c in ("drift", "silent_skips", "unexercised")
                        for r in getattr(judgment.verdict, c)}
        for _spec, judgment, drive in as_argument:
            report.judgments.append(judgment)
            entry = by_method.setdefault((judgment.verdict.model, "argument"),
                                         DrivenMethod(judgment.verdict.model, "argument"))
            report.driven = list(by_method.values())
            for test in judgment.tests:
                if test not in entry.tests:
                    entry.tests.append(test)
            if drive.where not in entry.sites:
                entry.sites.append(drive.where)
            needed |= {r.name for c in ("drift", "silent_skips", "unexercised", "unknown")
                       for r in getattr(judgment.verdict, c)}
            decided |= {r.name for c in ("drift", "silent_skips", "unexercised")
                        for r in getattr(judgment.verdict, c)}
        report.needed = len(needed)
        report.undecided = sorted(needed - decided)
        report.signature = self._signatures.pop(id(cons), [])
        report.elapsed_s = time.perf_counter() - started
        return report

    def _one(self, cons: Construction, members: list[tuple[Drive, Resolved]]) -> Judgment:
        model = members[0][1]
        drive_sets = {s.name: s for s in members[0][0].sets}
        names = set(drive_sets) | set(cons.class_names if cons.kind == PLAIN else ())
        provided = set(names)
        auto: set[str] = set()
        if cons.kind == NEW:
            provided |= model.provided_by_class
        elif cons.kind == MOCK:
            auto = set(model.provided_by_class) - names if cons.model_expr else {"*"}
        bound = {s.name for s in drive_sets.values()
                 if "MethodType(" in s.text or _delegates(s, model.model)}
        constants = {}
        for item in drive_sets.values():
            if item.constant:
                value = _constant(item.value)
                if value is not _SKIP:
                    constants[item.name] = value
        tests = sorted({d.test for d, _m in members})
        methods = sorted({d.method for d, _m in members})
        entry: dict[str, list[Env | None]] = {}
        for drive, resolved in members:
            envs = entry.setdefault(drive.method, [])
            for env in _entry_envs(drive, resolved, partial(self._record, drive=drive)):
                if env is None and None in envs or env is not None and any(
                        e is not None and e.key() == env.key() for e in envs):
                    continue
                envs.append(env)
        executed = None
        if self.executed is not None:
            executed = {}
            for test in tests:
                for path, lines in self.executed.get(test, {}).items():
                    executed.setdefault(path, set()).update(lines)
        verdict = judge_paths(
            model.model, methods, provided=provided, roots=self.resolver.roots,
            executed=executed, constants=constants, strict=self.strict,
            stand_ins=frozenset(names - bound), auto_children=frozenset(auto),
            fields=frozenset(n for n in names if not n.startswith("__") and not is_marker(n)),
            subject=f"{cons.form}",
            built_at=f"{self.rootdir}/{cons.file}:{cons.line}", entry=entry,
            stopped=executed is not None and any(t in self.failed for t in tests))
        return Judgment(tests, methods, verdict, frozenset(names))

    def _arguments(self, cons: Construction, drives: list[Drive]
                   ) -> list[tuple[str, Judgment, Drive]]:
        """Judge ``cons`` where it is passed as an argument: one judgment per (method,
        parameter, names set)."""
        groups: dict[tuple, list[Drive]] = {}
        for drive in drives:
            key = (drive.model_expr, drive.method, drive.argument,
                   tuple(sorted((s.name, s.text) for s in drive.sets)))
            groups.setdefault(key, []).append(drive)
        out: list[tuple[str, Judgment, Drive]] = []
        for members in groups.values():
            first = members[0]
            resolved = self.model_of(first.file, first.model_expr, first.line, report=False)
            if resolved is None:
                continue
            sets = {s.name: s for s in first.sets}
            names = set(sets) | set(cons.class_names if cons.kind == PLAIN else ())
            constants = {}
            for item in sets.values():
                if item.constant and (value := _constant(item.value)) is not _SKIP:
                    constants[item.name] = value
            verdict = judge_argument(cons, members, resolved, constants, names,
                                     f"{self.rootdir}/{cons.file}:{cons.line}")
            if verdict is not None:
                tests = sorted({d.test for d in members})
                out.append((resolved.spec, Judgment(tests, [first.method], verdict,
                                                    frozenset(names)), first))
        return out

    def _record(self, made: Constructed, drive: Drive) -> Any:
        """What ``made`` (a production class the test constructs) holds (``record_values``);
        a call that does not fit the record's fields (``AbortReq(prefix=True)`` where the
        field is gone) is signature drift of the driving call: it raises a TypeError first."""
        found = self.resolver.resolve(made.qualified)
        if not isinstance(found, Resolved):
            return Unknown(f"the test passes `{made!r}` at {made.where}: the class "
                           "does not resolve to production source")
        problem = misfit(found.model, made)
        if problem is not None:
            drift = SignatureDrift(f"{found.model.name}(...)", made.where, drive.test,
                                   f"`{made!r}`: {problem}")
            listed = self._signatures.setdefault(id(drive.construction), [])
            if drift not in listed:
                listed.append(drift)
        return record_value(found.model, made)

    def _signature(self, drive: Drive, found: Any, resolved: Resolved) -> None:
        klass, member = found
        declared = dict(member.functions()).get("call")
        if declared is None:
            return
        node = klass.function(declared)
        skip = member.kind != "staticmethod"
        for problem in signature_problems(node, drive.args, skip_first=skip):
            drift = SignatureDrift(f"{resolved.spec.rpartition(':')[2]}.{drive.method}",
                                   drive.where, drive.test, problem)
            found_list = self._signatures.setdefault(id(drive.construction), [])
            if drift not in found_list:
                found_list.append(drift)


__all__ = ["CATEGORIES", "Judge", "Judgment", "SignatureDrift", "StandInReport"]


def _delegates(item: SetName, model: ClassModel) -> bool:
    """``obj.m = lambda a, b: Cls.m(obj, a, b)``: the production method itself, bound by hand
    (``Cls`` the class the walk finds ``m`` on), so a call ``self.m(x)`` on the driven path
    enters it with what the call passes, as it would a ``MethodType``."""
    try:
        node = ast.parse(item.text.strip(), mode="eval").body
    except SyntaxError:
        return False
    if not isinstance(node, ast.Lambda) or not isinstance(node.body, ast.Call):
        return False
    call, args = node.body, node.args
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == item.name.rsplit(".", 1)[-1]
            and "." not in item.name and isinstance(func.value, ast.Name) and call.args
            and isinstance(call.args[0], ast.Name)) or args.vararg or args.kwarg:
        return False
    own = [a.arg for a in args.posonlyargs + args.args]
    if [a.id if isinstance(a, ast.Name) else None for a in call.args[1:]] != own:
        return False
    if sorted((k.arg or "", k.value.id if isinstance(k.value, ast.Name) else "")
              for k in call.keywords) != sorted((a.arg, a.arg) for a in args.kwonlyargs):
        return False
    found = model.lookup(item.name)
    return found is not None and found[0].name == func.value.id

