"""Turn an ``AttributeError`` raised on a stand-in into the drift message.

In a normal pytest run, production code reading ``self.X`` on a ``SimpleNamespace``, a spec'd
``MagicMock``, a plain object, or an instance built with ``Cls.__new__`` (one whose class sets
``X`` in ``__init__``, so the real object would have it) raises an ``AttributeError`` deep inside an
unrelated assertion. :func:`drift_note` explains it: the missing name, the production site and
call path (the frames whose ``self`` is the stand-in), and where the stand-in was built. The
pytest hook adds it as an exception note: the traceback is never shortened, only annotated.
"""

from __future__ import annotations

import linecache
import re
import sys
import types
from pathlib import Path
from typing import Any
from unittest import mock

from deskcheck.drift_guard.objects import construction_site, fixture_site, kind_of

_MOCK_FILE = mock.__file__


def _self_of(frame: types.FrameType) -> Any:
    code = frame.f_code
    if code.co_argcount + code.co_posonlyargcount == 0 or not code.co_varnames:
        return None
    return frame.f_locals.get(code.co_varnames[0])


def _owner_class(frame: types.FrameType) -> type | None:
    qualname = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
    obj: Any = sys.modules.get(frame.f_globals.get("__name__", ""))
    for part in qualname.split(".")[:-1]:
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


def _model_class(obj: Any, kind: str, owner: type | None,
                 frames: list[tuple[types.FrameType, int]],
                 chain: list[tuple[types.FrameType, int]]) -> type | None:
    """The class the stand-in stands in for: the instance's class, the mock's spec, or the
    class the test called the method through (``Scheduler.abort(ns)``, where ``abort`` is
    defined in a mixin); the defining class only when none of those is known."""
    if kind == "instance":
        return type(obj)
    spec = getattr(obj, "_spec_class", None) if kind == "mock" else None
    if isinstance(spec, type):
        return spec
    index = next((i for i, (f, _line) in enumerate(frames) if f is chain[0][0]), 0)
    if index and owner is not None:
        caller, line = frames[index - 1]
        text = linecache.getline(caller.f_code.co_filename, line)
        for dotted in re.findall(rf"([A-Za-z_][\w.]*)\.{re.escape(chain[0][0].f_code.co_name)}\b",
                                 text):
            head, *rest = dotted.split(".")
            found: Any = caller.f_locals.get(head, caller.f_globals.get(head))
            for part in rest:
                found = getattr(found, part, None)
            if isinstance(found, type) and issubclass(found, owner):
                return found
    return owner


def _show(path: str, line: int) -> str:
    try:
        return f"{Path(path).resolve().relative_to(Path.cwd())}:{line}"
    except ValueError:
        return f"{path}:{line}"


def _production_sets(cls: type, name: str, *, init_only: bool = False) -> str:
    """Where ``cls``'s own code (its ``__init__`` only, with ``init_only``) assigns
    ``self.<name>`` (``file:line``), or ""."""
    from deskcheck.static import WRITE, build_model, first_param, function_facts

    try:
        model = build_model(cls, mode="runtime")
        for klass in model.sources:
            for member in klass.members.values():
                if init_only and member.name != "__init__":
                    continue
                for _role, declared in member.functions():
                    node = klass.function(declared)
                    for acc in function_facts(node, first_param(node)).accesses:
                        if acc.name == name and acc.kind == WRITE:
                            return f"{klass.file}:{acc.line}"
    except Exception:  # noqa: BLE001 - an explanation must never raise over the real error
        return ""
    return ""


def drift_note(exc: BaseException, tb: types.TracebackType | None = None,
               fixtures: dict[str, tuple[Any, Any]] | None = None) -> str | None:
    """The drift explanation for ``exc``, or None when it is not a stand-in's missing name.
    ``fixtures``: argname -> (value, fixture function) of the failing test, to name where a
    fixture built the stand-in."""
    if not isinstance(exc, AttributeError):
        return None
    obj, name = getattr(exc, "obj", None), getattr(exc, "name", None)
    if obj is None or not name:
        return None
    frames: list[tuple[types.FrameType, int]] = []
    tb = tb or exc.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    chain = [(f, line) for f, line in frames
             if _self_of(f) is obj and f.f_code.co_filename != _MOCK_FILE]  # not Mock.__getattr__
    if not chain:
        return None
    site_frame, site_line = chain[-1]
    owner = _owner_class(site_frame)
    kind = kind_of(obj)
    sets_at = ""
    if kind == "instance":
        if owner is None or not isinstance(obj, owner):
            return None
        sets_at = _production_sets(type(obj), name, init_only=True)
        if not sets_at:
            return None  # __init__ never sets it: a real bug in production, not drift
    elif owner is not None:
        sets_at = _production_sets(owner, name)
    label = {"namespace": "SimpleNamespace", "mock": "spec'd MagicMock",
             "object": type(obj).__name__}.get(kind, f"{type(obj).__qualname__} (built without "
                                                    f"__init__?)")
    built = construction_site(obj, frames[-1][0])
    if not built:
        func = next((f for v, f in (fixtures or {}).values() if v is obj), None)
        site = fixture_site(func) if func is not None else ""
        built = f"{site} (fixture {func.__name__})" if site else ""
    model = _model_class(obj, kind, owner, frames, chain)
    path = " -> ".join(getattr(f.f_code, "co_qualname", f.f_code.co_name) for f, _ in chain)
    lines = [
        f"deskcheck: stand-in drift: the {label} standing in for "
        f"{model.__qualname__ if model else 'self'} lacks `{name}`",
        f"  needed at {_show(site_frame.f_code.co_filename, site_line)} "
        f"({getattr(site_frame.f_code, 'co_qualname', site_frame.f_code.co_name)})",
        f"  call path: {path}",
    ]
    if built:
        lines.append(f"  stand-in built at {built}")
    if sets_at:
        file, _, line = sets_at.rpartition(":")
        lines.append(f"  production sets it at {_show(file, int(line))}")
    lines.append(f"  fix: give the stand-in `{name}` (check it with "
                 f"deskcheck.drift_guard.assert_faithful)")
    return "\n".join(lines)
