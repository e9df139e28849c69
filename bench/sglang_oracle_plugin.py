"""pytest plugin of the SGLang drift oracle (bench/sglang_oracle.py): run inside the SGLang env,
it records every test's outcome and every AttributeError (and signature TypeError) its failure
carries anywhere on the exception chain (``__cause__``, else ``__context__``: SGLang's
``CustomTestCase`` re-raises a plain Exception while handling the real error).

Nothing of deskcheck is imported: the oracle is independent of what it judges. Written as JSON
to ``$SGLANG_ORACLE_OUT`` at the end of the session.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import types
from typing import Any
from unittest import mock

import pytest

SIGNATURE = re.compile(r"unexpected keyword argument|missing \d+ required|takes \d+ positional|"
                       r"got multiple values|positional arguments? but")
_records: list[dict[str, Any]] = []
_outcomes: dict[str, str] = {}
_collection_errors: dict[str, str] = {}
_seen: set[int] = set()


def _chain(exc: BaseException | None):
    seen: set[int] = set()
    link = 0
    while exc is not None and id(exc) not in seen:
        yield link, exc
        seen.add(id(exc))
        exc = exc.__cause__ if exc.__cause__ is not None else exc.__context__
        link += 1


def kind_of(obj: Any) -> str:
    if isinstance(obj, type):
        return "class"
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, types.SimpleNamespace):
        return "SimpleNamespace"
    if isinstance(obj, mock.NonCallableMock):
        return "Mock"
    if type(obj) is object:
        return "object"
    return "instance"


def _frames(tb: types.TracebackType | None) -> list[tuple[types.FrameType, int]]:
    out = []
    while tb is not None:
        out.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _is_production(path: str) -> bool:
    return f"{os.sep}sglang{os.sep}" in path and "site-packages" in path \
        and f"{os.sep}sglang{os.sep}test{os.sep}" not in path


def _first_arg(frame: types.FrameType) -> Any:
    code = frame.f_code
    if code.co_argcount + code.co_posonlyargcount == 0 or not code.co_varnames:
        return None
    return frame.f_locals.get(code.co_varnames[0])


def _class_sets(cls: type, name: str) -> bool:
    """Whether SGLang code of ``cls`` (its MRO) assigns ``self.<name>`` anywhere."""
    pattern = re.compile(rf"self\.{re.escape(name)}\s*(:[^=\n]*)?=(?!=)")
    for klass in cls.__mro__:
        if not klass.__module__.startswith("sglang"):
            continue
        try:
            if pattern.search(inspect.getsource(klass)):
                return True
        except (OSError, TypeError):
            continue
    return False


def _site(frame: types.FrameType, line: int) -> str:
    return f"{frame.f_code.co_filename}:{line}"


def _record(nodeid: str, exc: BaseException) -> None:
    for link, err in _chain(exc):
        if id(err) in _seen:
            continue
        _seen.add(id(err))
        frames = _frames(err.__traceback__)
        if not frames:
            continue
        last, last_line = frames[-1]
        production = [(f, n) for f, n in frames if _is_production(f.f_code.co_filename)]
        base = {"test": nodeid, "link": link, "error": type(err).__name__,
                "message": str(err).splitlines()[0][:300] if str(err) else "",
                "raised_at": _site(last, last_line),
                "in_production": _is_production(last.f_code.co_filename),
                "production_site": _site(*production[-1]) if production else ""}
        if isinstance(err, AttributeError) and getattr(err, "name", None) \
                and hasattr(err, "obj"):
            obj = err.obj
            kind = kind_of(obj)
            cls = obj if kind == "class" else type(obj)
            owner = next((f for f, _ in reversed(frames) if _first_arg(f) is obj), None)
            owner_name = getattr(owner.f_code, "co_qualname", "") if owner else ""
            sets = _class_sets(cls, err.name) if kind == "instance" else None
            standin = base["in_production"] and (
                kind in ("SimpleNamespace", "Mock", "object")
                or (kind == "instance" and (not cls.__module__.startswith("sglang") or sets)))
            _records.append({**base, "kind": kind, "name": err.name,
                             "type": f"{cls.__module__}.{cls.__qualname__}",
                             "self_of": owner_name, "class_sets_it": sets,
                             "standin": bool(standin)})
        elif isinstance(err, TypeError) and SIGNATURE.search(str(err)):
            _records.append({**base, "kind": "signature", "name": "", "type": "",
                             "self_of": "", "class_sets_it": None,
                             "standin": base["in_production"]})


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if call.excinfo is not None:
        _record(item.nodeid, call.excinfo.value)
    for info in getattr(item, "_excinfo", None) or ():
        _record(item.nodeid, info.value)
    return (yield)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or report.outcome != "passed":
        previous = _outcomes.get(report.nodeid)
        if previous in ("failed", "error"):
            return
        outcome = report.outcome if report.when == "call" else (
            "error" if report.failed else report.outcome)
        _outcomes[report.nodeid] = outcome


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _collection_errors[report.nodeid] = str(report.longrepr).strip().splitlines()[-1][:300]


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("SGLANG_ORACLE_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"outcomes": _outcomes, "collection_errors": _collection_errors,
                       "errors": _records}, handle, indent=1)
