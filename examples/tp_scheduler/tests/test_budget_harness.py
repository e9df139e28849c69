"""The uniform reduce driven in-process on a drift-guarded stand-in (``BudgetHarness``).

The harness binds the REAL ``_update_uniform_pool_budget`` and every helper it calls; the one
stand-in is the collective: ranks are threads and the MIN all_reduce is an in-process barrier
(``deskcheck.harness.InProcessGroup``), so three divergent ranks run in one process without
gloo. deskcheck's pytest plugin adds ``BudgetHarness::drift_guard`` and
``BudgetHarness::can_fail`` next to these tests; ``deskcheck drift`` runs the same guard.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tp_scheduler import (
    AdmissionLimiter,
    HostKVPool,
    RadixCache,
    Req,
    ReqToTokenPool,
    Scheduler,
    SchedulerConfig,
    TokenToKVPool,
)
from tp_scheduler.memory_pool import occupy
from tp_scheduler.prefetch_ballot import MismatchStreak
from tp_scheduler.scheduler_budget_mixin import SchedulerBudgetMixin as Budget
from tp_scheduler.tp_head_congruence import UNPRICED

from deskcheck.harness import Harness, InProcessGroup, bind, ranks, stand_in, state


def _in_process_min(self, vals):
    """The collective, for in-process ranks: elementwise MIN across the harness group."""
    return self.tp_cpu_group.all_reduce(self.tp_rank, vals, op=min)


class BudgetHarness(Harness, model=Scheduler, roots=["_update_uniform_pool_budget"]):
    """One TP rank's budget state, just enough to run the real uniform reduce."""

    _update_uniform_pool_budget = bind(Budget._update_uniform_pool_budget)
    _clear_uniform_decision = bind(Budget._clear_uniform_decision)
    _local_head_prefix_matches = bind(Budget._local_head_prefix_matches)
    _local_admit_limit = bind(Budget._local_admit_limit)
    _local_token_budget = bind(Budget._local_token_budget)
    _local_prefetch_done = bind(Budget._local_prefetch_done)
    _record = bind(Budget._record)
    get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)
    _all_reduce_min = stand_in(
        _in_process_min, reason="ranks are threads in one process; the MIN all_reduce is an "
        "in-process barrier with the same elementwise-MIN contract as gloo's")

    tp_rank = state(0)
    tp_size = state(1)
    tp_cpu_group = state(None)
    config = state(factory=SchedulerConfig)
    waiting_queue = state(factory=list)
    running_batch = state(factory=list)
    prefetch_pending = state(factory=set)
    token_to_kv_pool = state(factory=lambda: TokenToKVPool(64))
    host_pool = state(factory=lambda: HostKVPool(64))
    tree_cache = state(factory=lambda: RadixCache(TokenToKVPool(64)))
    req_to_token_pool = state(factory=lambda: ReqToTokenPool(8))
    admission_limiter = state(factory=lambda: AdmissionLimiter(initial=4, maximum=16))
    _uniform_floor_covered = state(None)
    _prefetch_ballot_streak = state(factory=MismatchStreak)
    _scope_reports = state(factory=list)
    _ballot_reports = state(factory=list)


PROMPT = tuple(range(100, 116))
QUEUE = [Req("alpha", PROMPT), Req("bravo", tuple(range(200, 210))), Req("charlie", (7, 8, 9))]


def _rank_state(rank: int, group: InProcessGroup) -> dict:
    """Per-rank divergent inputs: free device tokens, cached prefix, seats, queue order."""
    pool = TokenToKVPool(64)
    cache = RadixCache(pool)
    if rank == 1:
        cache.insert(PROMPT[:8], occupy(pool, 8))  # only rank 1 holds alpha's prefix
    occupy(pool, 10 * rank)  # rank r has 10*r fewer free device tokens
    order = QUEUE[rank % len(QUEUE):] + QUEUE[: rank % len(QUEUE)]
    return {"tp_rank": rank, "tp_size": group.world, "tp_cpu_group": group,
            "token_to_kv_pool": pool, "tree_cache": cache, "waiting_queue": list(order),
            "req_to_token_pool": ReqToTokenPool(8 - rank)}


