"""The gate's probe: a pytest plugin loaded only inside gate runs.

The gate starts ``python -m pytest -p _deskcheck_gate_probe`` once per side, with the plan
file named by ``DESKCHECK_GATE_PLAN``. This module is self-contained (stdlib + pytest, and the
stdlib-only :mod:`deskcheck.gate.redirect` placed next to it as ``_deskcheck_gate_redirect``)
so that it is loaded by that unique name, never as part of the production package it judges,
and its behaviour does not depend on which commit of ``deskcheck`` the run imports. It:

- makes sure the side's redirect is active (normally already installed at interpreter start
  by the gate's ``sitecustomize``) and purges production modules imported before it loaded;
- writes, at the end of each pytest process (xdist workers included), every imported
  production module's ``__file__`` so the gate can fail loudly if it is not the side's;
- keeps only the selected tests, and records per-test outcomes, the exception type of each
  failure, ``pin`` markers and collection errors to JSON (no text scraping).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

try:  # in a gate run: the copy next to this probe, outside any production package
    import _deskcheck_gate_redirect as _redirect
except ImportError:  # imported as deskcheck.gate.probe_plugin (tests, the pin marker's help)
    from deskcheck.gate import redirect as _redirect

PLAN_ENV = _redirect.PLAN_ENV
PROBE_MODULE_NAME = _redirect.PROBE_MODULE_NAME
PIN_MARKER_HELP = ("pin(reason): this test is green on the base commit by construction (it pins "
                   "unchanged behaviour); deskcheck redfirst accepts it green on base")
RETRY_PLUGIN_PREFIXES = ("pytest_rerunfailures", "flaky", "pytest_retry", "pytest_flakefinder")
SideFinder = _redirect.SideFinder


class _State:
    def __init__(self, redirect: Any):
        self.redirect = redirect
        self.plan: dict[str, Any] = redirect.plan
        self.tests: dict[str, dict[str, Any]] = {}
        self.collection_errors: list[dict[str, Any]] = []
        self.retry_plugins: list[str] = []
        self.startup_error: dict[str, Any] | None = None


def _load_state() -> _State | None:
    if __name__ != PROBE_MODULE_NAME:  # only the copy the gate loads acts
        return None
    redirect = _redirect.activate_from_env()
    if redirect is None:
        return None
    redirect.ensure_first()
    redirect.purge()  # anything imported between interpreter start and this plugin
    return _State(redirect)


_STATE = _load_state()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _write(name: str, payload: dict[str, Any]) -> None:
    assert _STATE is not None
    out = Path(_STATE.plan["out_dir"]) / name
    out.write_text(json.dumps(payload, indent=1, sort_keys=True), encoding="utf-8")


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: Any, args: Any):
    try:
        return (yield)
    except Exception as exc:  # a conftest that does not import on this side
        if _STATE is not None:
            cause = exc.__cause__ or exc
            _STATE.startup_error = {"kind": "conftest", "exc_type": type(cause).__name__,
                                    "message": str(exc)[:2000]}
            _write("results.json", _results(exitstatus=None))
        raise


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if PIN_MARKER_HELP not in config.getini("markers"):
        config.addinivalue_line("markers", PIN_MARKER_HELP)
    if _STATE is None:
        return
    _STATE.redirect.ensure_first()  # no purge here: conftests already hold their imports,
    # and a production module they loaded around the redirect must stay visible to the audit
    for name, plugin in config.pluginmanager.list_name_plugin():
        module_name = getattr(plugin, "__name__", "") or name or ""
        if module_name.startswith(RETRY_PLUGIN_PREFIXES):
            _STATE.retry_plugins.append(module_name)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _STATE is None or _STATE.plan.get("select") is None:
        return
    wanted = set(_STATE.plan["select"])
    keep = [i for i in items if i.nodeid in wanted or i.nodeid.partition("[")[0] in wanted]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if _STATE is not None:
        marker = item.get_closest_marker("pin")
        if marker is not None:
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
            report.deskcheck_pin = str(reason)
        if call.excinfo is not None:
            report.deskcheck_exc_type = call.excinfo.type.__name__
            report.deskcheck_message = failure_message(call.excinfo.value)
            report.deskcheck_import_error = issubclass(call.excinfo.type, ImportError)
    return report


def failure_message(exc: BaseException) -> str:
    """The exception's text and its notes (the first split a rank pool's failure carries),
    each cut to 2000 characters."""
    notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str)]
    return str(exc)[:2000] + ("\n" + "\n".join(notes)[:2000] if notes else "")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _STATE is None or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    record = _STATE.tests.setdefault(report.nodeid, {
        "outcome": None, "when": None, "exc_type": None, "message": "", "import_error": False,
        "pin": None, "location": list(report.location), "duration_s": 0.0, "reruns": 0,
        "subtests_failed": []})
    if _is_subtest(report):
        _record_subtest(record, report)
        return
    record["duration_s"] += report.duration
    if getattr(report, "deskcheck_pin", None) is not None:
        record["pin"] = report.deskcheck_pin
    if report.outcome == "rerun":
        record["reruns"] += 1
        return
    outcome = _phase_outcome(report)
    if outcome is None:
        return
    if report.when == "teardown" and record["outcome"] not in (None, "passed"):
        return  # a teardown error does not mask the call's own result
    if record["subtests_failed"] and record["outcome"] == "failed" and report.when == "call":
        return  # unittest reports the test passed after its subtests failed: it failed
    record["outcome"], record["when"] = outcome, report.when
    if getattr(report, "deskcheck_exc_type", None):
        record["exc_type"] = report.deskcheck_exc_type
        record["message"] = getattr(report, "deskcheck_message", "")
        record["import_error"] = bool(getattr(report, "deskcheck_import_error", False))


def _is_subtest(report: pytest.TestReport) -> bool:
    """A report of one ``subTest`` / ``subtests.test`` block (pytest >= 9, pytest-subtests)."""
    return hasattr(report, "context") and hasattr(report.context, "kwargs")


def subtest_name(report: Any) -> str:
    """``[msg] (k=v, ...)``: the subtest's name as pytest prints it after ``SUBFAILED``."""
    context = report.context
    parts = [f"[{context.msg}]"] if context.msg is not None else []
    if context.kwargs:
        crossed = hasattr(report, "node")  # came from an xdist worker
        parts.append("(" + ", ".join(f"{k}={_plain(v) if crossed else v}"
                                     for k, v in context.kwargs.items()) + ")")
    return " ".join(parts) or "<subtest>"


