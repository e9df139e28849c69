"""The launcher: warm pools on real gloo ranks, failures that name the rank, no orphans."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
import time

import pytest

from deskcheck.errors import (
    BackendUnavailableError,
    RankAssertionError,
    RankError,
    RankTaskError,
    RankTimeoutError,
)
from deskcheck.suites import RankPool, backend_unavailable_reason, owned_pools, rank_pool
from tests.suites import _decisions as D
from tests.suites._procs import child_pids, running, wait_gone

pytestmark = pytest.mark.xdist_group("deskcheck-suites")
SHORT_TIMEOUT = 2.0
GRACE_S = 1.0  # deskcheck.suites.pool.GRACE_S


@pytest.fixture
def short_pool():
    """A private world=3 pool with a 2 s process-group timeout, closed after the test."""
    before = child_pids()
    pool = RankPool(3, "gloo", timeout_s=SHORT_TIMEOUT).start()
    yield pool
    pool.close()
    assert child_pids() == before, "the pool left processes behind"


@pytest.mark.world(2, 3)
@pytest.mark.backend("gloo")
def test_every_rank_runs_the_task_with_its_own_argument(rank_pool, world):
    assert rank_pool.run(D.all_reduce_sum, per_rank=list(range(1, world + 1))) == \
        [sum(range(1, world + 1))] * world, (
        "all_reduce_sum over ranks given 1..world must give every rank their sum"
    )
    assert rank_pool.run(D.whoami) == [(r, world, "gloo", world) for r in range(world)], (
        f"each rank must run as (rank, world {world}, gloo, world {world}); they ran as "
        f"{rank_pool.run(D.whoami)}"
    )


@pytest.mark.world(1, 2, 3)
def test_an_all_reduce_on_each_tier(rank_pool, world, backend):
    """gloo runs here; nccl runs where one GPU per rank is visible (world 1 on one GPU) and
    skips elsewhere with the reason."""
    from deskcheck.suites.commands import probe_all_reduce

    values = rank_pool.run(probe_all_reduce, per_rank=list(range(1, world + 1)))
    assert values == [world * (world + 1) // 2] * world, (
        f"an all_reduce of 1..{world} on {backend} must give every rank {world * (world + 1) // 2}"
        f"; it gave {values}"
    )
    assert rank_pool.run(D.whoami) == [(r, world, backend, world) for r in range(world)], (
        f"each rank must run as (rank, world {world}, {backend}, world {world}); they ran as "
        f"{rank_pool.run(D.whoami)}"
    )


@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_the_pool_stays_warm_across_tasks_and_fixture_uses(rank_pool):
    pids = rank_pool.pids
    for value in range(5):
        assert rank_pool.run(D.all_reduce_sum, per_rank=[value, value]) == [2 * value] * 2, (
            f"the warm pool must sum {value} + {value} on both ranks for task {value}"
        )
    assert rank_pool_again(2).pids == pids, (
        f"a second use of the fixture must get the same warm ranks {pids}; it got "
        f"{rank_pool_again(2).pids}"
    )


def rank_pool_again(world):
    return rank_pool(world, "gloo")


@pytest.mark.backend("gloo")
def test_gloo_ranks_are_hermetic(rank_pool):
    """A DESK rank sees no GPU: CUDA_VISIBLE_DEVICES='' where the machine shows one, else the
    caller's value (deskcheck.suites.desk_env; SGLang's test utilities fail on '')."""
    assert rank_pool.run(D.visible_gpus) == [0, 0], "a DESK (gloo) rank sees a GPU"
    expected = "" if D.visible_gpus() else os.environ.get("CUDA_VISIBLE_DEVICES")
    assert rank_pool.run(D.env_value, "CUDA_VISIBLE_DEVICES") == [expected, expected], \
        "the DESK env changed CUDA_VISIBLE_DEVICES where it had nothing to hide, or left a GPU"


def test_an_assertion_in_one_rank_names_that_rank_and_keeps_the_pool(short_pool):
    pids = short_pool.pids
    with pytest.raises(RankAssertionError) as info:
        short_pool.run(D.assert_below, 2, per_rank=[0, 1, 2])
    message = str(info.value)
    headline = message.partition("\n")[0]
    assert "rank 2 raised AssertionError: value 2 is not below 2" in message, (
        f"only rank 2 failed its assertion (value 2 is not below 2), but the pool's error does "
        f"not name rank 2 as the one that raised: {headline!r}")
    assert "rank 0 (pid" in message and "returned after" in message, (
        "the error must say rank 0 returned after its collectives (with its pid); it says:\n"
        f"{message}"
    )
    assert isinstance(info.value, AssertionError), (
        "a rank's assertion must be an AssertionError (pytest shows a failure); it is "
        f"{type(info.value).__mro__}"
    )
    assert short_pool.pids == pids, "ranks in step after a plain assertion are reused"
    assert short_pool.run(D.all_reduce_sum, per_rank=[1, 1, 1]) == [3, 3, 3], (
        "the pool kept after a plain assertion must still sum 1+1+1 = 3 on every rank"
    )


def test_a_crash_is_a_rank_error_not_an_assertion(short_pool):
    with pytest.raises(RankError) as info:
        short_pool.run(D.crash_with_type_error, per_rank=[0, 1, 2])
    assert not isinstance(info.value, AssertionError), (
        f"a crash must be a RankError, not an AssertionError; it is {type(info.value).__mro__}"
    )
    assert "rank 1 raised TypeError: rank-local crash" in str(info.value), (
        f"the error must name rank 1's TypeError: rank-local crash; it says:\n{info.value}"
    )


def test_a_rank_that_skips_the_collective_is_named_within_the_timeout(short_pool):
    before = child_pids() - set(short_pool.pids)
    started = time.monotonic()
    with pytest.raises(RankTimeoutError) as info:
        short_pool.run(D.skip_collective_on, per_rank=[1, 1, 1])
    elapsed = time.monotonic() - started
    message = str(info.value)
    assert message.splitlines()[0].endswith(
        "rank 1 skipped all_reduce #1: returned after 0 collectives while ranks 0 and 2 waited "
        "in it until the 2 s process-group timeout"), message
    # The pool waits the timeout, its grace, then at most one more timeout + grace (more only
    # if its own process was not scheduled): bounded, never the hang a skip would be.
    assert elapsed < 4 * (SHORT_TIMEOUT + GRACE_S) + 30, f"took {elapsed:.1f} s"
    assert not short_pool.alive, "a pool whose ranks fell out of step is closed"
    assert child_pids() == before, "zero rank processes are left"


def test_a_rank_still_reporting_its_own_timeout_is_not_the_one_blamed(monkeypatch):
    """Under load, the rank that waited in the collective can still be formatting its own
    timeout error when the parent's deadline passes (issue 15: it was blamed as 'never
    reached all_reduce'). Here formatting takes 8 s on purpose: the rank tells the parent it
    is failing first, and the skipper is named from the collective counts."""
    from deskcheck.suites import _rank_main

    formatting = _rank_main._failure

    def slow_failure(exc, skip_frames=0):
        time.sleep(8.0)  # a loaded machine formatting a traceback
        return formatting(exc, skip_frames)

    monkeypatch.setattr(_rank_main, "_failure", slow_failure)  # forked ranks inherit it
    with RankPool(2, "gloo", timeout_s=1.0, start_method="fork") as pool:
        with pytest.raises(RankTimeoutError) as info:
            pool.run(D.skip_collective_on, per_rank=[1, 1])
    head = str(info.value).splitlines()[0]
    assert head.endswith("rank 1 skipped all_reduce #1: returned after 0 collectives while "
                         "rank 0 waited in it until the 1 s process-group timeout"), (
        f"rank 1 skipped the collective, yet the pool's error says: {head!r}")


def test_a_rank_stuck_outside_the_collective_is_named_with_its_stack(short_pool):
    with pytest.raises(RankTimeoutError) as info:
        short_pool.run(D.sleep_before_collective, per_rank=[2, 2, 2])
    message = str(info.value)
    head = message.splitlines()[0]
    assert "rank 2 never reached all_reduce: still running at" in head, head
    assert "in sleep_before_collective" in head, (
        "the stuck rank must be named with the function it is stuck in, sleep_before_collective; "
        f"the head is {head!r}"
    )
    assert "ranks 0 and 1 waited in all_reduce" in head, (
        f"the error must say ranks 0 and 1 waited in all_reduce; the head is {head!r}"
    )
    assert "Current thread" in message, "the hung rank's faulthandler stacks are shown"
    assert not short_pool.alive, (
        "a pool whose rank hung must be closed (not alive) after the timeout"
    )


def test_a_rank_that_dies_is_named_with_its_exit_status(short_pool):
    with pytest.raises(RankError) as info:
        short_pool.run(D.exit_on, per_rank=[0, 0, 0])
    assert not isinstance(info.value, RankTimeoutError), (
        f"a rank that died is no timeout; the error is {type(info.value).__name__}: {info.value}"
    )
    assert str(info.value).splitlines()[0].endswith("exit_on on world=3 gloo (DESK): "
                                                    "rank 0 died (exit code 3)"), (
        "the error must say rank 0 died (exit code 3); its first line is "
        f"{str(info.value).splitlines()[0]!r}"
    )
    assert not short_pool.alive, "a pool whose rank died must be closed (not alive)"


def test_a_lambda_task_is_refused_before_anything_runs(short_pool):
    with pytest.raises(RankTaskError) as info:
        short_pool.run(lambda: 1)
    assert "module-level function" in str(info.value), (
        "a lambda task must be refused asking for a module-level function; it says "
        f"{str(info.value)!r}"
    )
    assert short_pool.alive, "a refused task must leave the pool alive: nothing ran"


def test_a_result_that_cannot_travel_back_is_reported(short_pool):
    with pytest.raises(RankError, match="cannot be sent back"):
        short_pool.run(D.unpicklable_result)


def test_rank_output_comes_back_prefixed(short_pool, capsys):
    short_pool.run(D.print_and_return, per_rank=[0, 1, 2])
    out = capsys.readouterr().out
    assert "[rank 2] hello from rank 2" in out, (
        f"rank output must come back prefixed [rank N]; the output is:\n{out}"
    )


def test_per_rank_must_match_the_world(short_pool):
    with pytest.raises(RankTaskError, match="per_rank has 2 entries for world=3"):
        short_pool.run(D.all_reduce_sum, per_rank=[1, 2])


def test_nccl_without_gpus_is_refused_with_the_precise_reason(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    reason = backend_unavailable_reason("nccl", 2)
    assert reason == "nccl needs CUDA and this machine shows no GPU (CUDA_VISIBLE_DEVICES='')", (
        "nccl with CUDA_VISIBLE_DEVICES='' must be refused with the precise reason; it says "
        f"{reason!r}"
    )
    with pytest.raises(BackendUnavailableError, match="nccl needs CUDA"):
        RankPool(2, "nccl").start()
    assert backend_unavailable_reason("gloo", 2) is None, (
        "gloo needs no GPU: it must not be refused; reason "
        f"{backend_unavailable_reason('gloo', 2)!r}"
    )


def test_nccl_with_fewer_gpus_than_ranks_names_both_numbers(monkeypatch):
    import torch

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    monkeypatch.setattr(torch.version, "cuda", "12.4")
    monkeypatch.setattr(torch.cuda, "_device_count_nvml", lambda: 1)
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: True)
    reason = backend_unavailable_reason("nccl", 2)
    assert reason == ("nccl needs one GPU per rank (NCCL refuses two ranks on one GPU): world=2 "
                      "but 1 GPU(s) visible (counted through NVML)"), (
        f"nccl with 1 GPU for world=2 must name both numbers; it says {reason!r}"
    )
    assert backend_unavailable_reason("nccl", 1) is None, (
        "nccl world=1 on 1 GPU must not be refused; reason "
        f"{backend_unavailable_reason('nccl', 1)!r}"
    )


def test_gloo_cuda_runs_two_and_three_ranks_on_one_gpu_where_nccl_is_refused(monkeypatch):
    """docs/suites.md: gloo-cuda ranks share the GPUs round-robin, so world 2 and 3 run on one GPU."""
    import torch

    from deskcheck.suites import backends

    monkeypatch.setattr(backends, "cuda_device_count", lambda: (1, "counted through NVML"))
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: True)
    for world in (2, 3):
        reason = backend_unavailable_reason("gloo-cuda", world)
        assert reason is None, (
            f"gloo-cuda ranks share the GPUs round-robin, so world={world} must run on one GPU; "
            f"it was refused: {reason!r}")
    assert backend_unavailable_reason("nccl", 2) is not None, (
        "nccl world=2 on one GPU must still be refused (one GPU per rank); it was allowed")


def test_a_forked_child_builds_its_own_pool_with_its_memory():
    """The mutant sweep's rule: the child never reuses the pool it inherited."""
    parent_pool = rank_pool(2, "gloo")
    parent_pids = parent_pool.pids
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: swap a module global in memory, as a mutant swaps __code__
        code = 1
        try:
            D.MUTANT_MARK = "mutant-7"
            child_pool = rank_pool(2, "gloo")
            seen = child_pool.run(D.pid_and_mark)
            os.write(write_fd, repr((child_pool.pids, seen)).encode())
            code = 0
        finally:
            os._exit(code)  # no atexit, no cleanup: the ranks must die with the child
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        child_pids_seen, seen = eval(reader.read())  # noqa: S307 - our own repr
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, (
        "the forked child building its own pool must exit 0; it exited "
        f"{os.waitstatus_to_exitcode(status)}"
    )
    assert set(child_pids_seen).isdisjoint(parent_pids), "the child built a fresh pool"
    assert [mark for _pid, mark in seen] == ["mutant-7", "mutant-7"], "its ranks see the mutant"
    assert wait_gone(set(child_pids_seen)) == set(), "the child's ranks died with it"
    assert parent_pool.pids == parent_pids and all(running(p) for p in parent_pids), (
        f"the parent's pool must keep its ranks {parent_pids} alive; it has {parent_pool.pids}"
    )
    assert parent_pool.run(D.mutant_mark) == ["clean", "clean"], "the parent's ranks untouched"


