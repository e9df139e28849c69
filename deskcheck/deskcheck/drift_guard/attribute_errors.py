"""Turn an ``AttributeError`` raised on a stand-in into the drift message.

In a normal pytest run, production code reading ``self.X`` on a ``SimpleNamespace``, a spec'd
``MagicMock``, a plain object, or an instance built with ``Cls.__new__`` (one whose class sets
``X`` in ``__init__``, so the real object would have it) raises an ``AttributeError`` deep inside an
unrelated assertion. :func:`drift_note` explains it: the missing name, the production site and
call path (the frames whose ``self`` is the stand-in), and where the stand-in was built. The
pytest hook adds it as an exception note: the traceback is never shortened, only annotated.
A test framework that re-raises the failure as another exception (SGLang's ``CustomTestCase``
raises a plain ``Exception`` while handling it) keeps the AttributeError on the chain
(``__cause__``, else ``__context__``): the note follows the chain and goes on the exception
the test run reports.
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


MAX_INIT_HELPERS = 200  # methods followed from __init__ (``self.init_x()`` chains)


def _production_sets(cls: type, name: str, *, init_only: bool = False) -> str:
    """Where ``cls``'s own code assigns ``self.<name>`` (``file:line``), or "". With
    ``init_only``: ``__init__`` and the methods it calls on ``self``, transitively (SGLang's
    ``__init__`` delegates to ``init_*`` helpers), i.e. what every real instance has."""
    from deskcheck.static import CALL, WRITE, build_model, first_param, function_facts

    try:
        model = build_model(cls, mode="runtime")
        queue = ["__init__"] if init_only else None
        seen: set[str] = set()
        order = [(klass, member) for klass in model.sources for member in klass.members.values()]
        while True:
            if queue is not None:
                if not queue or len(seen) >= MAX_INIT_HELPERS:
                    return ""
                wanted = queue.pop(0)
                seen.add(wanted)
                # the first class in the MRO that defines it: the one a real instance runs
                members = [next(((k, m) for k, m in order if m.name == wanted), None)]
            else:
                members = order
            for pair in members:
                if pair is None:
                    continue
                klass, member = pair
                for _role, declared in member.functions():
                    node = klass.function(declared)
                    for acc in function_facts(node, first_param(node)).accesses:
                        if acc.name == name and acc.kind == WRITE:
                            return f"{klass.file}:{acc.line}"
                        if queue is not None and acc.kind == CALL and "." not in acc.name \
                                and acc.name not in seen and acc.name not in queue:
                            queue.append(acc.name)
            if queue is None:
                return ""
    except Exception:  # noqa: BLE001 - an explanation must never raise over the real error
        return ""


def chained_attribute_error(exc: BaseException) -> tuple[AttributeError, str] | None:
    """``exc`` itself, or the first AttributeError down its chain (``__cause__`` when set, else
    ``__context__``), with the links followed ("" for ``exc`` itself); None when there is none."""
    links: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, AttributeError):
            return current, ".".join(links)
        seen.add(id(current))
        link = "__cause__" if current.__cause__ is not None else "__context__"
        links.append(link)
        current = getattr(current, link)
    return None


def drift_note(exc: BaseException, tb: types.TracebackType | None = None,
               fixtures: dict[str, tuple[Any, Any]] | None = None) -> str | None:
    """The drift explanation for ``exc``, or None when it is not a stand-in's missing name.
    ``fixtures``: argname -> (value, fixture function) of the failing test, to name where a
    fixture built the stand-in. An exception chained from such an AttributeError (see
    :func:`chained_attribute_error`) gets the same explanation, saying which link holds it."""
    found = chained_attribute_error(exc)
    if found is None:
        return None
    outer, (exc, links) = exc, found
    if links:
        tb = None  # the AttributeError's own traceback, not the re-raiser's
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
    if links:
        lines.insert(1, f"  raised as AttributeError, reported as the {type(outer).__name__} "
                        f"raised while handling it ({links})")
    if built:
        lines.append(f"  stand-in built at {built}")
    if sets_at:
        file, _, line = sets_at.rpartition(":")
        lines.append(f"  production sets it at {_show(file, int(line))}")
    lines.append(f"  fix: give the stand-in `{name}` (check it with "
                 f"deskcheck.drift_guard.assert_faithful)")
    return "\n".join(lines)
