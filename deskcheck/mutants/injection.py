"""Swap a live function's ``__code__`` for the mutated one, in memory only.

The mutated ``def`` is compiled inside skeleton scopes rebuilt from the function's
``co_qualname`` (``class Scheduler:`` for name mangling and the ``__class__`` cell of
``super()``; ``def factory():`` with the free variables bound for closures), at its real
line numbers and with the file's ``__future__`` flags, so tracebacks point at the real file
and the new code has exactly the free variables the function's closure provides.
"""

from __future__ import annotations
import __future__

import ast
import types
from dataclasses import dataclass

from deskcheck.mutants.mutated import BrokenMutant, MutatedFunction
from deskcheck.mutants.target import LiveTarget, resolve

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def _skeleton(qualname: str, def_node: ast.stmt, freevars: tuple[str, ...]) -> ast.Module:
    parts = qualname.split(".")[:-1]
    scopes: list[tuple[str, str]] = []  # (kind, name) outermost first
    index = 0
    while index < len(parts):
        if index + 1 < len(parts) and parts[index + 1] == "<locals>":
            scopes.append(("def", parts[index]))
            index += 2
        else:
            scopes.append(("class", parts[index]))
            index += 1
    body: list[ast.stmt] = [def_node]
    innermost_def = max((i for i, (kind, _) in enumerate(scopes) if kind == "def"), default=-1)
    for position in range(len(scopes) - 1, -1, -1):
        kind, name = scopes[position]
        if kind == "class":
            body = [ast.ClassDef(name=name, bases=[], keywords=[], body=body,
                                 decorator_list=[], type_params=[])]
        else:
            binds: list[ast.stmt] = []
            if position == innermost_def:
                binds = [ast.Assign(targets=[ast.Name(v, ast.Store())],
                                    value=ast.Constant(None)) for v in freevars]
            body = [ast.FunctionDef(name=name, args=ast.arguments(
                posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                body=binds + body, decorator_list=[], returns=None, type_params=[])]
    module = ast.Module(body=body, type_ignores=[])
    return ast.fix_missing_locations(module)


def _find_code(code: types.CodeType, qualname: str) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname:
                return const
            found = _find_code(const, qualname)
            if found is not None:
                return found
    return None


def compile_mutated(function: types.FunctionType, mutated: MutatedFunction) -> types.CodeType:
    """Compile the mutated def into a code object that can replace ``function.__code__``."""
    original = function.__code__
    try:
        tree = ast.parse(mutated.mutated, filename=mutated.file)
    except SyntaxError as exc:
        raise BrokenMutant(f"{mutated.target}: mutated source does not parse: {exc}") from exc
    def_node = tree.body[0]
    if not isinstance(def_node, ast.FunctionDef | ast.AsyncFunctionDef):
        raise BrokenMutant(f"{mutated.target}: mutated source is not a def")
    ast.increment_lineno(def_node, mutated.start_line - 1)
    shift = len(mutated.indent)
    for node in ast.walk(def_node):
        if hasattr(node, "col_offset"):
            node.col_offset += shift
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += shift
    if original.co_freevars:  # keep every free variable referenced (dead code, never runs)
        keep = ast.If(test=ast.Constant(False), body=[ast.Expr(ast.Tuple(
            [ast.Name(v, ast.Load()) for v in original.co_freevars], ast.Load()))], orelse=[])
        ast.copy_location(keep, def_node.body[-1])
        def_node.body.append(ast.fix_missing_locations(keep))
    names = original.co_qualname.split(".")
    if def_node.name != names[-1]:
        def_node.name = names[-1]
    module = _skeleton(original.co_qualname, def_node, original.co_freevars)
    try:
        unit = compile(module, mutated.file, "exec", dont_inherit=True,
                       flags=original.co_flags & _FUTURE_FLAGS)
    except SyntaxError as exc:
        raise BrokenMutant(f"{mutated.target}: mutated source does not compile: {exc}") from exc
    code = _find_code(unit, original.co_qualname)
    if code is None:
        raise BrokenMutant(f"{mutated.target}: compiled unit lacks {original.co_qualname}")
    if code.co_freevars != original.co_freevars:
        raise BrokenMutant(
            f"{mutated.target}: the mutant needs free variables {code.co_freevars}, the live "
            f"function's closure has {original.co_freevars}")
    return code


@dataclass
class Injection:
    """An applied mutant; ``restore()`` puts the original code back."""

    function: types.FunctionType
    original: types.CodeType

    def restore(self) -> None:
        self.function.__code__ = self.original


def inject(mutated: MutatedFunction, live: LiveTarget | None = None) -> Injection:
    """Resolve the target in this process and swap in the mutated code."""
    live = live or resolve(mutated.target)
    function = live.function
    code = compile_mutated(function, mutated)
    original = function.__code__
    try:
        function.__code__ = code
    except ValueError as exc:
        raise BrokenMutant(f"{mutated.target}: cannot swap code: {exc}") from exc
    return Injection(function=function, original=original)
