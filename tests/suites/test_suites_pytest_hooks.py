"""The pytest face of the suites: markers, world/backend parametrization, tiers, teardown."""

from __future__ import annotations

import os

import pytest

# Imported here, before pytester snapshots sys.modules: the in-process inner runs must reuse
# it, because pytester drops modules a run imported and torch cannot be imported twice.
import torch.distributed  # noqa: F401

from deskcheck.suites import owned_pools
from tests.suites._procs import child_pids

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.xdist_group("deskcheck-suites")

INNER_TESTS = """
import pytest
import torch
import torch.distributed as dist


def add_all(value):
    t = torch.tensor([value])
    dist.all_reduce(t)
    return int(t.item())


@pytest.mark.world(2, 3)
def test_sum(rank_pool, world):
    assert rank_pool.run(add_all, per_rank=list(range(world))) == [sum(range(world))] * world


@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_gloo_only(rank_pool, backend):
    assert backend == "gloo"
    assert rank_pool.run(add_all, per_rank=[1, 1]) == [2, 2]


@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_diverged(rank_pool):
    assert rank_pool.run(add_all, per_rank=[1, 1]) == [3, 3]


def test_plain():
    pass
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    pytester.makepyfile(test_inner=INNER_TESTS)
    return pytester


def test_markers_are_registered_with_help(pytester: pytest.Pytester):
    result = pytester.runpytest_inprocess("--markers")
    result.stdout.fnmatch_lines([
        "@pytest.mark.world(*sizes): run a rank_pool test once per world size*",
        "@pytest.mark.backend(*names): backends for a rank_pool test*",
        "@pytest.mark.desk: DESK evidence tier*",
        "@pytest.mark.metal: METAL evidence tier*",
    ])


def test_worlds_and_backends_parametrize_with_tier_marks(inner: pytest.Pytester):
    result = inner.runpytest_inprocess("--collect-only", "-q")
    result.stdout.fnmatch_lines([
        "test_inner.py::test_sum[gloo-w2]",
        "test_inner.py::test_sum[gloo-w3]",
        "test_inner.py::test_sum[nccl-w2]",
        "test_inner.py::test_sum[nccl-w3]",
        "test_inner.py::test_gloo_only[gloo-w2]",
        "test_inner.py::test_diverged[gloo-w2]",
        "test_inner.py::test_plain",
    ])
    desk = inner.runpytest_inprocess("--collect-only", "-q", "-m", "desk")
    assert "nccl" not in desk.stdout.str() and "test_plain" not in desk.stdout.str(), (
        "-m desk must select only gloo tests of the suites (no nccl, no plain test); it "
        f"collected:\n{desk.stdout.str()}"
    )
    metal = inner.runpytest_inprocess("--collect-only", "-q", "-m", "metal")
    assert "gloo" not in metal.stdout.str() and "test_sum[nccl-w3]" in metal.stdout.str(), (
        "-m metal must select only nccl tests, test_sum[nccl-w3] among them; it collected:\n"
        f"{metal.stdout.str()}"
    )


def test_nccl_skips_with_its_reason_and_the_summary_names_the_tier(inner: pytest.Pytester):
    pools_before = owned_pools()  # an earlier test in this worker may hold warm pools
    before = child_pids()
    result = inner.runpytest_inprocess("-rs")
    result.assert_outcomes(passed=4, failed=1, skipped=2)
    result.stdout.fnmatch_lines([
        "SKIPPED *nccl needs CUDA and this machine shows no GPU (CUDA_VISIBLE_DEVICES='')"])
    result.stdout.fnmatch_lines([
        "*deskcheck evidence tier*",
        "DESK  (gloo on CPU, no GPU visible): 3 passed, 1 failed",
        "METAL (NCCL or gloo over CUDA on GPUs): 2 skipped",
        "      2 skipped: nccl needs CUDA and this machine shows no GPU (CUDA_VISIBLE_DEVICES='')",
        "evidence tier of this run: NOT PROVEN",
    ])
    assert owned_pools() == pools_before, "session end closed the pools it started"
    assert child_pids() == before, "and reaped their ranks"


def add_ranks(value: int) -> int:
    import torch
    import torch.distributed as dist

    t = torch.tensor([value])
    dist.all_reduce(t)
    return int(t.item())


def test_a_nested_session_closes_only_the_pools_it_started(inner: pytest.Pytester):
    """pytester's in-process runs (or any tool that runs pytest.main twice) share one process:
    the inner session's end closes the pools that session started, never the caller's own
    pool nor the warm pool the caller got from rank_pool() before the inner session began."""
    from deskcheck.suites import RankPool, rank_pool

    warm = rank_pool(2, "gloo")
    own = RankPool(3, "gloo").start()
    try:
        before = child_pids()
        result = inner.runpytest_inprocess("-m", "desk", "-k", "not diverged")
        result.assert_outcomes(passed=3)
        assert warm.alive, ("the inner session's end closed the warm world=2 pool the caller "
                            "got from rank_pool() before that session began")
        assert own.alive, ("the inner session's end closed a RankPool the caller started and "
                           "still holds")
        assert own.run(add_ranks, per_rank=[1, 2, 3]) == [6, 6, 6], (
            "the caller's pool no longer answers after the inner session ended")
        assert child_pids() == before, (
            "the inner session left ranks behind or killed the caller's: children before "
            f"{sorted(before)}, after {sorted(child_pids())}")
    finally:
        own.close()


SAME_NAMED_INNER = """
import pytest


