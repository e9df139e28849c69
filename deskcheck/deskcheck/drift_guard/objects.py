"""What ANY object provides as a stand-in: the form the path-precise guard reads.

Public contract (stable; ``deskcheck standins`` builds on it)::

    provision_of(obj, model=None, *, roots=(), methods=(), built_at="") -> Provision
    assert_faithful(standin, *methods, model=None, roots=(), strict=False,
                    executed=None, allow=None) -> PathVerdict

What counts as provided, by the kind of object:

- ``SimpleNamespace`` / plain objects: their attributes. A value that is the production
  function (``types.MethodType(Scheduler.m, ns)``) is real code and is followed; any other
  callable, property or mock stands in (not followed). Data values are the *constant state*
  used to prune branches, and the *fields* checked for reverse drift.
- ``Cls.__new__(Cls)`` / ``object.__new__(Cls)`` (any instance of a class): real methods,
  properties and class defaults count as provided, plus what the instance dict holds.
- ``MagicMock(spec=Cls)`` / ``create_autospec``: only explicitly configured attributes (set on
  the mock, or a child whose ``return_value``/``side_effect`` was set). Every other name the
  spec allows is served by an auto-created child mock: listed in ``auto_children`` (``"*"``
  without a spec), which the guard reports as a silent skip when the driven path needs it.

``model`` is a class, or a static ``"pkg.mod:Class"`` read from source under ``roots``
(explicit: never the working directory by accident). ``Provision.roots`` are the driven
methods; ``Provision.source_roots`` the source folders.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import sys
import textwrap
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from deskcheck.drift_guard.paths import PathVerdict, judge_paths
from deskcheck.drift_guard.verdicts import Provision, StandIn
from deskcheck.errors import UnknownTargetError
from deskcheck.static import ClassModel, build_model, split_spec

_MOCK_INTERNALS = frozenset(mock.NonCallableMagicMock().__dict__) | frozenset(
    mock.MagicMock(spec=object).__dict__)
_SIMPLE = (bool, int, float, complex, str, bytes, type(None))
_DEPTH = 3


def kind_of(obj: Any) -> str:
    if isinstance(obj, mock.NonCallableMock):
        return "mock"
    if isinstance(obj, types.SimpleNamespace):
        return "namespace"
    if type(obj).__module__ == "builtins":
        return "object"
    return "instance"


def class_model_of(model: type | str | ClassModel, roots: Sequence[str | Path] = ()) -> ClassModel:
    """The production class: runtime for a class object, static for ``"pkg.mod:Class"``."""
    if isinstance(model, ClassModel):
        return model
    if isinstance(model, str):
        if not roots:
            raise UnknownTargetError(
                f"a static model {model!r} needs its source roots", location=model,
                fix="pass roots=[the folder holding the top-level package]")
        return build_model(model, roots=list(roots), mode="static")
    return build_model(model, mode="runtime")


def provision_of(obj: Any, model: type | str | ClassModel | None = None, *,
                 roots: Sequence[str | Path] = (), methods: Sequence[str] = (),
                 built_at: str = "") -> Provision:
    """Everything ``obj`` provides as a stand-in for ``model`` (see the module docstring)."""
    kind = kind_of(obj)
    if model is None:
        model = default_model(obj)
    cmodel = class_model_of(model, roots)
    provided: set[str] = set()
    fields: set[str] = set()
    constants: dict[str, Any] = {}
    stand_ins: dict[str, StandIn] = {}
    binds: dict[str, Any] = {}
    auto: set[str] = set()
    if kind == "mock":
        own, auto = _mock_names(obj)
    else:
        own = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
        for slot in _slots(type(obj)):
            try:
                own[slot] = object.__getattribute__(obj, slot)
            except AttributeError:
                pass
    for name, value in own.items():
        provided.add(name)
        fields.add(name)
        _classify(name, value, cmodel, binds, stand_ins, constants, "set on the object")
        for child in _children(value, name, 1):
            provided.add(child)
            if isinstance(value, types.SimpleNamespace | mock.NonCallableMock):
                fields.add(child)
    if kind in ("instance", "object"):
        modelled = {(k.module, k.qualname) for k in cmodel.sources}
        for klass in type(obj).__mro__:
            if klass is object or klass.__module__ == "builtins":
                continue
            ours = (klass.__module__, klass.__qualname__) in modelled
            for name, value in vars(klass).items():
                if name in own or name.startswith("__") and name.endswith("__"):
                    continue
                provided.add(name)
                if not ours:
                    fields.add(name)
                _classify(name, value, cmodel, binds, stand_ins, constants,
                          f"defined on {klass.__qualname__}", class_level=True)
    return Provision(
        subject=_subject(obj, kind), model=model, roots=tuple(methods), binds=binds,
        stand_ins=stand_ins, state=constants, location=built_at, kind=kind,
        provided_names=frozenset(provided), auto_children=frozenset(auto),
        fields=frozenset(fields), constants=constants,
        source_roots=tuple(str(Path(r).resolve()) for r in roots))


def _subject(obj: Any, kind: str) -> str:
    if kind == "mock":
        spec = getattr(obj, "_spec_class", None)
        return f"MagicMock(spec={spec.__name__})" if spec is not None else "MagicMock()"
    if kind == "namespace":
        return "SimpleNamespace"
    return f"{type(obj).__qualname__} instance"


def _slots(cls: type) -> list[str]:
    out: list[str] = []
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        out += [slots] if isinstance(slots, str) else [s for s in slots if s != "__dict__"]
    return out


def _production_function(name: str, cmodel: ClassModel) -> tuple[str, str] | None:
    found = cmodel.lookup(name)
    if found is None or not (found[1].is_function or found[1].kind == "property"):
        return None
    return found[0].module, f"{found[0].qualname}.{name}"


def _unwrap(value: Any) -> Any:
    if isinstance(value, types.MethodType):
        return value.__func__
    if isinstance(value, staticmethod | classmethod):
        return value.__func__
    if isinstance(value, property):
        return value.fget
    return value


def _classify(name: str, value: Any, cmodel: ClassModel, binds: dict[str, Any],
              stand_ins: dict[str, StandIn], constants: dict[str, Any], where: str,
              class_level: bool = False) -> None:
    """Real production code (followed), a stand-in (not followed) or constant state."""
    func = _unwrap(value)
    wanted = _production_function(name, cmodel)
    if wanted is not None and inspect.isfunction(func):
        code = func if isinstance(getattr(func, "__wrapped__", None), mock.NonCallableMock) \
            else inspect.unwrap(func)  # an autospec function wraps a mock: not production
        if code is not func and not inspect.isfunction(code):
            code = func
        if (getattr(code, "__module__", None), getattr(code, "__qualname__", None)) == wanted \
                and not isinstance(getattr(func, "__wrapped__", None), mock.NonCallableMock):
            binds[name] = value
            return
    if isinstance(value, property | staticmethod | classmethod | mock.NonCallableMock) \
            or callable(value) and not isinstance(value, type):
        stand_ins[name] = StandIn(value, f"{where}: not the production code")
        return
    constants[name] = value
    for child in _children(value, name, 1):
        holder = value
        for part in child.split(".")[1:]:
            holder = getattr(holder, "__dict__", {}).get(part, _MISS)
        if holder is not _MISS:
            constants[child] = holder


_MISS = object()


def _mock_names(obj: mock.NonCallableMock) -> tuple[dict[str, Any], set[str]]:
    """(explicitly configured names -> values, names an auto-created child would serve)."""
    own = {n: v for n, v in vars(obj).items()
           if n not in _MOCK_INTERNALS and not n.startswith(("_mock_", "_spec_"))
           and not _autospec_child(obj, v)}
    for name, child in obj._mock_children.items():
        if name not in own and isinstance(child, mock.NonCallableMock) and _configured(child):
            own[name] = child
    spec = getattr(obj, "_spec_class", None)
    methods = getattr(obj, "_mock_methods", None)
    if spec is None and methods is None:
        return own, {"*"}
    allowed = set(methods or dir(spec)) | set(obj._mock_children)
    return own, {n for n in allowed if n not in own and not n.startswith("__")}


def _autospec_child(parent: mock.NonCallableMock, value: Any) -> bool:
    """A child ``create_autospec`` set itself (spec'd, parented, never configured)."""
    if inspect.isfunction(value) and isinstance(getattr(value, "mock", None), mock.NonCallableMock):
        value = value.mock
    return (isinstance(value, mock.NonCallableMock) and value._mock_new_parent is parent
            and getattr(value, "_spec_class", None) is not None and not _configured(value))


def _configured(child: mock.NonCallableMock) -> bool:
    returned = child._mock_return_value
    if returned is not mock.DEFAULT and (not isinstance(returned, mock.NonCallableMock)
                                         or _configured(returned)):
        return True  # create_autospec sets a bare mock as return_value: not configured
    if child._mock_side_effect is not None:
        return True
    if child._mock_wraps is not None:
        return True
    return any(n not in _MOCK_INTERNALS and not n.startswith(("_mock_", "_spec_"))
               for n in vars(child)) or any(
        isinstance(c, mock.NonCallableMock) and _configured(c)
        for c in child._mock_children.values())


def _children(value: Any, prefix: str, depth: int) -> list[str]:
    """Chains under a field value: ``server_args.tp_size``. Namespaces and mocks are walked
    (their attributes are what the test set); other objects give their ``dir()`` one level."""
    if depth > _DEPTH or isinstance(value, _SIMPLE) or value is _MISS:
        return []
    if isinstance(value, mock.NonCallableMock):
        names, auto = _mock_names(value)
        if auto:  # a child mock answers anything: its chains are not judged
            return []
        items = names
    elif isinstance(value, types.SimpleNamespace):
        items = vars(value)
    else:
        try:
            return [f"{prefix}.{n}" for n in dir(value)]
        except Exception:  # noqa: BLE001 - a hostile __dir__: leave the chain unjudged
            return []
    out: list[str] = []
    for name, child in items.items():
        out.append(f"{prefix}.{name}")
        out += _children(child, f"{prefix}.{name}", depth + 1)
    return out


def default_model(obj: Any) -> type:
    if isinstance(obj, mock.NonCallableMock):
        spec = getattr(obj, "_spec_class", None)
        if spec is not None:
            return spec
    if kind_of(obj) == "instance":
        return type(obj)
    raise UnknownTargetError(
        f"cannot tell which production class {type(obj).__name__} stands in for",
        location=type(obj).__qualname__,
        fix="pass model=TheClass (or model='pkg.mod:Class' with roots=[...])")


# -- methods as the user writes them -----------------------------------------------------
def resolve_methods(standin: Any, methods: Iterable[Any], model: Any = None
                    ) -> tuple[Any, list[str]]:
    """(model, method names) from functions (``Scheduler.abort_request``), names, or
    ``"pkg.mod:Class.method"`` strings."""
    names: list[str] = []
    for method in methods:
        if isinstance(method, str) and ":" in method:
            module, qualname, name = split_spec(method)
            if name is None:
                raise UnknownTargetError(f"{method!r} names no method", location=method,
                                         fix="write pkg.mod:Class.method")
            model = model or f"{module}:{qualname}"
            names.append(name)
        elif isinstance(method, str):
            names.append(method)
        else:
            func = _unwrap(method)
            name = getattr(func, "__name__", None)
            if name is None:
                raise UnknownTargetError(f"{method!r} is not a method", location=repr(method),
                                         fix="pass Class.method or 'pkg.mod:Class.method'")
            names.append(name)
            if model is None:
                model = _owner_class(standin, func, name)
    if model is None:
        model = default_model(standin)
    return model, names


def _owner_class(standin: Any, func: Any, name: str) -> type:
    kind = kind_of(standin)
    if kind == "instance" and hasattr(type(standin), name):
        return type(standin)
    if kind == "mock" and getattr(standin, "_spec_class", None) is not None:
        return standin._spec_class
    module = sys.modules.get(func.__module__)
    obj: Any = module
    for part in func.__qualname__.split(".")[:-1]:
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        raise UnknownTargetError(f"cannot find the class of {func.__qualname__}",
                                 location=func.__qualname__, fix="pass model=TheClass")
    return obj


def construction_site(obj: Any, frame: types.FrameType | None) -> str:
    """Where ``obj`` was built, found from the frames that hold it: the assignment to the
    local that names it; when that is a call of a factory function, the line in the factory
    that built it, with the call: ``tests/t.py:13 (in make_engine(), called at
    tests/t.py:20)``; an attribute of ``self`` (``self.sched`` set in ``setUp``): the
    assignment in the test class. "" when unknown (a dynamic container)."""
    while frame is not None:
        local = next((n for n, v in frame.f_locals.items() if v is obj), None)
        if local is not None:
            found = _assignment(frame, local)
            if found is not None:
                line, value = found
                here = _display(frame.f_code.co_filename, line)
                factory = _factory(frame, value)
                if factory is not None:
                    file, fline, name = factory
                    return f"{_display(file, fline)} (in {name}(), called at {here})"
                return here
        held = _held_by_self(frame, obj)
        if held:
            return held
        frame = frame.f_back
    return ""


def fixture_site(func: Any) -> str:
    """Where a fixture function builds what it returns or yields (``file:line``), or ""."""
    code = getattr(inspect.unwrap(func), "__code__", None)
    parsed = _parse_function(code) if code is not None else None
    if parsed is None:
        return ""
    tree, offset = parsed
    for node in ast.walk(tree):
        if isinstance(node, ast.Return | ast.Yield) and node.value is not None:
            if isinstance(node.value, ast.Name):
                line = _assigned_in(tree, node.value.id)
                if line:
                    return _display(code.co_filename, line + offset)
            return _display(code.co_filename, node.lineno + offset)
    return ""


def _assigned_in(tree: ast.AST, name: str) -> int:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.lineno
    return 0


def _held_by_self(frame: types.FrameType, obj: Any) -> str:
    """``self.<attr>`` of the frame's first argument is ``obj``: the ``self.<attr> = ...``
    assignment in that object's class (``setUp`` of a ``unittest.TestCase``)."""
    code = frame.f_code
    if not code.co_argcount or not code.co_varnames:
        return ""
    owner = frame.f_locals.get(code.co_varnames[0])
    attrs = getattr(owner, "__dict__", None)
    if not isinstance(attrs, dict) or owner is obj:
        return ""
    attr = next((k for k, v in attrs.items() if v is obj), None)
    if attr is None:
        return ""
    for klass in type(owner).__mro__:
        for func in vars(klass).values():
            fcode = getattr(func, "__code__", None)
            parsed = _parse_function(fcode) if fcode is not None else None
            if parsed is None:
                continue
            tree, offset = parsed
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Attribute) and t.attr == attr
                        and isinstance(t.value, ast.Name) for t in node.targets):
                    return (f"{_display(fcode.co_filename, node.lineno + offset)} "
                            f"(self.{attr} in {klass.__name__}.{func.__name__})")
    return ""


