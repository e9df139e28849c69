"""Which functions a recording swaps for their instrumented copies, and the swap itself.

The functions of recorded files reachable from the loaded modules and the recording caller's
namespace (module functions, methods, static and class methods, properties), and those named.
The file of a class the project declares rank-local work (``[tool.deskcheck.uniformity]
rank_local``) is left out: it splits by design. What was chosen and built is remembered for
the next recording in the process (checked against what is loaded and running).
"""

from __future__ import annotations

import fnmatch
import functools
import sys
import tomllib
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from deskcheck.suites._instrument import instrumented

_INCLUDED: dict[Any, dict[str, bool]] = {}  # include key -> file -> recorded?
_CHOSEN: dict[Any, tuple[int, list[types.ModuleType]]] = {}  # include key -> modules
_FILES: dict[str, tuple[Any, str | None]] = {}  # module name -> (the module, its file)
# (include, modules, namespaces, named) -> (function, its code, the instrumented copy)
_PLANS: dict[Any, list[tuple[types.FunctionType, types.CodeType, types.CodeType]]] = {}


class FunctionSwap:
    """The functions one recording instruments: those of files ``include`` accepts."""

    def __init__(self, include: Callable[[str], bool], include_key: Any = None):
        """``include_key``: a hashable name of ``include``: what it chose is remembered under
        it for the next recording in this process."""
        self.include_key = include_key
        if include_key is None:
            self.include = functools.cache(include)
        else:  # its answers are kept for the next recording with the same include
            answers = _INCLUDED.setdefault(include_key, {})

            def remembered(file: str) -> bool:
                known = answers.get(file)
                if known is None:
                    known = answers[file] = include(file)
                return known
            self.include = remembered

    def _modules(self) -> list[types.ModuleType]:
        """The loaded modules of recorded files (remembered while the set of loaded modules
        keeps its size and the chosen ones are still the loaded ones)."""
        modules = sys.modules
        last = _CHOSEN.get(self.include_key) if self.include_key is not None else None
        if last is not None and last[0] == len(modules) \
                and all(modules.get(m.__name__) is m for m in last[1]):
            return last[1]
        chosen = []
        for name, module in list(sys.modules.items()):
            known = _FILES.get(name)
            if known is None or known[0] is not module:
                file = getattr(module, "__file__", None)
                known = _FILES[name] = (module, file if isinstance(file, str) else None)
            if known[1] is not None and self.include(known[1]):
                chosen.append(module)
        if self.include_key is not None:
            _CHOSEN[self.include_key] = (len(modules), chosen)
        return chosen

    def functions(self, namespaces: Sequence[dict[str, Any]],
                   named: Sequence[types.FunctionType] = ()) -> list[types.FunctionType]:
        """Every function of a recorded file reachable from a loaded module or ``namespaces``
        (module functions, methods, static and class methods, properties), and ``named``."""
        found: dict[int, types.FunctionType] = {id(f): f for f in named}
        seen: set[int] = set()
        classes: set[int] = set()
        todo: list[dict[str, Any]] = list(namespaces)
        todo += [vars(module) for module in self._modules()]
        while todo:
            space = todo.pop()
            if type(space) is dict:  # a module's globals (alive: their ids are unique)
                if id(space) in seen:
                    continue
                seen.add(id(space))
            for value in list(space.values()):
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if isinstance(value, property):
                    for accessor in (value.fget, value.fset, value.fdel):
                        if isinstance(accessor, types.FunctionType) \
                                and self.include(accessor.__code__.co_filename):
                            found[id(accessor)] = accessor
                elif isinstance(value, types.FunctionType):
                    if self.include(value.__code__.co_filename):
                        found[id(value)] = value
                elif isinstance(value, type) and id(value) not in classes \
                        and isinstance(getattr(value, "__module__", None), str):
                    classes.add(id(value))
                    module = sys.modules.get(value.__module__)
                    file = getattr(module, "__file__", None)
                    if isinstance(file, str) and self.include(file):
                        todo.append(vars(value))  # type: ignore[arg-type] # once: classes
        return list(found.values())

    def prepare(self, namespaces: Sequence[dict[str, Any]] = ()) -> int:
        """Build (and keep) the instrumented copies :meth:`swap_in` would swap in, swapping
        nothing; how many functions have one."""
        functions = self.functions(namespaces)
        local = _rank_local_files(functions)
        return sum(_instrumented(f.__code__, _agreed_fields(f.__code__.co_filename))
                   is not None for f in functions if f.__code__.co_filename not in local)

    def swap_in(self, namespaces: Sequence[dict[str, Any]],
                 named: Sequence[types.FunctionType]
                 ) -> list[tuple[types.FunctionType, types.CodeType]]:
        key = None if self.include_key is None else (
            self.include_key, tuple(id(m) for m in self._modules()),
            tuple((id(n), len(n)) for n in namespaces), tuple(id(f) for f in named))
        plan = _PLANS.get(key) if key is not None else None
        swapped = _swapped(plan) if plan is not None else None
        if swapped is not None:
            return swapped
        plan = []
        functions = self.functions(namespaces, named)
        local = _rank_local_files(functions)
        for function in functions:
            code = function.__code__
            if code.co_filename in local and function not in named:
                continue  # declared rank-local work: it splits by design
            new = _instrumented(code, _agreed_fields(code.co_filename))
            if new is not None:
                plan.append((function, code, new))
        if key is not None:
            _PLANS[key] = plan
        return _swapped(plan) or []