def test_a_pool_refuses_to_run_in_a_forked_child():
    pool = rank_pool(2, "gloo")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            pool.run(D.mutant_mark)
        except RankError as exc:
            code = 0 if "belongs to pid" in str(exc) and not pool.alive else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, (
        "a pool used in a forked child must refuse (belongs to pid) and close; the child exited "
        f"{os.waitstatus_to_exitcode(status)} (2: it ran or stayed alive)"
    )
    assert pool.run(D.mutant_mark) == ["clean", "clean"], (
        "the parent's pool must still run clean after its forked child was refused"
    )


def test_spawn_mode_ranks_inherit_the_environment(monkeypatch):
    monkeypatch.setenv("DESKCHECK_TEST_HOOK", "import-hook-on")
    before = child_pids()
    with RankPool(2, "gloo", start_method="spawn", timeout_s=SHORT_TIMEOUT) as pool:
        assert pool.start_method == "spawn", (
            f"start_method=\"spawn\" must spawn the ranks; the pool uses {pool.start_method!r}"
        )
        assert pool.run(D.env_value, "DESKCHECK_TEST_HOOK") == ["import-hook-on"] * 2, (
            "spawned ranks must inherit the environment (DESKCHECK_TEST_HOOK); they see "
            f"{pool.run(D.env_value, 'DESKCHECK_TEST_HOOK')}"
        )
        assert pool.run(D.all_reduce_sum, per_rank=[2, 3]) == [5, 5], (
            "spawned ranks must all_reduce 2 + 3 = 5 on both ranks"
        )
        assert pool.run(D.whoami) == [(0, 2, "gloo", 2), (1, 2, "gloo", 2)], (
            f"spawned ranks must run as (rank, 2, gloo, 2); they ran as {pool.run(D.whoami)}"
        )
    assert child_pids() == before, (
        f"the spawned pool left processes behind: {sorted(set(child_pids()) - set(before))}"
    )


