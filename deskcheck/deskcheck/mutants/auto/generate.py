"""Operator mutants on changed lines only, each located in its enclosing function.

A libcst pass over each changed file applies mutmut's operators to nodes that *start* on a
changed line (mutmut's own rule for covered lines), inside a function or method (the unit
deskcheck injects in memory). Arid statements and ``# pragma: no mutate`` lines (mutmut's own
pragma parser) are suppressed and reported. Then the per-line cap keeps the most useful mutants
(``operators.FAMILY_RANK``), and the per-PR cap keeps the most useful lines.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from mutmut.mutation.pragma_handling import PragmaParseError, PragmaVisitor

from deskcheck.errors import ConfigError, SourceResolutionError
from deskcheck.mutants.auto.arid import aridity, dotted_name, is_type_checking
from deskcheck.mutants.auto.bug_class import apply_site, bug_class_sites
from deskcheck.mutants.auto.changes import ChangeSet
from deskcheck.mutants.auto.locate import module_name_for
from deskcheck.mutants.auto.operators import OPERATORS, family_of, rank_of
from deskcheck.mutants.auto.splice import ModuleText, window_diff
from deskcheck.mutants.operators.base import code_of

# Mirrors mutmut's file_mutation: never mutated (dunder machinery, calls whose mutants crash).
NEVER_MUTATE_FUNCTIONS = frozenset({"__getattribute__", "__setattr__", "__new__"})
NEVER_MUTATE_CALLS = frozenset({"len", "isinstance"})


@dataclass(frozen=True)
class AutoMutant:
    """One generated mutant: where it is, what it changes, and the mutated function source."""

    id: str
    path: str
    module: str
    import_root: str
    target: str  # ``pkg.mod:Class.method`` (the enclosing top-level function or method)
    function: str  # ``Class.method``
    line: int
    column: int
    end_line: int
    coverage_lines: tuple[int, ...]  # the statement's lines: whoever runs them covers the mutant
    operator: str  # mutmut's operator function name
    family: str
    rank: int
    original: str  # the original node's code
    mutated: str  # the mutated node's code
    function_source: str  # original enclosing function, dedented, decorators kept
    mutated_function_source: str
    function_line: int  # first line of the function (its ``def``) in the file
    diff: str  # unified diff of the whole file
    changed_line_before: str
    changed_line_after: str

    @property
    def description(self) -> str:
        return f"{self.changed_line_before} -> {self.changed_line_after}"


@dataclass(frozen=True)
class Suppressed:
    """A changed line that got no mutant, and why."""

    path: str
    line: int
    reason: str


@dataclass
class Generation:
    """The result of generation over a change set."""

    mutants: list[AutoMutant] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    candidates: int = 0
    dropped_by_line_cap: int = 0
    dropped_by_pr_cap: int = 0


@dataclass
class _Candidate:
    node: cst.CSTNode
    mutated: cst.CSTNode
    operator: str
    family: str
    line: int
    column: int
    end_line: int
    coverage_lines: tuple[int, ...]
    function: cst.FunctionDef
    qualname: str
    order: int
    end: tuple[int, int] = (0, 0)  # the node's end (line, column): the text spliced over


class _CandidateVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, changed: frozenset[int], pragma: PragmaVisitor,
                 keep: Callable[[str, str], bool], arid_calls: Sequence[str]):
        super().__init__()
        self.changed = changed
        self._changed_sorted = sorted(changed)
        self.no_mutate = pragma.no_mutate_lines
        self.ignore_node = pragma.ignore_node_lines
        self.keep = keep
        self.arid_calls = tuple(arid_calls)
        self.candidates: list[_Candidate] = []
        self.suppressed: dict[int, str] = {}
        self._scopes: list[cst.ClassDef | cst.FunctionDef] = []
        self._statements: list[cst.CSTNode] = []
        self._arid_blocks: set[int] = set()

    # -- scope and statement stacks (on_leave runs even when children were skipped)
    def _pushes(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.ClassDef | cst.FunctionDef | cst.BaseSmallStatement
                          | cst.BaseCompoundStatement)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.ClassDef | cst.FunctionDef):
            self._scopes.pop()
        if isinstance(original_node, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            self._statements.pop()

    def _touches_change(self, span: tuple[int, int]) -> bool:
        at = bisect.bisect_left(self._changed_sorted, span[0])
        return at < len(self._changed_sorted) and self._changed_sorted[at] <= span[1]

    def _span(self, node: cst.CSTNode) -> tuple[int, int] | None:
        pos = self.get_metadata(PositionProvider, node, None)
        return None if pos is None else (pos.start.line, pos.end.line)

    def _suppress(self, node: cst.CSTNode, reason: str) -> None:
        span = self._span(node)
        if span is None:
            return
        for line in range(span[0], span[1] + 1):
            if line in self.changed:
                self.suppressed.setdefault(line, reason)

    def _skip_reason(self, node: cst.CSTNode) -> str | None:
        if id(node) in self._arid_blocks:
            return "type-only (TYPE_CHECKING block)"
        span = self._span(node)
        if span and span[0] in self.ignore_node and isinstance(node, cst.ClassDef | cst.FunctionDef):
            return "pragma: no mutate"
        reason = aridity(node, self.arid_calls)
        if reason:
            return reason
        if isinstance(node, cst.Decorator):
            return "decorator (runs at definition time)"
        if isinstance(node, cst.Param):
            return "function signature (annotations/defaults are not in the function's code)"
        if isinstance(node, cst.FunctionDef) and node.name.value in NEVER_MUTATE_FUNCTIONS:
            return f"{node.name.value} (never mutated, as in mutmut)"
        if isinstance(node, cst.Call) and dotted_name(node.func) in NEVER_MUTATE_CALLS:
            return f"{dotted_name(node.func)}() call (never mutated, as in mutmut)"
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        outermost = isinstance(node, cst.FunctionDef) and self._outermost_function() is None
        if isinstance(node, cst.ClassDef | cst.FunctionDef):
            self._scopes.append(node)
        if outermost and self._skip_reason(node) is None:
            self._collect_bug_class(node)  # type: ignore[arg-type]
        if isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            self._statements.append(node)
        span = self._span(node)
        if span is not None and not self._touches_change(span):
            return False  # nothing below starts on a changed line: not visited at all
        reason = self._skip_reason(node)
        if reason:
            self._suppress(node, reason)
            return False
        if isinstance(node, cst.If) and is_type_checking(node.test):
            self._arid_blocks.add(id(node.body))
        if span is None or span[0] not in self.changed:
            return True
        if span[0] in self.no_mutate or span[0] in self.ignore_node:
            self.suppressed.setdefault(span[0], "pragma: no mutate")
            return True
        self._collect(node, span)
        return True

    def _collect(self, node: cst.CSTNode, span: tuple[int, int]) -> None:
        function = self._outermost_function()
        mutations = [(op, m) for op in OPERATORS if isinstance(node, op.node_type)
                     for m in op.function(node)]
        if not mutations:
            return
        if function is None:
            self.suppressed.setdefault(span[0], "module/class-level code (not injectable)")
            return
        pos = self.get_metadata(PositionProvider, node)
        for op, mutated in mutations:
            family = family_of(op.name, node)
            if not self.keep(op.name, family):
                continue
            self.candidates.append(_Candidate(
                node=node, mutated=_keep_operator_spacing(node, mutated), operator=op.name, family=family,
                line=span[0], column=pos.start.column, end_line=span[1],
                coverage_lines=self._coverage_lines(), function=function,
                qualname=self._qualname(function), order=len(self.candidates),
                end=(pos.end.line, pos.end.column)))

    def _collect_bug_class(self, function: cst.FunctionDef) -> None:
        """The bug-class mutants of the changed lines of ``function`` (``bug_class``)."""
        span = self._span(function)
        if span is None or not any(span[0] <= line <= span[1] for line in self.changed):
            return

        def where(node: cst.CSTNode) -> tuple[int, int, int]:
            pos = self.get_metadata(PositionProvider, node)
            return pos.start.line, pos.end.line, pos.start.column

        qualname = self._qualname(function)
        seen: set[str] = set()
        for site in bug_class_sites(function, self.changed, where):
            if site.line in self.no_mutate or site.line in self.ignore_node or \
                    not self.keep(site.operator, site.family):
                continue
            mutated = apply_site(function, site, f"function {qualname}")
            if mutated is None:
                continue
            key = f"{site.line}:{code_of(mutated)}"
            if key in seen:  # the same mutant reached from two touched lines of one line
                continue
            seen.add(key)
            self.candidates.append(_Candidate(
                node=function, mutated=mutated, operator=site.operator, family=site.family,
                line=site.line, column=site.column, end_line=site.line,
                coverage_lines=tuple(sorted({site.line, *site.site_lines})), function=function,
                qualname=qualname, order=len(self.candidates)))

    def _outermost_function(self) -> cst.FunctionDef | None:
        return next((s for s in self._scopes if isinstance(s, cst.FunctionDef)), None)

    def _qualname(self, function: cst.FunctionDef) -> str:
        names = []
        for scope in self._scopes:
            names.append(scope.name.value)
            if scope is function:
                break
        return ".".join(names)

    def _coverage_lines(self) -> tuple[int, ...]:
        """Lines coverage.py may record for the innermost statement (header only if compound)."""
        statement = self._statements[-1]
        start, end = self._span(statement) or (0, 0)
        body = getattr(statement, "body", None)
        if isinstance(statement, cst.BaseCompoundStatement) and body is not None:
            body_span = self._span(body)
            if body_span is not None:
                end = max(start, body_span[0] - (0 if isinstance(body, cst.SimpleStatementSuite)
                                                 else 1))
        return tuple(range(start, end + 1))


_OPERATOR_SPACING = ("whitespace_before", "whitespace_after")


def _keep_operator_spacing(original: cst.CSTNode, mutated: cst.CSTNode) -> cst.CSTNode:
    """Give a swapped operator the spacing of the one it replaces (``x<y`` -> ``x<=y``).

    mutmut builds the new operator with libcst's default spacing; the reviewer should see only
    the operator change.
    """
    old_op = getattr(original, "operator", original)
    new_op = getattr(mutated, "operator", mutated)
    if old_op is new_op or not isinstance(old_op, cst.CSTNode) or not isinstance(new_op, cst.CSTNode):
        return mutated
    spacing = {attr: getattr(old_op, attr) for attr in _OPERATOR_SPACING
               if hasattr(old_op, attr) and hasattr(new_op, attr)}
    if not spacing:
        return mutated
    new_op = new_op.with_changes(**spacing)
    return mutated.with_changes(operator=new_op) if hasattr(mutated, "operator") else new_op


def _pragma_lines(path: str, wrapper: MetadataWrapper, source: str) -> PragmaVisitor:
    pragma = PragmaVisitor(path)
    if "pragma" not in source:
        return pragma  # no pragma comment anywhere: nothing for mutmut's visitor to find
    try:
        wrapper.visit(pragma)
    except PragmaParseError as exc:
        raise SourceResolutionError(str(exc), location=path,
                                    fix="balance the `# pragma: no mutate start/end` pair") from exc
    return pragma


def _select(candidates: list[_Candidate], per_line: int) -> tuple[list[_Candidate], int]:
    by_line: dict[int, list[_Candidate]] = defaultdict(list)
    for candidate in candidates:
        by_line[candidate.line].append(candidate)
    chosen: list[_Candidate] = []
    for line in sorted(by_line):
        ranked = sorted(by_line[line], key=lambda c: (rank_of(c.family), c.column, c.order))
        chosen.extend(ranked[:per_line])
    return chosen, len(candidates) - len(chosen)


def _function_code(module: cst.Module, function: cst.FunctionDef) -> str:
    return module.code_for_node(function.with_changes(leading_lines=()))


def _exact(code: str, path: str, candidate: _Candidate, function_line: int) -> str | None:
    """The function's text cut from the module exactly as the engine cuts it from the file
    (``deskcheck.mutants.source``: decorators kept, dedented line by line), so the engine
    finds the generated original unchanged whatever the function's shape (a method's
    multi-line docstring, decorators, nested classes, tabs). None: the engine cannot cut it
    either (it reports why)."""
    from deskcheck.mutants.source import locate_in_text

    try:
        return locate_in_text(code, path, tuple(candidate.qualname.split(".")),
                              function_line).text
    except (SyntaxError, SourceResolutionError):
        return None


def _line_text(code: str, line: int) -> str:
    lines = code.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _materialize(root: Path, path: str, text: ModuleText, candidate: _Candidate,
                 function_line: int) -> AutoMutant:
    module = text.module
    mutated_code = text.mutated_code(candidate)
    source = text.exact(path, candidate, function_line)
    diff = window_diff(path, text, mutated_code, candidate)
    module_name, import_root = module_name_for(root, path)
    before, after = _line_text(text.code, candidate.line), \
        _line_text(mutated_code, candidate.line)
    original, mutated = module.code_for_node(candidate.node), \
        module.code_for_node(candidate.mutated)
    if candidate.node is candidate.function:  # a bug-class mutant: the function is the node
        original, mutated = _changed_hunk(original, mutated)
        before, after = " ".join(original.split()), " ".join(mutated.split())
    return AutoMutant(
        id=f"auto:{path}:{candidate.line}:{candidate.column}:{candidate.family}",
        path=path, module=module_name, import_root=str(import_root),
        target=f"{module_name}:{candidate.qualname}", function=candidate.qualname,
        line=candidate.line, column=candidate.column, end_line=candidate.end_line,
        coverage_lines=candidate.coverage_lines, operator=candidate.operator,
        family=candidate.family, rank=rank_of(candidate.family),
        original=original, mutated=mutated,
        function_source=getattr(source, "text", None) or _function_code(
            module, candidate.function),
        mutated_function_source=text.mutated_exact(mutated_code, source)
        or _exact(mutated_code, path, candidate, function_line)
        or _function_code(module, _mutated_function(candidate)),
        function_line=function_line,
        diff=diff,
        changed_line_before=before, changed_line_after=after,
    )


def _changed_hunk(before: str, after: str) -> tuple[str, str]:
    """The lines that differ between two versions of a function (dedented, as text)."""
    a, b = before.splitlines(), after.splitlines()
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    tail = 0
    while tail < min(len(a), len(b)) - start and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return ("\n".join(line.strip() for line in a[start:len(a) - tail]),
            "\n".join(line.strip() for line in b[start:len(b) - tail]))


def _mutated_function(candidate: _Candidate) -> cst.FunctionDef:
    mutated = candidate.function.deep_replace(candidate.node, candidate.mutated)
    assert isinstance(mutated, cst.FunctionDef)
    return mutated


@dataclass
class _FilePlan:
    path: str
    module: cst.Module
    first_line: dict[int, int]  # id(function node) -> first line
    chosen: list[_Candidate]
    generation: Generation


def _plan_file(root: Path, path: str, changed: frozenset[int], per_line: int,
               keep: Callable[[str, str], bool], arid_calls: Sequence[str]) -> _FilePlan:
    source = (root / path).read_text(encoding="utf-8")
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise SourceResolutionError(f"cannot parse: {exc.message}",
                                    location=f"{path}:{exc.raw_line}",
                                    fix="fix the syntax error before mutating") from exc
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    pragma = _pragma_lines(path, wrapper, source)
    visitor = _CandidateVisitor(changed, pragma, keep, arid_calls)
    wrapper.visit(visitor)
    positions = wrapper.resolve(PositionProvider)
    chosen, dropped = _select(visitor.candidates, per_line)
    lines_with_candidates = {c.line for c in visitor.candidates}
    suppressed = [Suppressed(path, line, reason)
                  for line, reason in sorted(visitor.suppressed.items())
                  if line not in lines_with_candidates]
    first_line = {id(c.function): positions[c.function].start.line for c in chosen}
    return _FilePlan(path, module, first_line, chosen, Generation(
        suppressed=suppressed, candidates=len(visitor.candidates), dropped_by_line_cap=dropped))


def generate_auto_mutants(changes: ChangeSet, *, per_line: int = 1, max_mutants: int = 50,
                          keep: Callable[[str, str], bool] = lambda _n, _f: True,
                          arid_calls: Sequence[str] = ()) -> Generation:
    """Mutants for every changed production line of ``changes``, under both caps.

    ``per_line`` keeps the most useful mutants of each line; ``max_mutants`` (negative: no
    cap) then keeps the most useful across the change, ties broken by file and line.
    """
    if per_line < 1:
        raise ConfigError("the per-line mutant cap must be at least 1",
                          location="[tool.deskcheck] auto_max_per_line",
                          fix="set auto_max_per_line = 1 (the default) or more")
    total = Generation()
    plans = [_plan_file(changes.root, f.path, f.lines, per_line, keep, arid_calls)
             for f in changes.files]
    pool = [(plan, c) for plan in plans for c in plan.chosen]
    for plan in plans:
        total.suppressed.extend(plan.generation.suppressed)
        total.candidates += plan.generation.candidates
        total.dropped_by_line_cap += plan.generation.dropped_by_line_cap
    if 0 <= max_mutants < len(pool):
        pool.sort(key=lambda pc: (rank_of(pc[1].family), pc[0].path, pc[1].line, pc[1].column))
        total.dropped_by_pr_cap = len(pool) - max_mutants
        pool = pool[:max_mutants]
    pool.sort(key=lambda pc: (pc[0].path, pc[1].line, pc[1].column, pc[1].order))
    seen: set[str] = set()
    texts: dict[str, ModuleText] = {}
    for plan, candidate in pool:
        text = texts.get(plan.path) or texts.setdefault(plan.path, ModuleText(plan.module))
        mutant = _materialize(changes.root, plan.path, text, candidate,
                              plan.first_line[id(candidate.function)])
        if mutant.id in seen:
            mutant = replace(mutant, id=f"{mutant.id}:{candidate.order}")
        seen.add(mutant.id)
        total.mutants.append(mutant)
    return total
