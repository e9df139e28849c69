"""``deskcheck suites doctor``: can this machine run congruence suites, on which tiers, how fast.

Starts a group per (backend, world), runs one all_reduce through it, and reports the start
time and round trip, or the precise reason the backend cannot run here. With ``--hang`` it
also runs the hang-naming arm: the last rank skips an all_reduce and the pool must name it
within the process-group timeout. Exit 0 when every requested group (and arm) held, 1 when
one could not (the reason says why), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from deskcheck.errors import ConfigError, DeskcheckError, RankTimeoutError
from deskcheck.suites.backends import BACKENDS, backend_unavailable_reason, tier_of


def probe_all_reduce(value: int) -> int:
    """The probe task: a SUM all_reduce of every rank's ``value``."""
    import torch
    import torch.distributed as dist

    from deskcheck.suites._rank_main import rank_context

    device = rank_context().device
    t = torch.tensor([value], device=device)
    dist.all_reduce(t)
    return int(t.item())


def skip_all_reduce_on(skipper: int) -> int:
    """The hang probe task: every rank but ``skipper`` enters an all_reduce."""
    from deskcheck.suites._rank_main import rank_context

    if rank_context().rank == skipper:
        return -1
    return probe_all_reduce(1)


def skip_all_reduce_recorded(skipper: int, folder: str) -> int:
    """:func:`skip_all_reduce_on` with this module's decisions recorded into ``folder``."""
    from deskcheck.suites._rank_main import rank_context
    from deskcheck.suites.recorder import record_decisions

    with record_decisions(folder, rank_context().rank, include=[__file__]):
        return skip_all_reduce_on(skipper)


HANG_SLACK_S = 5.0  # a loaded machine may take this long past timeout + grace to answer


def hang_arm(backend: str, world: int, timeout_s: float) -> dict[str, Any]:
    """Rank ``world - 1`` skips an all_reduce: the pool must say so, naming it, in time."""
    from deskcheck.suites.pool import GRACE_S, RankPool

    if world < 2:
        return {"ok": False, "skipped": True,
                "reason": "the hang arm needs world >= 2 (a rank must wait for the skipper)"}
    skipper = world - 1
    expected = f"rank {skipper} skipped all_reduce"
    from deskcheck.suites.decision_log import recording
    from deskcheck.suites.split import split_in

    pool = RankPool(world, backend, timeout_s=timeout_s)
    split = None
    try:
        pool.start()
        began = time.perf_counter()
        try:
            with recording(pool) as folder:
                try:
                    values = pool.run(skip_all_reduce_recorded, str(folder),
                                      per_rank=[skipper] * world)
                finally:
                    split = split_in(folder, world) if folder else None
        except RankTimeoutError as exc:
            seconds = time.perf_counter() - began
            headline = str(exc).splitlines()[0]
        else:
            return {"ok": False, "reason": f"no rank was named: the task returned {values} "
                                           f"although rank {skipper} skipped the all_reduce"}
    except DeskcheckError as exc:
        return {"ok": False, "reason": exc.render()}
    finally:
        pool.close()
    limit = timeout_s + GRACE_S + HANG_SLACK_S
    row = {"message": headline, "seconds": round(seconds, 3), "limit_seconds": limit,
           "split": split.render() if split else None}
    if expected not in headline:
        return {**row, "ok": False, "reason": f"the error does not say {expected!r}"}
    if seconds > limit:
        return {**row, "ok": False, "reason": f"named after {seconds:.1f} s, past the "
                                              f"{timeout_s:g} s timeout + {limit - timeout_s:g} s"}
    return {**row, "ok": True}