def test_a_rank_that_starts_late_still_joins_and_the_timeout_still_names_a_skip(
        monkeypatch, tmp_path):
    """Joining is not a collective: on a loaded machine one spawned rank can take longer to
    import torch than the process-group timeout, and the group must still start (issue 15:
    a fresh-clone run under load failed with gloo's 'Connect timeout'). Rank 1 joins
    SHORT_TIMEOUT + 2 s after rank 0 has started to wait for it (a sitecustomize: rank 1
    imports torch, waits until rank 0 has written to the group's store, then sleeps), however
    slowly either rank imports; collectives keep the short timeout: a skip is still named
    after it."""
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent(f"""
        import json, os, sys, time
        if sys.argv[1:2] and sys.argv[1].startswith("{{"):
            config = json.loads(sys.argv[1])
            if config.get("rank") == 1:
                import torch.distributed  # noqa: F401 - its import is not part of the delay
                store, until = config["store_path"], time.monotonic() + 120
                while time.monotonic() < until and not (
                        os.path.exists(store) and os.path.getsize(store) > 0):
                    time.sleep(0.05)
                time.sleep({SHORT_TIMEOUT + 2.0})
    """))
    # after what is there: a mutant run's process hook must stay first on the path
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([*kept, str(tmp_path)]))
    before = child_pids()
    with RankPool(2, "gloo", start_method="spawn", timeout_s=SHORT_TIMEOUT) as pool:
        assert pool.run(D.all_reduce_sum, per_rank=[2, 3]) == [5, 5], (
            "a group whose rank 1 started late does not reduce")
        with pytest.raises(RankTimeoutError) as info:
            pool.run(D.skip_collective_on, per_rank=[1, 1])
        assert f"until the {SHORT_TIMEOUT:g} s process-group timeout" in str(info.value), (
            "a late start must not lengthen the collectives' timeout:\n" + str(info.value))
    assert child_pids() == before, "zero rank processes are left"


