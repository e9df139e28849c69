"""Apply a mutant's operator to today's source of its target: the mutated ``def`` text.

Nothing is written anywhere: the result is text (for ``show``) and a payload (for injection
in this process or, through the import hook, in processes the tests start).
"""

from __future__ import annotations

import ast

import libcst as cst

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutated import BrokenMutant, MutatedFunction, StaleOperator
from deskcheck.mutants.operators import operator_class
from deskcheck.mutants.operators.base import replace_nodes
from deskcheck.mutants.source import FunctionSource, locate, scope_path_of
from deskcheck.mutants.target import LiveTarget, resolve


def _find_nested(node: cst.CSTNode, name: str) -> cst.FunctionDef | None:
    class Finder(cst.CSTVisitor):
        found: cst.FunctionDef | None = None

        def visit_FunctionDef(self, fn: cst.FunctionDef) -> bool:
            if self.found is None and fn.name.value == name and fn is not node:
                self.found = fn
            return self.found is None

    finder = Finder()
    node.visit(finder)
    return finder.found


def mutate_source(mutant: Mutant, live: LiveTarget, source: FunctionSource) -> str:
    """The mutated, dedented def text. Raises ``StaleOperator`` / ``BrokenMutant``."""
    where = f"function {mutant.target} ({source.file}:{source.start_line})"
    module = cst.parse_module(source.text)
    outer = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    chain = [outer]
    for name in live.nested:
        inner = _find_nested(chain[-1], name)
        if inner is None:
            raise StaleOperator(f"nested def {name!r} not found in {where}")
        chain.append(inner)
    operator = operator_class(mutant.operator)(mutant.params)
    mutated_inner = operator.apply(chain[-1], where)
    mutated_outer = mutated_inner if len(chain) == 1 else replace_nodes(
        outer, {chain[-1]: mutated_inner})
    text = module.with_changes(body=[mutated_outer if s is outer else s
                                     for s in module.body]).code
    try:
        ast.parse(text)
    except SyntaxError as exc:
        raise BrokenMutant(f"{where} does not compile after {operator.describe()}: "
                           f"{exc.msg} (line {exc.lineno})") from exc
    if text == source.text:
        raise StaleOperator(f"{operator.describe()} changes nothing in {where}")
    return text


def build_mutation(mutant: Mutant, live: LiveTarget | None = None) -> MutatedFunction:
    """Resolve the target (importing its module) and apply the operator to today's source."""
    live = live or resolve(mutant.target, location=mutant.location)
    code = live.function.__code__
    source = locate(code.co_filename, scope_path_of(code.co_qualname), code.co_firstlineno)
    text = mutate_source(mutant, live, source)
    return MutatedFunction(mutant_id=mutant.id, target=mutant.target, file=source.file,
                           start_line=source.start_line, end_line=source.end_line,
                           indent=source.indent, original=source.text, mutated=text,
                           file_sha=source.file_sha)
