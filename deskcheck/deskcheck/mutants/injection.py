"""Swap a live function's ``__code__`` for the mutated one, in memory only.

The mutated ``def`` is compiled inside skeleton scopes rebuilt from the function's
``co_qualname`` (``class Scheduler:`` for name mangling and the ``__class__`` cell of
``super()``; ``def factory():`` with the free variables bound for closures), at its real
line numbers and with the file's ``__future__`` flags, so tracebacks point at the real file
and the new code has exactly the free variables the function's closure provides.

Functions built from a nested ``def`` before the tests run (by a decorator when its class is
defined, by a factory called in a class body, a decorator's wrapper) already hold the old
nested code: swapping the enclosing function's code alone would never run the mutant. Every
live function object whose code is a changed nested code gets the mutated nested code too;
when that cannot be done (the mutant changes a live closure's free variables) the mutant is
:class:`NotInjectable`, with the reason.
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import types
from dataclasses import dataclass, field

from deskcheck.live_code import FUTURE_FLAGS, find_code, note_source, skeleton
from deskcheck.mutants.mutated import BrokenMutant, MutatedFunction, NotInjectable
from deskcheck.mutants.target import LiveTarget, resolve


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
    module = skeleton(original.co_qualname, def_node, original.co_freevars)
    try:
        unit = compile(module, mutated.file, "exec", dont_inherit=True,
                       flags=original.co_flags & FUTURE_FLAGS)
    except SyntaxError as exc:
        raise BrokenMutant(f"{mutated.target}: mutated source does not compile: {exc}") from exc
    code = find_code(unit, original.co_qualname)
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
    built: list[tuple[types.FunctionType, types.CodeType]] = field(default_factory=list)

    def restore(self) -> None:
        self.function.__code__ = self.original
        for function, original in self.built:
            function.__code__ = original


CodeKey = tuple[str, int]  # (co_qualname, co_firstlineno): lambdas share a qualname


def _nested_codes(code: types.CodeType) -> dict[CodeKey, types.CodeType]:
    found: dict[CodeKey, types.CodeType] = {}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found[(const.co_qualname, const.co_firstlineno)] = const
            found.update(_nested_codes(const))
    return found


def _same_body(a: types.CodeType, b: types.CodeType) -> bool:
    """The same instructions, names and constants (nested code objects compared apart)."""
    def plain(code: types.CodeType) -> list[object]:
        return [c for c in code.co_consts if not isinstance(c, types.CodeType)]

    return (a.co_code == b.co_code and a.co_names == b.co_names
            and a.co_varnames == b.co_varnames and plain(a) == plain(b))


def _live_functions(code: types.CodeType) -> list[types.FunctionType]:
    """Every function object in this process running ``code``. A warm parent freezes its
    objects before forking (``gc.freeze``), which hides them from ``gc.get_referrers``: they
    are unfrozen for the search and frozen again after it."""
    frozen = gc.get_freeze_count()
    if frozen:
        gc.unfreeze()
    try:
        return [f for f in gc.get_referrers(code)
                if isinstance(f, types.FunctionType) and f.__code__ is code]
    finally:
        if frozen:
            gc.freeze()


def built_functions(function: types.FunctionType, mutated: MutatedFunction,
                    code: types.CodeType) -> list[tuple[types.FunctionType, types.CodeType]]:
    """``(live function, mutated code)`` for each function already built from a nested def
    the mutant changes (closures a decorator or a class body made before the tests ran)."""
    unchanged = compile_mutated(function, dataclasses.replace(mutated, mutated=mutated.original))
    before, after = _nested_codes(unchanged), _nested_codes(code)
    live = _nested_codes(function.__code__)
    swaps: list[tuple[types.FunctionType, types.CodeType]] = []
    for key, new in after.items():
        old = before.get(key)
        if old is None or key not in live or _same_body(old, new):
            continue
        built = _live_functions(live[key])
        if built and new.co_freevars != live[key].co_freevars:
            raise NotInjectable(
                f"{mutated.target}: {key[0]} (line {key[1]}) is a closure built before the "
                f"tests ran ({len(built)} live function(s)); the mutant changes its free "
                f"variables {live[key].co_freevars} -> {new.co_freevars}, which a live closure "
                "cannot take")
        swaps += [(f, new) for f in built]
    return swaps


def inject(mutated: MutatedFunction, live: LiveTarget | None = None) -> Injection:
    """Resolve the target in this process and swap in the mutated code (in the target and in
    every function already built from a nested def the mutant changes)."""
    live = live or resolve(mutated.target)
    function = live.function
    code = compile_mutated(function, mutated)
    built = built_functions(function, mutated, code)
    original = function.__code__
    try:
        function.__code__ = code
    except ValueError as exc:
        raise BrokenMutant(f"{mutated.target}: cannot swap code: {exc}") from exc
    note_source(code, mutated.mutated, mutated.start_line, mutated.indent)
    injection = Injection(function=function, original=original)
    for nested, new in built:
        injection.built.append((nested, nested.__code__))
        try:
            nested.__code__ = new
        except ValueError as exc:
            injection.restore()
            raise NotInjectable(f"{mutated.target}: cannot swap the code of the built "
                                f"closure {nested.__qualname__}: {exc}") from exc
    return injection