def test_a_world_of_one_skips_the_reduce_and_turns_every_floor_off():
    h = BudgetHarness()
    h._update_uniform_pool_budget()
    assert h._uniform_floor_covered is False
    assert (h._uniform_evict_floor, h._uniform_admit_limit, h._prefetch_ballot) == (None, None, None)
    assert h._scope_reports == ["uniform floor scope: world=1 -> floors OFF (first observation) "
                                "tp_rank=0"]


def test_divergent_ranks_publish_one_group_decision():
    rankset = ranks(BudgetHarness, 3, _rank_state)
    rankset.run(lambda h: h._update_uniform_pool_budget())
    floors = {h._uniform_evict_floor for h in rankset}
    assert floors == {min(h.token_to_kv_pool.available_size() + h.tree_cache.evictable_size()
                          for h in rankset)} == {44}
    assert {h._uniform_admit_limit for h in rankset} == {4}
    heads = {tuple(sorted(h._uniform_head_match_lens.items())) for h in rankset}
    assert len(heads) == 1  # every rank agrees on the per-rid match, whatever its own cache
    assert {h._uniform_canonical_head for h in rankset} == {("alpha", "bravo", "charlie")}
    assert rankset.group.calls == 1


def test_a_rank_that_cannot_price_its_count_votes_unpriced():
    rankset = ranks(BudgetHarness, 2, _rank_state)
    rankset[1].admission_limiter = None  # get_num_allocatable_reqs raises on this rank only
    rankset.run(lambda h: h._update_uniform_pool_budget())
    assert {h._uniform_admit_limit for h in rankset} == {min(4, 8, UNPRICED)}


SCRATCH_PYPROJECT = '[tool.deskcheck]\nharnesses = ["tests"]\n'


def _drift(scratch: Path) -> subprocess.CompletedProcess[str]:
    # the scratch copy first, then the caller's PYTHONPATH (deskcheck may run from a checkout)
    path = os.pathsep.join(filter(None, [str(scratch), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "CUDA_VISIBLE_DEVICES": ""}
    cli = [sys.executable, "-c", "import sys; from deskcheck.cli import main; sys.exit(main())"]
    return subprocess.run([*cli, "drift"], cwd=scratch, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_a_new_read_in_a_scratch_copy_makes_deskcheck_drift_fail(tmp_path):
    package = Path(__file__).resolve().parents[1] / "tp_scheduler"
    scratch = tmp_path / "scratch"
    shutil.copytree(package, scratch / "tp_scheduler", ignore=shutil.ignore_patterns("__pycache__"))
    (scratch / "tests").mkdir()
    shutil.copy(__file__, scratch / "tests" / "test_budget_harness.py")
    (scratch / "pyproject.toml").write_text(SCRATCH_PYPROJECT)

    clean = _drift(scratch)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    mixin = scratch / "tp_scheduler" / "scheduler_budget_mixin.py"
    text = mixin.read_text()
    anchor = "        return tp_head_congruence.count_vote(allocatable, free_slots)\n"
    assert anchor in text
    mixin.write_text(text.replace(anchor, "        self._something\n" + anchor))
    line = text[: text.index(anchor)].count("\n") + 1

    drifted = _drift(scratch)
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    out = drifted.stdout
    assert ("BudgetHarness has drifted behind Scheduler._update_uniform_pool_budget: "
            "['_something']") in out
    assert f"tp_scheduler/scheduler_budget_mixin.py:{line} " in out
    assert ("(path: SchedulerBudgetMixin._update_uniform_pool_budget -> "
            "SchedulerBudgetMixin._local_admit_limit)") in out
    assert textwrap.dedent(out).count("_something") >= 2


def test_the_guard_flags_a_missing_name_the_count_vote_would_swallow():
    """Without ``get_num_allocatable_reqs`` the count vote's ``except Exception`` turns the
    AttributeError into an UNPRICED vote and every test stays green; the guard names it."""
    from dataclasses import replace

    from deskcheck.drift_guard import guard

    provision = BudgetHarness.__deskcheck_provision__()
    binds = {k: v for k, v in provision.binds.items() if k != "get_num_allocatable_reqs"}
    verdict = guard(replace(provision, binds=binds))
    assert verdict.names("forward") == ["get_num_allocatable_reqs"]
    assert "[inside try/except that would swallow the AttributeError]" in verdict.message()