def test_pools_close_at_interpreter_exit(tmp_path):
    """A script that never closes its pool leaves no rank behind once it exits."""
    script = tmp_path / "leave_pool_open.py"
    script.write_text(textwrap.dedent("""
        import sys
        sys.path.insert(0, sys.argv[1])
        from deskcheck.suites import rank_pool
        from tests.suites import _decisions as D
        pool = rank_pool(2, "gloo")
        assert pool.run(D.all_reduce_sum, per_rank=[1, 2]) == [3, 3]
        print(" ".join(map(str, pool.pids)), flush=True)
    """))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, str(script), root], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 0, done.stderr
    pids = {int(p) for p in done.stdout.split()}
    assert len(pids) == 2, (
        f"the script must print the 2 rank pids of its pool; it printed {done.stdout!r}"
    )
    assert wait_gone(pids) == set(), (
        f"pools must close at interpreter exit; ranks still running: {wait_gone(pids)}"
    )


def test_session_teardown_closes_owned_pools():
    from deskcheck.suites import shutdown_pools

    pool = rank_pool(2, "gloo")
    pids = set(pool.pids)
    shutdown_pools()
    assert owned_pools() == [], (
        f"session teardown must close every owned pool; still owned: {owned_pools()}"
    )
    assert not (pids & child_pids()), "closed pools' ranks are reaped"