def _probe(backend: str, world: int, timeout_s: float | None) -> dict[str, Any]:
    row: dict[str, Any] = {"backend": backend, "tier": tier_of(backend), "world": world}
    reason = backend_unavailable_reason(backend, world)
    if reason:
        return {**row, "ok": False, "reason": reason}
    from deskcheck.suites.pool import RankPool

    pool = RankPool(world, backend, timeout_s=timeout_s)
    try:
        pool.start()
        began = time.perf_counter()
        values = pool.run(probe_all_reduce, per_rank=list(range(1, world + 1)))
        round_trip = time.perf_counter() - began
    except DeskcheckError as exc:
        return {**row, "ok": False, "reason": exc.render()}
    finally:
        pool.close()
    expected = world * (world + 1) // 2
    if values != [expected] * world:
        return {**row, "ok": False, "reason": f"all_reduce returned {values}, not {expected}"}
    return {**row, "ok": True, "start_method": pool.start_method,
            "start_seconds": round(pool.start_seconds, 4),
            "round_trip_seconds": round(round_trip, 4), "pg_timeout_seconds": pool.timeout_s}


def doctor(args: argparse.Namespace) -> int:
    backends = args.backend or ["gloo"]
    worlds = args.world or [2, 3]
    if any(w < 1 for w in worlds):
        raise ConfigError("world sizes must be >= 1", location="--world",
                             fix="pass e.g. --world 2 --world 3")
    rows = [_probe(b, w, args.pg_timeout) for b in backends for w in worlds]
    if args.hang:
        for row in rows:
            if row["ok"]:
                row["hang"] = hang_arm(row["backend"], row["world"], args.hang_timeout)
                row["ok"] = row["hang"]["ok"] or row["hang"].get("skipped", False)
    if args.json:
        print(json.dumps({"groups": rows, "ok": all(r["ok"] for r in rows)}, indent=2))
    else:
        for r in rows:
            head = f"{r['tier']:5} {r['backend']:4} world={r['world']}: "
            if "start_method" in r:  # the group ran
                print(head + f"ok ({r['start_method']}: group start {r['start_seconds']:.3f} s, "
                      f"all_reduce round trip {r['round_trip_seconds'] * 1000:.1f} ms, "
                      f"pg timeout {r['pg_timeout_seconds']:g} s)")
            else:
                print(head + f"cannot run: {r['reason']}")
            hang = r.get("hang")
            if hang:
                verdict = ("skipped: " + hang["reason"] if hang.get("skipped") else
                           f"named in {hang['seconds']:.1f} s: {hang['message']}" if hang["ok"]
                           else "FAILED: " + hang["reason"])
                print(f"      hang arm {verdict}")
                if hang.get("split"):
                    print("      " + hang["split"].replace("\n", "\n      "))
    return 0 if all(r["ok"] for r in rows) else 1


def register(subparsers: Any) -> None:
    suites = subparsers.add_parser("suites", help="multi-process gloo/NCCL congruence suites")
    sub = suites.add_subparsers(dest="suites_command", metavar="SUBCOMMAND", required=True)
    parser = sub.add_parser("doctor", help="start a rank group per backend and world; report "
                                           "timings or why a backend cannot run here")
    parser.add_argument("--backend", action="append", choices=BACKENDS,
                        help="backend to probe (repeatable; default gloo)")
    parser.add_argument("--world", action="append", type=int,
                        help="world size to probe (repeatable; default 2 and 3)")
    parser.add_argument("--pg-timeout", type=float, default=None, metavar="SECONDS",
                        help="process-group timeout (default DESKCHECK_PG_TIMEOUT or 10)")
    parser.add_argument("--hang", action="store_true",
                        help="also run the hang-naming arm: the last rank skips an all_reduce "
                             "and must be named within the timeout")
    parser.add_argument("--hang-timeout", type=float, default=3.0, metavar="SECONDS",
                        help="process-group timeout of the hang arm (default 3)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=doctor)
    from deskcheck.suites.metal import add_arguments, cmd_metal

    metal = sub.add_parser("metal", help="prove the METAL tier on this GPU machine in one call: "
                                         "groups, hang arm, -m metal suites, a CUDA sweep")
    add_arguments(metal)
    metal.set_defaults(func=cmd_metal)
