"""``Harness``: a stand-in object that binds REAL production functions and names every
replacement's reason. Each concrete harness registers itself for the drift guard."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from deskcheck.drift_guard import registry
from deskcheck.drift_guard.verdicts import MISSING, Provision, StandIn
from deskcheck.errors import HarnessError
from deskcheck.harness._declare import Bind, StateField

_BINDABLE = (property, staticmethod, classmethod, cached_property)


@dataclass
class HarnessSpec:
    model: type | None = None
    roots: tuple[str, ...] = ()
    binds: dict[str, Any] = field(default_factory=dict)
    stand_ins: dict[str, StandIn] = field(default_factory=dict)
    state: dict[str, StateField] = field(default_factory=dict)
    adopted: frozenset[str] = frozenset()
    allow: dict[str, str] = field(default_factory=dict)
    location: str = ""


def _static(model: type, name: str) -> Any:
    try:
        return inspect.getattr_static(model, name)
    except AttributeError:
        return MISSING


def _is_bindable(obj: Any) -> bool:
    return inspect.isfunction(obj) or isinstance(obj, _BINDABLE)


def _unwrap(obj: Any) -> Any:
    """The function under a method, static/classmethod or cached_property."""
    if isinstance(obj, cached_property):
        return obj.func
    return getattr(obj, "__func__", obj)


class Harness:
    """Base class of a harness. Declare it as::

        class BudgetHarness(Harness, model=Scheduler, roots=["_update_uniform_pool_budget"]):
            _update_uniform_pool_budget = bind(Scheduler._update_uniform_pool_budget)
            _all_reduce_min = stand_in(fake_min, reason="in-process ranks, no gloo")
            tp_size = state(1)

    Class keywords: ``model`` (the production class), ``roots`` (the production methods the
    tests drive), ``allow`` (name -> reason, deliberately not modelled), ``adopt`` (class-level
    defaults of the model to copy), ``register`` (False: not collected by the guard).
    """

    __deskcheck_spec__: ClassVar[HarnessSpec] = HarnessSpec()

    def __init_subclass__(cls, *, model: type | None = None, roots: Iterable[str] = (),
                          allow: Mapping[str, str] | None = None, adopt: Iterable[str] = (),
                          register: bool = True, _location: str | None = None,
                          **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        frame = sys._getframe(1)
        location = _location or f"{frame.f_code.co_filename}:{frame.f_lineno}"
        parent = cls.__deskcheck_spec__
        spec = HarnessSpec(
            model=model or parent.model, roots=tuple(roots) or parent.roots,
            binds=dict(parent.binds), stand_ins=dict(parent.stand_ins), state=dict(parent.state),
            adopted=parent.adopted | frozenset(adopt), allow={**parent.allow, **(allow or {})},
            location=location)
        cls.__deskcheck_spec__ = spec
        if spec.model is None:
            return
        for name, value in list(vars(cls).items()):
            _declare(cls, spec, name, value)
        for name in frozenset(adopt):
            default = _static(spec.model, name)
            if default is MISSING or _is_bindable(default) or callable(default):
                raise HarnessError(
                    f"{cls.__name__} adopts {name!r}, which is not a class-level default of "
                    f"{spec.model.__name__}", location=spec.location,
                    fix="adopt only plain class attributes of the model; use state() otherwise")
            setattr(cls, name, default)
        if register and spec.roots:
            registry.register(f"{cls.__module__}:{cls.__qualname__}", cls)

    def __init__(self, **overrides: Any) -> None:
        spec = type(self).__deskcheck_spec__
        unknown = sorted(set(overrides) - set(spec.state))
        if unknown:
            raise HarnessError(
                f"{type(self).__name__} has no state field(s) {unknown}",
                location=spec.location, fix=f"declare them with state(...); known: {sorted(spec.state)}")
        for name, declared in spec.state.items():
            if name in overrides:
                value = overrides[name]
            elif declared.default is MISSING and declared.factory is None:
                raise HarnessError(f"{type(self).__name__} needs a value for state field {name!r}",
                                   location=spec.location, fix=f"pass {name}=... when building it")
            else:
                value = declared.make()
            object.__setattr__(self, name, value)

    @classmethod
    def __deskcheck_provision__(cls) -> Provision:
        spec = cls.__deskcheck_spec__
        if spec.model is None:
            raise HarnessError(f"{cls.__name__} declares no model", fix="class X(Harness, model=...)")
        return Provision(
            subject=cls.__name__, model=spec.model, roots=spec.roots, binds=dict(spec.binds),
            stand_ins=dict(spec.stand_ins),
            state={n: f.sample() for n, f in spec.state.items()},
            adopted=spec.adopted, allow=dict(spec.allow), location=spec.location,
            undeclared=frozenset(
                n for k in cls.__mro__ if issubclass(k, Harness) and k is not Harness
                for n in vars(k) if not n.startswith("__") and n not in spec.binds
                and n not in spec.stand_ins and n not in spec.state and n not in spec.adopted))

    @classmethod
    def guard(cls, **kwargs: Any):
        """This harness's drift verdict (see :func:`deskcheck.drift_guard.guard`)."""
        from deskcheck.drift_guard.verdicts import guard

        return guard(cls, **kwargs)