def test_a_rank_killed_between_tasks_makes_the_pool_restart(short_pool):
    import signal

    old = short_pool.pids
    os.kill(old[1], signal.SIGKILL)
    deadline = time.monotonic() + 60  # returns as soon as it is gone; holds under load
    while short_pool._ranks[1].exit_status() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the kernel tears the process down before it can be waited for
    assert short_pool.run(D.all_reduce_sum, per_rank=[1, 1, 1]) == [3, 3, 3], (
        "a pool whose rank was killed between tasks must restart and sum 1+1+1 = 3 on every rank"
    )
    assert set(short_pool.pids).isdisjoint(old), "a fresh group replaced the broken one"
    assert not ({old[0], old[2]} & child_pids()), "the rest of the old group was reaped"


def test_a_parent_that_touched_cuda_spawns_its_ranks(monkeypatch):
    import torch

    from deskcheck.suites import backends

    pool = RankPool(2, "gloo")
    monkeypatch.delenv("DESKCHECK_START_METHOD", raising=False)
    assert pool._resolve_start_method() == "fork", (
        "a parent that never touched CUDA must fork its ranks"
    )
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    assert backends.parent_touched_cuda(), (
        "torch.cuda.is_initialized() True must count as the parent touched CUDA"
    )
    assert pool._resolve_start_method() == "spawn", (
        "a parent that touched CUDA must spawn its ranks (fork would inherit the CUDA context)"
    )
    monkeypatch.setenv("DESKCHECK_START_METHOD", "fork")
    assert pool._resolve_start_method() == "fork", "an explicit choice wins"


