"""Faithful stubs of collaborators: the production class's real methods and properties,
fields supplied by the test; reading a field the stub does not model fails loudly.

A stub is an instance of a subclass of the production class whose ``__init__`` never runs:
methods, properties and ``super()`` are the real ones, ``isinstance`` holds, and only the
fields given (plus adopted class defaults) exist.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any

from deskcheck.drift_guard import registry
from deskcheck.drift_guard.verdicts import MISSING, Provision, display_path, guard
from deskcheck.errors import HarnessError, UnmodelledFieldError

_SKIP = {"__dict__", "__weakref__", "__init__", "__new__", "__module__", "__qualname__", "__doc__",
         "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__slots__",
         "__init_subclass__", "__class_getitem__", "__annotations__", "__firstlineno__",
         "__static_attributes__", "__dataclass_fields__", "__dataclass_params__",
         "__match_args__", "__orig_bases__", "__parameters__"}
_REAL = (property, staticmethod, classmethod, cached_property)
_CHECKED: set[tuple[type, frozenset[str], tuple[str, ...]]] = set()


def _is_real(obj: Any) -> bool:
    return inspect.isfunction(obj) or isinstance(obj, _REAL)


def production_members(cls: type) -> dict[str, Any]:
    """Every function and property along ``cls``'s MRO, as ``cls`` resolves them."""
    members: dict[str, Any] = {}
    for klass in reversed(cls.__mro__[:-1]):
        for name, obj in vars(klass).items():
            if name not in _SKIP and _is_real(obj):
                members[name] = obj
    return members


def class_defaults(cls: type) -> set[str]:
    """Plain class-level values along ``cls``'s MRO (not functions, properties or dunders)."""
    return {name for klass in cls.__mro__[:-1] for name, obj in vars(klass).items()
            if not (name.startswith("__") and name.endswith("__")) and not _is_real(obj)}


def _unmodelled(model: type, name: str, frame: Any) -> UnmodelledFieldError:
    site = f"{display_path(frame.f_code.co_filename)}:{frame.f_lineno}"
    reader = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
    return UnmodelledFieldError(
        f"stub of {model.__name__} does not model field {name!r}, read by {reader} at {site}",
        location=site, fix=f"pass {name}=... to the stub (or adopt the class default)")


class _Unmodelled:
    """Shadows a class-level default the stub did not adopt: reading it is unmodelled."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return self
        raise _unmodelled(owner.__deskcheck_model__, self.name, sys._getframe(1))


class _StubBase:
    __deskcheck_model__: type
    __deskcheck_spec__: StubSpec

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        descriptor = inspect.getattr_static(type(self), name, None)
        if hasattr(descriptor, "__get__") and not isinstance(descriptor, _Unmodelled):
            # a real property raised AttributeError inside (Python then tries __getattr__):
            # run it again so ITS error, naming the field it misses, propagates
            return descriptor.__get__(self, type(self))
        raise _unmodelled(type(self).__deskcheck_model__, name, sys._getframe(1))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"<stub {type(self).__deskcheck_model__.__name__}({fields})>"


class StubSpec:
    """A declared stub: ``AdderStub = StubSpec(PrefillAdder, fields=[...], roots=[...])``;
    ``AdderStub(field=value, ...)`` builds an instance. Registered for the drift guard.
    ``roots`` defaults to every property of the production class."""

    def __init__(self, production_class: type, *, fields: Iterable[str],
                 roots: Iterable[str] | None = None,
                 allow: Mapping[str, str] | None = None, adopt: Iterable[str] = (),
                 name: str | None = None, register: bool = True, _depth: int = 1) -> None:
        frame = sys._getframe(_depth)
        self.location = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        self.module = frame.f_globals.get("__name__", "?")
        self.model = production_class
        self.fields = tuple(sorted(fields))
        self.roots = tuple(roots) if roots is not None else tuple(
            n for n, o in production_members(production_class).items() if isinstance(o, property))
        self.allow = dict(allow or {})
        self.adopt = frozenset(adopt)
        self.name = name or f"{production_class.__name__}Stub"
        members = production_members(production_class)
        for field in self.fields:
            if field in members:
                raise HarnessError(
                    f"{self.name}: {production_class.__name__}.{field} is a method/property, the stub "
                    "binds it for real and it cannot be a field", location=self.location,
                    fix=f"drop {field}= and supply the fields it reads instead")
        for field in self.adopt:
            default = inspect.getattr_static(production_class, field, MISSING)
            if default is MISSING or _is_real(default):
                raise HarnessError(f"{self.name} adopts {field!r}, not a class-level default of "
                                   f"{production_class.__name__}", location=self.location,
                                   fix="adopt only plain class attributes")
        self._class = self._build_class()
        if register:
            registry.register(f"{self.module}:{self.name}", self)

    def _build_class(self) -> type:
        """A subclass of the production class (so ``isinstance`` and ``super()`` work) whose
        ``__init__`` never runs; class defaults not adopted are shadowed as unmodelled."""
        namespace: dict[str, Any] = {n: _Unmodelled(n) for n in class_defaults(self.model)
                                     if n not in self.adopt}
        namespace["__deskcheck_model__"] = self.model
        namespace["__deskcheck_spec__"] = self
        namespace["__module__"] = self.model.__module__
        namespace["__repr__"] = _StubBase.__repr__
        return type(self.name, (_StubBase, self.model), namespace)

    def __call__(self, **values: Any) -> Any:
        unknown = sorted(set(values) - set(self.fields))
        if unknown:
            raise HarnessError(f"{self.name} does not declare field(s) {unknown}",
                               location=self.location, fix=f"declare them in fields=; known: "
                               f"{list(self.fields)}")
        instance = object.__new__(self._class)
        for name, value in values.items():
            object.__setattr__(instance, name, value)
        return instance

    def __deskcheck_provision__(self) -> Provision:
        return Provision(
            subject=self.name, model=self.model, roots=self.roots,
            state={f: MISSING for f in self.fields}, adopted=self.adopt, allow=self.allow,
            location=self.location, binds_everything=True)

    def guard(self, **kwargs: Any):
        return guard(self, **kwargs)


def stub(production_class: type, /, *, roots: Iterable[str] = (),
         allow: Mapping[str, str] | None = None, **fields: Any) -> Any:
    """A stub of ``production_class`` with ``fields``; its real methods and properties bound.

    With ``roots`` (the properties/methods the test exercises) the stub is drift-guarded when
    built: a field those roots read that ``fields`` does not supply raises
    :class:`~deskcheck.errors.DriftError` naming the field, its sites and path.
    """
    spec = StubSpec(production_class, fields=fields, roots=tuple(roots), allow=allow,
                    register=False, _depth=2)
    key = (production_class, frozenset(fields), spec.roots)
    if spec.roots and key not in _CHECKED:
        guard(spec).raise_if_drifted()
        _CHECKED.add(key)
    return spec(**fields)