def _swapped(plan: list[tuple[types.FunctionType, types.CodeType, types.CodeType]]
             ) -> list[tuple[types.FunctionType, types.CodeType]] | None:
    """Swap each function of ``plan`` to its instrumented copy: (function, its code) for
    those swapped, or None (nothing swapped) when one no longer runs the code the plan was
    built for (a mutant swapped in since)."""
    swapped = []
    for function, code, new in plan:
        if function.__code__ is not code:
            for back, old in swapped:
                back.__code__ = old
            return None
        try:
            function.__code__ = new
        except ValueError:  # a closure of another shape: left as it is
            continue
        swapped.append((function, code))
    return swapped


_CODES: dict[tuple[int, int], tuple[types.CodeType, types.CodeType | None]] = {}


def _instrumented(code: types.CodeType, fields: frozenset[str]) -> types.CodeType | None:
    key = (id(code), id(fields))  # by identity: hashing a code object hashes its bytes
    if key not in _CODES:
        _CODES[key] = (code, instrumented(code, fields))
    return _CODES[key][1]


@functools.cache
def _uniformity_in(folder: Path) -> dict[str, Any]:
    """``[tool.deskcheck.uniformity]`` of the nearest pyproject.toml at or above ``folder``."""
    candidate = folder / "pyproject.toml"
    if not candidate.is_file():
        return _uniformity_in(folder.parent) if folder.parent != folder else {}
    try:
        table = tomllib.loads(candidate.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    section = table.get("tool", {}).get("deskcheck", {}).get("uniformity", {})
    return section if isinstance(section, dict) else {}


@functools.cache
def _agreed_fields(filename: str) -> frozenset[str]:
    """The fields the nearest pyproject.toml declares agreed (``[[tool.deskcheck.uniformity.
    agreed]] field``): an assignment to one is recorded with the value it stores."""
    entries = _uniformity_in(Path(filename).resolve().parent).get("agreed", [])
    return frozenset(e["field"] for e in entries
                     if isinstance(e, dict) and isinstance(e.get("field"), str))


def _rank_local_files(functions: Sequence[types.FunctionType]) -> set[str]:
    """Files of the classes with a method the project declares rank-local work (``rank_local
    = ["*.match_len"]``: a rank's own cache): their code splits by design, unrecorded."""
    owners = set()
    for function in functions:
        qualname = function.__code__.co_qualname
        if "." not in qualname:
            continue
        section = _uniformity_in(Path(function.__code__.co_filename).resolve().parent)
        patterns = [p for p in section.get("rank_local", []) if isinstance(p, str)
                    and (not p.startswith("self.") or p.count(".") > 1)]
        if any(fnmatch.fnmatchcase(qualname, p.removeprefix("self.")) for p in patterns):
            owners.add(function.__code__.co_filename)
    return owners


