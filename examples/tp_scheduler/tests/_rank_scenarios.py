"""Rank-side scenarios for the gloo batch-formation tests, and a small fork launcher.

Every rank builds its OWN diverged state: its own queue order, its own radix-cache history
(so prefix matches differ), its own free request slots and admission limiter. A shared
fixture list would never exercise the canonical-order step, which is the point.

Scenario functions have the signature ``(rank, world_size, group) -> dict`` and return only
picklable plain data; they are importable so a suite runner can call them by name.
"""

from __future__ import annotations

import os
import queue as queue_mod
import time
import traceback
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from tp_scheduler import Req, Scheduler, SchedulerConfig
from tp_scheduler.memory_pool import occupy

PG_TIMEOUT_S = 10.0
"""Gloo collective timeout: a diverged collective raises with the rank named, never hangs."""

SKIPPER_HOLD_S = 4.0
"""How long the skipping rank stays alive; above the short timeout its test uses."""

PROMPT_LEN = 40
RIDS = ("alpha", "bravo", "charlie", "delta", "echo")
PROMPTS = {rid: tuple(range(1000 * (i + 1), 1000 * (i + 1) + PROMPT_LEN)) for i, rid in enumerate(RIDS)}

# Per rank: queue order, cached prefix per rid, request room (limiter bound, slot-pool size).
RANK_STATE: tuple[dict[str, Any], ...] = (
    {
        "queue": ("echo", "delta", "charlie", "bravo", "alpha"),
        "cached": {"charlie": 32, "alpha": 8},
        "limiter": 3,
        "req_slots": 8,
        "token_pool": 4096,
    },
    {
        "queue": ("alpha", "bravo", "charlie", "delta", "echo"),
        "cached": {"alpha": 32, "charlie": 16},
        "limiter": 16,
        "req_slots": 2,
        "token_pool": 2048,
    },
    {
        "queue": ("charlie", "echo", "alpha", "delta", "bravo"),
        "cached": {"bravo": 24, "alpha": 16, "charlie": 16},
        "limiter": 4,
        "req_slots": 8,
        "token_pool": 3072,
    },
)

# What the group must decide at world 2 and 3 (MIN of the cached prefixes above; ties by rid;
# count = MIN of the ranks' room: 3/2 at world 2, 3/2/4 at world 3).
EXPECTED_RIDS = {2: ("charlie", "alpha"), 3: ("charlie", "alpha")}
EXPECTED_PREFIX_LENS = {2: (16, 8), 3: (16, 8)}


# A token pool so small on rank 1 (60 = its 48 cached tokens + 12 free) that the group's
# eviction floor, not the count, ends the batch: charlie (24 + 8 reserved) fits, alpha's
# 32 + 8 does not on the poorest rank, so no rank may take it.
TIGHT_TOKEN_POOL = (200, 60, 120)
EXPECTED_TIGHT_RIDS = ("charlie",)


def build_rank_scheduler(
    rank: int, world_size: int, group: Any, *, queue_order: tuple[str, ...] | None = None,
    token_pool: int | None = None,
) -> Scheduler:
    """A scheduler holding this rank's own diverged queue, cache and pools."""
    state = RANK_STATE[rank]
    config = SchedulerConfig(
        max_running_requests=16,
        req_pool_size=state["req_slots"],
        token_pool_size=token_pool or state["token_pool"],
        host_pool_size=8192,
    )
    sched = Scheduler(tp_rank=rank, tp_size=world_size, tp_cpu_group=group, config=config)
    sched.admission_limiter.current = state["limiter"]
    for rid, length in state["cached"].items():
        tokens = PROMPTS[rid][:length]
        sched.tree_cache.insert(tokens, occupy(sched.token_to_kv_pool, length))
    order = queue_order if queue_order is not None else state["queue"]
    sched.add_requests(Req(rid, PROMPTS[rid], max_new_tokens=8) for rid in order)
    return sched


def _room(sched: Scheduler) -> int:
    assert sched.req_to_token_pool is not None
    return min(sched.get_num_allocatable_reqs(), sched.req_to_token_pool.available_size())


def form_one_batch(
    rank: int, world_size: int, group: Any, *, queue_order: tuple[str, ...] | None = None,
    prefetch_pending: tuple[str, ...] = (), token_pool: int | None = None,
) -> dict[str, Any]:
    """One pass on this rank's diverged state; returns the batch and what the rank could hold."""
    sched = build_rank_scheduler(
        rank, world_size, group, queue_order=queue_order, token_pool=token_pool
    )
    sched.prefetch_pending.update(prefetch_pending)
    room = _room(sched)
    local_order = [r.rid for r in sorted(
        sched.waiting_queue, key=lambda r: -sched.tree_cache.match_len(r.origin_input_ids)
    )]
    admit_error = None
    try:
        batch = sched.run_pass()
    except RuntimeError as exc:  # the physical allocator refused what the rank was told
        batch, admit_error = None, str(exc)
    decision = sched.last_decision
    reading = sched._prefetch_ballot
    summary = batch.summary() if batch is not None else None
    return {
        "rank": rank,
        "rids": summary.rids if summary else (),
        "prefix_lens": summary.prefix_lens if summary else (),
        "extend_num_tokens": summary.extend_num_tokens if summary else 0,
        "room": room,
        "told_count": decision.count if decision else 0,
        "rule": decision.rule if decision else None,
        "admit_error": admit_error,
        "local_order": tuple(local_order),
        "ballot_mismatch": reading.mismatch if reading else None,
        "digest_min": reading.digest_min if reading else None,
        "digest_max": reading.digest_max if reading else None,
        "streak_total": sched.ballot_streak().total,
        "free_slots_after": sched.req_to_token_pool.available_size()
        if sched.req_to_token_pool else None,
    }