def _declare(cls: type, spec: HarnessSpec, name: str, value: Any) -> None:
    model = spec.model
    assert model is not None
    where = spec.location
    production = _static(model, name)
    if isinstance(value, Bind | StandIn | StateField):  # a subclass redeclares: last one wins
        for table in (spec.binds, spec.stand_ins, spec.state):
            table.pop(name, None)
    if isinstance(value, Bind):
        obj = value.obj
        if inspect.ismethod(obj) and isinstance(production, classmethod) \
                and obj.__func__ is production.__func__:
            obj = production  # Model.name of a classmethod is bound to the class
        if not _is_bindable(obj):
            raise HarnessError(
                f"{cls.__name__}.{name} binds {obj!r}, which is not a function or property",
                location=where, fix="bind real production functions/properties; plain values go "
                "in state(...), replacements in stand_in(..., reason=...)")
        if production is MISSING or _unwrap(production) is not _unwrap(obj) and production is not obj:
            raise HarnessError(
                f"{cls.__name__}.{name} binds {getattr(obj, '__qualname__', obj)!r}, which is not "
                f"{model.__name__}.{name}", location=where,
                fix=f"bind the production object itself: bind({model.__name__}.{name})")
        _refuse_zero_arg_super(cls, name, production, where)
        setattr(cls, name, production)  # the descriptor as production defines it
        spec.binds[name] = production
    elif isinstance(value, StandIn):
        setattr(cls, name, value.value)
        spec.stand_ins[name] = value
    elif isinstance(value, StateField):
        if production is not MISSING and (_is_bindable(production) or inspect.isroutine(production)):
            raise HarnessError(
                f"{cls.__name__}.{name} is state, but {model.__name__}.{name} is a method/property",
                location=where, fix="bind it, or stand_in(..., reason=...) to replace it")
        delattr(cls, name)
        spec.state[name] = value
    elif not name.startswith("__") and production is not MISSING and name not in spec.adopted:
        raise HarnessError(
            f"{cls.__name__} defines {name!r} directly, but {model.__name__} has it",
            location=where, fix=f"bind({model.__name__}.{name}) or stand_in(..., reason=...)")


def _refuse_zero_arg_super(cls: type, name: str, production: Any, where: str) -> None:
    parts = [production.fget, production.fset, production.fdel] \
        if isinstance(production, property) else [_unwrap(production)]
    for func in parts:
        code = getattr(func, "__code__", None)
        if code is not None and "__class__" in code.co_freevars:
            raise HarnessError(
                f"{cls.__name__}.{name} binds {func.__qualname__}, which uses zero-argument "
                f"super(); a harness is not an instance of its class, so it cannot run it",
                location=where, fix="stand it in with a reason (stand_in(..., reason=...)), or "
                "drive a real instance of the production class")


def harness(*, model: type, roots: Iterable[str] = (), allow: Mapping[str, str] | None = None,
            adopt: Iterable[str] = (), register: bool = True):
    """Decorator form: ``@harness(model=Scheduler, roots=[...])`` on a plain class body."""

    frame = sys._getframe(1)
    location = f"{frame.f_code.co_filename}:{frame.f_lineno}"

    def wrap(body: type) -> type[Harness]:
        namespace = {k: v for k, v in vars(body).items() if k not in ("__dict__", "__weakref__")}
        return type(body.__name__, (Harness,), namespace, model=model, roots=roots, allow=allow,
                    adopt=adopt, register=register, _location=location)

    return wrap