def value():
    return "{word}"


@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_value(rank_pool):
    assert rank_pool.run(value) == ["{word}", "{word}"], (
        "the ranks ran another session's test_inner.value: " + repr(rank_pool.run(value)))
"""


def test_a_nested_session_runs_on_its_own_ranks_not_its_callers_warm_pool(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """The ranks of a warm pool keep the modules they imported: a nested session (pytester)
    that ran on its caller's warm pool left its ``test_inner`` there, and the next nested
    session's ``test_inner.value`` was unpickled against the stale module in the ranks."""
    from deskcheck.suites import rank_pool

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    warm = rank_pool(2, "gloo")
    for word in ("first", "second"):
        pytester.makepyfile(test_inner=SAME_NAMED_INNER.replace("{word}", word))
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
        assert result.ret == 0, (
            f"the nested session that defines value() -> {word!r} ran on ranks holding an "
            f"earlier session's test_inner:\n{result.stdout.str()[-1500:]}")
    assert warm.alive, "the caller's warm pool was closed by a nested session"


def test_a_green_desk_run_is_desk_proven(inner: pytest.Pytester):
    result = inner.runpytest_inprocess("-m", "desk", "-k", "not diverged")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["evidence tier of this run: DESK-PROVEN"])


def test_gloo_cuda_is_asked_for_by_name_and_is_metal(inner: pytest.Pytester):
    default = inner.runpytest_inprocess("--collect-only", "-q").stdout.str()
    assert "gloo-cuda" not in default, "gloo-cuda is opt-in: the default backends are gloo, nccl"
    metal = inner.runpytest_inprocess("--collect-only", "-q", "-m", "metal",
                                      "--deskcheck-backend", "nccl",
                                      "--deskcheck-backend", "gloo-cuda").stdout.str()
    for case in ("test_sum[nccl-w2]", "test_sum[gloo-cuda-w2]", "test_sum[gloo-cuda-w3]"):
        assert case in metal, f"{case} must be a METAL case when gloo-cuda is asked for:\n{metal}"


def test_a_folder_named_metal_does_not_make_its_tests_metal(pytester: pytest.Pytester):
    """pytest's keywords hold the folder names too: the tier comes from the marks alone."""
    pytester.mkpydir("metal")
    (pytester.path / "metal" / "test_plain.py").write_text("def test_cpu_only():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "METAL" not in result.stdout.str(), (
        "a plain test in a folder named metal was counted in the METAL evidence tier:\n"
        + result.stdout.str())


def test_backend_option_narrows_the_default(inner: pytest.Pytester):
    result = inner.runpytest_inprocess("--collect-only", "-q", "--deskcheck-backend", "gloo")
    assert "nccl" not in result.stdout.str(), (
        "--deskcheck-backend gloo must leave out every nccl case; it collected:\n"
        f"{result.stdout.str()}"
    )


def test_backend_option_is_only_the_default_under_a_backend_marker(inner: pytest.Pytester):
    out = inner.runpytest_inprocess("--collect-only", "-q",
                                    "--deskcheck-backend", "nccl").stdout.str()
    assert "test_gloo_only[gloo-w2]" in out and "test_gloo_only[nccl" not in out, (
        "a test marked backend(\"gloo\") runs on gloo whatever --deskcheck-backend says: the "
        "option is only the default (docs/suites.md:314); with --deskcheck-backend nccl it "
        f"collected:\n{out}")


