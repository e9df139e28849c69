"""pytest integration of the suites: world/backend parametrization, tiers, the pool fixture.

- ``@pytest.mark.world(2, 3)`` runs a test that uses ``rank_pool`` (or a marked test that
  uses ``world``/``backend``) once per world size; ``@pytest.mark.backend("gloo")`` narrows the backends (default: the
  ``--deskcheck-backend`` option, else gloo and nccl).
- Every case is marked with its evidence tier: ``desk`` (gloo on CPU, hermetic) or ``metal``
  (NCCL, or gloo over CUDA tensors, on GPUs); select with ``-m desk`` / ``-m metal``. The summary shows what each tier
  proved, and why METAL did not run where it did not.
- NCCL cases skip with the precise reason (no CUDA, fewer GPUs than ranks).
- Pools are closed at session end (and at exit); each (backend, world) is one xdist group so
  a worker keeps one warm pool for it.

Nothing here imports torch at import time.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest

from deskcheck.suites import registry
from deskcheck.suites.backends import (
    BACKENDS,
    DEFAULT_BACKENDS,
    backend_unavailable_reason,
    tier_of,
)
from deskcheck.suites.env_group import env_world, under_torchrun

DEFAULT_WORLDS = (2,)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("deskcheck-suites", "deskcheck multi-process congruence suites")
    group.addoption("--deskcheck-backend", action="append", choices=BACKENDS, default=None,
                    help="backend the rank_pool fixture runs on (repeatable; default: gloo "
                         "and nccl, nccl skipping with its reason where it cannot run; "
                         "gloo-cuda: gloo over CUDA tensors, ranks sharing the GPUs)")
    group.addoption("--deskcheck-pg-timeout", type=float, default=None, metavar="SECONDS",
                    help="process-group timeout for rank pools (default: DESKCHECK_PG_TIMEOUT "
                         "or 10); a diverged collective raises after this long")


def pytest_configure(config: pytest.Config) -> None:
    for line in (
        "world(*sizes): run a rank_pool test once per world size, e.g. world(2, 3)",
        "backend(*names): backends for a rank_pool test: gloo (DESK), nccl and/or gloo-cuda "
        "(METAL)",
        "desk: DESK evidence tier: gloo ranks on CPU that see no GPU ([tool.deskcheck.desk_env]; "
        "select with -m desk)",
        "metal: METAL evidence tier: NCCL ranks on GPUs, one GPU per rank, or gloo over CUDA "
        "tensors (select with -m metal)",
    ):
        config.addinivalue_line("markers", line)
    timeout = config.getoption("--deskcheck-pg-timeout", None)
    if timeout is not None:  # the pools (and ranks they start) read it; undone at unconfigure
        config.stash[_PG_TIMEOUT_BEFORE] = os.environ.get("DESKCHECK_PG_TIMEOUT")
        os.environ["DESKCHECK_PG_TIMEOUT"] = str(timeout)
    config.pluginmanager.register(TierSummary(), "deskcheck-suites-tier-summary")


_PG_TIMEOUT_BEFORE = pytest.StashKey[str | None]()


def pytest_unconfigure(config: pytest.Config) -> None:
    """A session that set ``DESKCHECK_PG_TIMEOUT`` from its option leaves it as it found it
    (a pytest run in-process, e.g. by ``pytester``, must not change its caller's env)."""
    if _PG_TIMEOUT_BEFORE not in config.stash:
        return
    before = config.stash[_PG_TIMEOUT_BEFORE]
    if before is None:
        os.environ.pop("DESKCHECK_PG_TIMEOUT", None)
    else:
        os.environ["DESKCHECK_PG_TIMEOUT"] = before


def _marker_args(metafunc: pytest.Metafunc, name: str) -> tuple[Any, ...] | None:
    marker = metafunc.definition.get_closest_marker(name)
    if marker is None:
        return None
    if not marker.args:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.{name}() needs "
                                f"at least one value, e.g. @pytest.mark.{name}(2, 3)")
    return marker.args


def _explicitly_parametrized(metafunc: pytest.Metafunc) -> set[str]:
    names: set[str] = set()
    for marker in metafunc.definition.iter_markers("parametrize"):
        argnames = marker.args[0] if marker.args else marker.kwargs.get("argnames", ())
        if isinstance(argnames, str):
            argnames = [n.strip() for n in argnames.split(",")]
        names.update(argnames)
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marked = any(metafunc.definition.get_closest_marker(m) for m in ("world", "backend"))
    if "rank_pool" not in metafunc.fixturenames and not marked:
        return  # a test's own ``world``/``backend`` fixtures are none of our business
    if not {"rank_pool", "world", "backend"} & set(metafunc.fixturenames):
        return
    if {"world", "backend"} & _explicitly_parametrized(metafunc):
        return
    worlds = _marker_args(metafunc, "world") or DEFAULT_WORLDS
    backends = (_marker_args(metafunc, "backend")
                or metafunc.config.getoption("--deskcheck-backend", None) or DEFAULT_BACKENDS)
    for world in worlds:
        if not isinstance(world, int) or world < 1:
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: world sizes must be "
                                    f"positive integers, got {world!r}")
    grouped = metafunc.definition.get_closest_marker("xdist_group") is not None
    # a marked test may use only one of the two (pytest refuses to parametrize an unused name)
    used = [name for name in ("backend", "world") if name in metafunc.fixturenames]
    params = []
    for backend in backends:
        marks = [getattr(pytest.mark, tier_of(backend).lower())]
        for world in worlds:
            group = [] if grouped else [pytest.mark.xdist_group(f"deskcheck-{backend}-w{world}")]
            values = {"backend": backend, "world": world}
            params.append(pytest.param(*(values[name] for name in used),
                                       id=f"{backend}-w{world}", marks=marks + group))
    metafunc.parametrize(used, params)


