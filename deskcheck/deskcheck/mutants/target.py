"""Resolve ``package.module:Qualified.name`` to the live function whose code is swapped."""

from __future__ import annotations

import functools
import importlib
import inspect
import types
from dataclasses import dataclass
from pathlib import Path

from deskcheck.errors import UnknownTargetError


@dataclass(frozen=True)
class LiveTarget:
    """The function object to patch, plus the names of nested defs inside it (if the target
    is a def that only exists while its enclosing function runs)."""

    spec: str
    function: types.FunctionType
    nested: tuple[str, ...] = ()


def _unwrap(obj: object) -> object:
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, staticmethod | classmethod):
        return obj.__func__
    if isinstance(obj, functools.cached_property):
        return obj.func
    if isinstance(obj, types.MethodType):
        return obj.__func__
    if isinstance(obj, functools.partialmethod):
        return obj.func
    return obj


def _unwrap_all(obj: object) -> object:
    """Descriptors and ``functools.wraps``/``lru_cache`` chains lead to the real function."""
    obj = _unwrap(obj)
    for _ in range(32):
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is None:
            break
        obj = _unwrap(wrapped)
    return obj


def _lookup(owner: object, name: str) -> object:
    if inspect.isclass(owner):
        for klass in owner.__mro__:
            if name in vars(klass):
                return vars(klass)[name]
        raise AttributeError(name)
    return getattr(owner, name)


def resolve(spec: str, *, location: str | None = None) -> LiveTarget:
    """Import the module and walk the qualified name (properties, static/class methods,
    ``functools.wraps`` decorators and the MRO are followed)."""
    module_name, _, qualname = spec.partition(":")
    try:
        obj: object = importlib.import_module(module_name)
    except SystemExit as exc:  # sys.exit at import: the project's error, with its line
        from deskcheck.mutants.import_hooks import exit_message

        raise UnknownTargetError(f"target {spec!r}: cannot import {module_name!r}: "
                                 f"{exit_message(exc, Path.cwd())}", location=location,
                                 fix="make the module importable without exiting the interpreter") from exc
    except Exception as exc:  # any import failure makes the target unresolvable
        raise UnknownTargetError(f"target {spec!r}: cannot import {module_name!r}: "
                                 f"{type(exc).__name__}: {exc}", location=location,
                                 fix="check the module path and that it imports") from exc
    parts = qualname.split(".")
    for index, part in enumerate(parts):
        if not (inspect.isclass(obj) or inspect.ismodule(obj) or hasattr(obj, part)):
            obj = _unwrap_all(obj)  # e.g. a staticmethod whose nested def is targeted
        if isinstance(obj, types.FunctionType):
            return LiveTarget(spec, obj, tuple(parts[index:]))
        try:
            obj = _lookup(obj, part)
        except AttributeError:
            from deskcheck.mutants.catalog_checks import did_you_mean

            walked = ".".join(parts[:index]) or module_name
            names = [n for n in dir(obj) if not n.startswith("__")]
            raise UnknownTargetError(f"target {spec!r}: {walked} has no attribute {part!r}"
                                     + did_you_mean(part, names), location=location,
                                     fix="correct the qualified name") from None
    obj = _unwrap_all(obj)
    if not isinstance(obj, types.FunctionType):
        raise UnknownTargetError(f"target {spec!r} is a {type(obj).__name__}, not a function",
                                 location=location,
                                 fix="target a function, method, property or nested def")
    if obj.__code__.co_qualname != qualname:  # a decorator's wrapper, without functools.wraps
        obj = _decorated_in_closure(obj, qualname) or obj
    return LiveTarget(spec, obj)


def _decorated_in_closure(wrapper: types.FunctionType,
                          qualname: str) -> types.FunctionType | None:
    """The function named ``qualname`` a decorator's wrapper holds in its closure (the
    decorated function, reached through wrappers of wrappers), or None."""
    seen: set[int] = set()
    todo: list[object] = [wrapper]
    while todo:
        current = todo.pop(0)
        if id(current) in seen or len(seen) > 256:
            continue
        seen.add(id(current))
        if isinstance(current, types.FunctionType):
            if current.__code__.co_qualname == qualname:
                return current
            for cell in current.__closure__ or ():
                try:
                    todo.append(_unwrap(cell.cell_contents))
                except ValueError:  # an empty cell
                    continue
    return None