def test_an_empty_world_marker_is_a_usage_error(pytester: pytest.Pytester):
    pytester.makepyfile(test_bad="""
        import pytest

        @pytest.mark.world()
        def test_x(rank_pool):
            pass
    """)
    result = pytester.runpytest_inprocess("--collect-only")
    assert result.ret != 0, (
        "@pytest.mark.world() with no value must be a usage error (non-zero exit); pytest exited "
        f"{result.ret}"
    )
    result.stdout.fnmatch_lines(["*test_bad.py::test_x: @pytest.mark.world() needs at least one value*"])


def test_pg_timeout_option_reaches_the_pools(pytester: pytest.Pytester,
                                             monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("DESKCHECK_PG_TIMEOUT", raising=False)
    pytester.makepyfile(test_timeout="""
        import os

        def test_x():
            from deskcheck.suites import default_pg_timeout
            assert default_pg_timeout() == 3.5
    """)
    result = pytester.runpytest_inprocess("--deskcheck-pg-timeout", "3.5")
    result.assert_outcomes(passed=1)
    assert "DESKCHECK_PG_TIMEOUT" not in os.environ, (
        "the pytest session that took --deskcheck-pg-timeout left DESKCHECK_PG_TIMEOUT set in "
        "the process after it ended")


def test_a_tests_own_world_fixture_is_left_alone(pytester: pytest.Pytester):
    pytester.makeconftest("""
        import pytest

        @pytest.fixture
        def world():
            return "earth"
    """)
    pytester.makepyfile(test_own="""
        def test_x(world):
            assert world == "earth"
    """)
    result = pytester.runpytest_inprocess("-q")
    result.assert_outcomes(passed=1)
    assert "[gloo-w" not in result.stdout.str(), (
        "a test's own world fixture must not be parametrized by deskcheck; it collected:\n"
        f"{result.stdout.str()}"
    )


def test_closing_a_session_scope_with_no_pools_keeps_the_enclosing_scopes() -> None:
    """Scopes are told apart by identity: a nested scope that started no pool is an empty
    dict, equal to an enclosing scope that holds none either, and closing it must not drop
    the enclosing one (whose later pools would then be lost to its own close)."""
    from deskcheck.suites import registry

    before = list(registry._scopes)
    outer = registry.enter_session()
    inner = registry.enter_session()
    inner.close()
    assert registry._scopes[-1] is outer._pools, (
        "closing an empty nested session scope removed another (equal, empty) scope instead "
        "of its own")
    outer.close()
    assert [id(s) for s in registry._scopes] == [id(s) for s in before], (
        "the scopes of the sessions were not all removed when they closed")


def test_without_a_world_marker_a_rank_pool_test_runs_at_world_2_and_a_marked_test_is_parametrized(
        pytester: pytest.Pytester):
    pytester.makepyfile(test_defaults="""
        import pytest

        def test_unmarked(rank_pool):
            pass

        @pytest.mark.backend("gloo")
        def test_marked_backend_only(backend):
            pass

        @pytest.mark.world(3)
        def test_marked_world_only(world):
            pass
    """)
    out = pytester.runpytest_inprocess("--collect-only", "-q", "--deskcheck-backend",
                                       "gloo").stdout.str()
    cases = sorted(line.split("::")[1] for line in out.splitlines() if "::" in line)
    assert cases == ["test_marked_backend_only[gloo-w2]", "test_marked_world_only[gloo-w3]",
                     "test_unmarked[gloo-w2]"], (
        "a rank_pool test without @pytest.mark.world runs once at world 2 (the default), and a "
        "test marked world/backend that only uses the world or backend fixture is parametrized "
        f"too (docs/suites.md:318); collected {cases}")


def test_each_backend_and_world_is_one_xdist_group_unless_the_test_names_its_own(
        pytester: pytest.Pytester):
    items = pytester.getitems("""
        import pytest

        @pytest.mark.world(2, 3)
        def test_pool(rank_pool):
            pass

        @pytest.mark.xdist_group("mine")
        def test_grouped(rank_pool):
            pass
    """)
    groups = {item.name: [m.args[0] for m in item.iter_markers("xdist_group")] for item in items}
    assert groups == {"test_pool[gloo-w2]": ["deskcheck-gloo-w2"],
                      "test_pool[gloo-w3]": ["deskcheck-gloo-w3"],
                      "test_pool[nccl-w2]": ["deskcheck-nccl-w2"],
                      "test_pool[nccl-w3]": ["deskcheck-nccl-w3"],
                      "test_grouped[gloo-w2]": ["mine"], "test_grouped[nccl-w2]": ["mine"]}, (
        "each (backend, world) case is one xdist group (deskcheck-<backend>-w<world>), so a "
        "worker keeps one warm pool; a test's own xdist_group is kept; the groups are "
        f"{groups}")