def test_the_grace_grows_with_the_measured_scheduling_delay():
    from deskcheck.suites.outcomes import RankOutcome
    from deskcheck.suites.pool import extra_grace, scheduling_delay

    assert extra_grace(0.0, 2.0, reporting=False) == 0.0, "an idle machine waits no longer"
    assert extra_grace(0.25, 2.0, reporting=False) == 1.0, "4x the measured delay"
    assert extra_grace(5.0, 2.0, reporting=False) == 3.0, "capped at one more timeout + grace"
    assert extra_grace(0.0, 2.0, reporting=True) == 3.0, (
        "a rank that said it is failing gets one more timeout + grace to finish its report")
    now = time.monotonic()
    late = RankOutcome(1, 101, extra={"started": now + 0.7})  # started 0.7 s after sending
    lag = scheduling_delay(now, time.monotonic(), [late], {})
    assert 0.69 <= lag < 5.0, f"a rank that started 0.7 s late measures a delay of {lag:.3f} s"


def test_a_module_of_a_test_folder_no_longer_on_the_path_is_imported_anew(tmp_path, monkeypatch):
    """Two in-process pytest sessions (pytester) each write their own ``test_inner.py`` in their
    own folder and share a warm pool: the second one's task must run the second file, not the
    module the ranks imported from the first folder, which is no longer on sys.path."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, body in ((first, "def which(x):\n    return 'first'\n"),
                         (second, "def other(x):\n    return 'second'\n")):
        folder.mkdir()
        (folder / "stale_inner_mod.py").write_text(body, encoding="utf-8")
    with RankPool(2, "gloo") as pool:
        monkeypatch.syspath_prepend(str(first))
        stale_inner_mod = importlib.import_module("stale_inner_mod")  # written above, not a
        # third-party import (the metal plan's wheel check reads import statements)
        assert pool.run(stale_inner_mod.which, per_rank=[0, 1]) == ["first", "first"], (
            "the ranks must import stale_inner_mod from the first folder; they gave "
            f"{pool.run(stale_inner_mod.which, per_rank=[0, 1])}"
        )
        sys.modules.pop("stale_inner_mod")
        sys.path.remove(str(first))
        monkeypatch.syspath_prepend(str(second))
        fresh = importlib.import_module("stale_inner_mod")

        try:
            got = pool.run(fresh.other, per_rank=[0, 1])
        except RankError as exc:
            pytest.fail("the ranks kept the module of a folder no longer on sys.path, so the "
                        f"second folder's function was not found:\n{exc}")
        finally:
            sys.modules.pop("stale_inner_mod", None)
        assert got == ["second", "second"], f"the ranks ran the stale module: {got}"