def _display(file: str, line: int) -> str:
    try:
        return f"{Path(file).resolve().relative_to(Path.cwd())}:{line}"
    except ValueError:
        return f"{file}:{line}"


def _parse_function(code: types.CodeType) -> tuple[ast.AST, int] | None:
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return None
    try:
        block = inspect.getblock(lines[code.co_firstlineno - 1:])
        return ast.parse(textwrap.dedent("".join(block))), code.co_firstlineno - 1
    except (SyntaxError, IndexError, ValueError):
        return None


def _assignment(frame: types.FrameType, name: str) -> tuple[int, ast.expr] | None:
    parsed = _parse_function(frame.f_code)
    if parsed is None:
        return None
    tree, offset = parsed
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.lineno + offset, node.value
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name and node.value is not None:
            return node.lineno + offset, node.value
    return None


def _factory(frame: types.FrameType, value: ast.expr) -> tuple[str, int, str] | None:
    """``(file, line, name)`` of the construction inside a factory function ``value`` calls."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return None
    func = frame.f_locals.get(value.func.id, frame.f_globals.get(value.func.id))
    if not inspect.isfunction(func):
        return None
    parsed = _parse_function(func.__code__)
    if parsed is None:
        return None
    tree, offset = parsed
    returns = [n for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None]
    for ret in returns:
        if isinstance(ret.value, ast.Name):
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == ret.value.id for t in node.targets):
                    return func.__code__.co_filename, node.lineno + offset, func.__name__
        return func.__code__.co_filename, ret.lineno + offset, func.__name__
    return None


def assert_faithful(standin: Any, *methods: Callable[..., Any] | str,
                    model: type | str | None = None, roots: Sequence[str | Path] = (),
                    strict: bool = False, executed: Mapping[str, set[int]] | None = None,
                    allow: Mapping[str, str] | None = None) -> PathVerdict:
    """Fail (``AssertionError`` with the verdict) unless ``standin`` provides every name the
    ``methods`` need on the path it drives; return the verdict. One line in an existing test::

        assert_faithful(sched, Scheduler.abort_request)
    """
    caller = inspect.currentframe()
    built_at = construction_site(standin, caller.f_back if caller is not None else None)
    verdict = judge_object(standin, methods, model=model, roots=roots, strict=strict,
                           executed=executed, allow=allow, built_at=built_at)
    if not verdict.holds:
        raise AssertionError(verdict.render())
    return verdict


def judge_object(standin: Any, methods: Iterable[Any], *, model: Any = None,
                 roots: Sequence[str | Path] = (), strict: bool = False,
                 executed: Mapping[str, set[int]] | None = None,
                 allow: Mapping[str, str] | None = None, built_at: str = "") -> PathVerdict:
    """The path-precise verdict of any object (``guard()`` on a non-Harness lands here)."""
    model, names = resolve_methods(standin, methods, model)
    if not names:
        raise UnknownTargetError("no driven method given", location=repr(standin),
                                 fix="pass the methods the test drives: methods=[Cls.method]")
    cmodel = class_model_of(model, roots)
    prov = provision_of(standin, cmodel, roots=roots, methods=names, built_at=built_at)
    verdict = judge_paths(cmodel, names, provided=set(prov.provided_names or ()),
                          executed=executed, constants=prov.constants, strict=strict,
                          stand_ins=set(prov.stand_ins), auto_children=prov.auto_children,
                          fields=prov.fields, subject=prov.subject, built_at=built_at)
    for name, reason in (allow or {}).items():
        for category in ("drift", "silent_skips", "unexercised", "unknown", "reverse"):
            records = getattr(verdict, category)
            kept = [r for r in records if r.name != name]
            if len(kept) != len(records):
                setattr(verdict, category, kept)
                verdict.notes.append(f"allowed {name}: {reason}")
    return verdict