def form_with_agreeing_queues(rank: int, world_size: int, group: Any) -> dict[str, Any]:
    """Every rank holds the queue in the same arrival order (only caches and pools differ)."""
    return form_one_batch(rank, world_size, group, queue_order=RIDS)


def prefetch_pending_on_rank_one(rank: int, world_size: int, group: Any) -> dict[str, Any]:
    """Same arrival order; the head's prefetch is still in flight on rank 1 only."""
    pending = (RIDS[0],) if rank == 1 else ()
    return form_one_batch(rank, world_size, group, queue_order=RIDS, prefetch_pending=pending)


def form_under_a_tight_token_pool(rank: int, world_size: int, group: Any) -> dict[str, Any]:
    """Diverged queues and caches; the poorest rank's token budget binds the whole group."""
    return form_one_batch(rank, world_size, group, token_pool=TIGHT_TOKEN_POOL[rank])


def ballot_lifecycle(rank: int, world_size: int, group: Any) -> dict[str, Any]:
    """Two passes with parted queue heads, then agreement: onset, persistence, recovery."""
    sched = build_rank_scheduler(rank, world_size, group)
    for _ in range(2):
        sched._update_uniform_pool_budget()
    by_rid = {req.rid: req for req in sched.waiting_queue}
    sched.waiting_queue[:] = [by_rid[rid] for rid in RIDS]
    sched._update_uniform_pool_budget()
    streak = sched.ballot_streak()
    return {
        "rank": rank,
        "reports": list(sched._ballot_reports),
        "streak": streak.streak,
        "total": streak.total,
    }


def rank_one_skips_the_reduce(rank: int, world_size: int, group: Any) -> dict[str, Any]:
    """A rank that never enters the pass's collective: its peers must fail, not hang.

    Rank 1 stays alive past the gloo timeout (it took another branch, it did not die), so
    the peers' failure is the collective timeout naming them, not a closed socket.
    """
    if rank == 1:
        time.sleep(SKIPPER_HOLD_S)
        return {"rank": rank, "skipped": True}
    build_rank_scheduler(rank, world_size, group)._update_uniform_pool_budget()
    return {"rank": rank, "skipped": False}


# -- launcher -------------------------------------------------------------------------------
def _rank_main(
    scenario: Callable[[int, int, Any], dict[str, Any]], rank: int, world_size: int,
    store_path: str, env: Mapping[str, str], results: Any, pg_timeout_s: float,
) -> None:
    code = 1
    try:
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        os.environ.update(env)
        import torch.distributed as dist

        store = dist.FileStore(store_path, world_size)
        dist.init_process_group(
            "gloo", store=store, rank=rank, world_size=world_size,
            timeout=timedelta(seconds=pg_timeout_s),
        )
        try:
            results.put((rank, "ok", scenario(rank, world_size, dist.group.WORLD)))
            code = 0
        finally:
            dist.destroy_process_group()
    except BaseException:
        results.put((rank, "error", traceback.format_exc()))
    finally:
        # Queue.put hands the item to a feeder thread; os._exit would kill it unflushed.
        results.close()
        results.join_thread()
        os._exit(code)  # never run the parent's (pytest's) atexit handlers in a fork


def run_world(
    scenario: Callable[[int, int, Any], dict[str, Any]], world_size: int, workdir: Path,
    *, env: Mapping[str, str] | None = None, pg_timeout_s: float = PG_TIMEOUT_S,
    timeout_s: float | None = None,
) -> list[dict[str, Any]]:
    """Fork ``world_size`` gloo ranks running ``scenario``; their results, by rank.

    Rendezvous is a FileStore inside ``workdir`` (unique per test, so it cannot collide
    under pytest-xdist). A hang fails after ``timeout_s`` naming the silent ranks; every
    rank process is reaped (killed if need be) before this returns or raises.
    """
    import multiprocessing

    timeout_s = pg_timeout_s + 20.0 if timeout_s is None else timeout_s
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    store_path = str(workdir / f"gloo_store_{world_size}")
    procs = [
        ctx.Process(
            target=_rank_main,
            args=(scenario, rank, world_size, store_path, dict(env or {}), results, pg_timeout_s),
            name=f"tp-rank-{rank}",
        )
        for rank in range(world_size)
    ]
    for proc in procs:
        proc.start()
    collected: dict[int, tuple[str, Any]] = {}
    try:
        deadline = time.monotonic() + timeout_s
        while len(collected) < world_size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                rank, status, payload = results.get(timeout=min(remaining, 1.0))
            except queue_mod.Empty:
                if all(not p.is_alive() for p in procs) and results.empty():
                    break
                continue
            collected[rank] = (status, payload)
    finally:
        for proc in procs:
            proc.join(timeout=5.0)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5.0)
        results.close()
        results.join_thread()
    leftover = [p.name for p in procs if p.is_alive()]
    if leftover:
        raise RuntimeError(f"rank processes still alive after kill: {leftover}")
    errors = {r: payload for r, (status, payload) in collected.items() if status == "error"}
    if errors:
        detail = "\n".join(f"--- rank {r} ---\n{tb}" for r, tb in sorted(errors.items()))
        raise AssertionError(f"{len(errors)} rank(s) raised:\n{detail}")
    missing = sorted(set(range(world_size)) - set(collected))
    if missing:
        raise AssertionError(
            f"ranks {missing} of world {world_size} reported nothing within {timeout_s:.0f}s "
            f"(hung or died in a collective)"
        )
    return [collected[r][1] for r in range(world_size)]