@pytest.fixture
def world(request: pytest.FixtureRequest) -> int:
    """The world size of this case (from ``@pytest.mark.world``; 2 by default)."""
    return int(getattr(request, "param", DEFAULT_WORLDS[0]))


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The backend of this case: gloo (DESK), nccl or gloo-cuda (METAL)."""
    return str(getattr(request, "param", "gloo"))


@pytest.fixture(name="rank_pool")
def rank_pool_fixture(world: int, backend: str) -> Any:
    """The warm rank pool for this case's (world, backend); skips with the reason it cannot run."""
    if under_torchrun() and env_world() != world:
        pytest.skip(f"torchrun started WORLD_SIZE={env_world()}; this case needs world={world}")
    reason = backend_unavailable_reason(backend, world)
    if reason:
        pytest.skip(reason)
    return registry.rank_pool(world, backend)


def _tier_of_item(item: pytest.Item) -> str | None:
    """The tier from the marks (``report.keywords`` also holds folder names: ``tests/metal``)."""
    if item.get_closest_marker("metal") is not None:
        return "METAL"
    if item.get_closest_marker("desk") is not None:
        return "DESK"
    return None


@pytest.fixture
def decision_log(tmp_path: Any) -> Any:
    """A :class:`~deskcheck.suites.decision_log.DecisionLog` for your own ranks to record into
    (``record_decisions(log.folder, rank)``); a failing test's report shows its first split."""
    from deskcheck.suites.decision_log import DecisionLog

    folder = tmp_path / "decisions"
    folder.mkdir()
    return DecisionLog(str(folder))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    report.deskcheck_tier = _tier_of_item(item)  # travels with the report under xdist
    log = getattr(item, "funcargs", {}).get("decision_log")
    if report.failed and log is not None:
        split = log.split()
        if split is not None:
            report.sections.append(("deskcheck: first split", split.render()))
    return report


def _tier_of_report(report: pytest.TestReport) -> str | None:
    return getattr(report, "deskcheck_tier", None)


class TierSummary:
    """Counts outcomes per evidence tier and says in the summary what the run proved."""

    def __init__(self) -> None:
        self.tally: Counter[tuple[str, str]] = Counter()
        self.skips: dict[str, Counter[str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tier = _tier_of_report(report)
        if tier is None:
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.tally[(tier, report.outcome)] += 1
            if report.skipped and isinstance(report.longrepr, tuple):
                reason = str(report.longrepr[2]).removeprefix("Skipped: ")
                self.skips.setdefault(tier, Counter())[reason] += 1

    def lines(self) -> list[str]:
        out: list[str] = []
        proven = []
        for tier, what in (("DESK", "gloo on CPU, no GPU visible"),
                           ("METAL", "NCCL or gloo over CUDA on GPUs")):
            counts = {o: self.tally[(tier, o)] for o in ("passed", "failed", "skipped")}
            if not any(counts.values()):
                continue
            out.append(f"{tier:5} ({what}): "
                       + ", ".join(f"{n} {o}" for o, n in counts.items() if n))
            for reason, n in self.skips.get(tier, Counter()).most_common():
                out.append(f"      {n} skipped: {reason}")
            if counts["passed"] and not counts["failed"]:
                proven.append(tier)
        if out:
            verdict = ("METAL-PROVEN" if "METAL" in proven else "DESK-PROVEN" if "DESK" in proven
                       else "NOT PROVEN")
            out.append(f"evidence tier of this run: {verdict}")
        return out

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        lines = self.lines()
        if lines:
            terminalreporter.write_sep("-", "deskcheck evidence tier")
            for line in lines:
                terminalreporter.write_line(line)


_POOL_SCOPE = pytest.StashKey[registry.SessionScope]()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """The session gets warm pools of its own (a nested in-process session does not run on
    its caller's, whose ranks hold the caller's imported test modules)."""
    session.stash[_POOL_SCOPE] = registry.enter_session()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Close the pools this session started; pools open before it (a nested in-process
    session's caller's) are left to their owner."""
    scope = session.stash.get(_POOL_SCOPE, None)
    if scope is not None:
        scope.close()