def _plain(value: Any) -> str:
    """pytest's subtests turn each value into its ``repr`` once, and once more when the report
    crosses from an xdist worker: undo the second one so both name the subtest alike."""
    import ast

    text = str(value)
    try:
        inner = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return inner if isinstance(inner, str) else text


def _record_subtest(record: dict[str, Any], report: Any) -> None:
    """A failed subtest fails its item (whatever the item's own call report says after it)."""
    if not report.failed:
        return
    name = subtest_name(report)
    if name not in record["subtests_failed"]:
        record["subtests_failed"].append(name)
    if record["outcome"] in (None, "passed"):
        record["outcome"], record["when"] = "failed", "call"
        crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
        message = getattr(crash, "message", "") or ""
        head = message.partition(":")[0].strip()
        record["exc_type"] = head if head.isidentifier() else "AssertionError"


def _phase_outcome(report: pytest.TestReport) -> str | None:
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else "passed"
        if report.failed:
            return "failed"
        return "xfailed" if xfail else "skipped"
    if report.failed:
        return "error"
    if report.skipped and report.when == "setup":
        return "xfailed" if xfail else "skipped"
    return None


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if _STATE is None or os.environ.get("PYTEST_XDIST_WORKER") or not report.failed:
        return
    _STATE.collection_errors.append({"nodeid": report.nodeid,
                                     "message": report.longreprtext[-2000:]})


def _results(exitstatus: int | None) -> dict[str, Any]:
    assert _STATE is not None
    return {"side": _STATE.plan["side"], "exitstatus": exitstatus, "tests": _STATE.tests,
            "collection_errors": _STATE.collection_errors,
            "startup_error": _STATE.startup_error, "retry_plugins": _STATE.retry_plugins}


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _STATE is None:
        return
    if not _is_worker(session.config):
        _write("results.json", _results(int(exitstatus)))
    _STATE.redirect.write_audit()
