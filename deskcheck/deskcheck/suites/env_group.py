"""env:// mode: the same suites run under ``torchrun``, one pytest per rank, across nodes.

Under torchrun every worker runs the whole test; a task runs locally with this rank's own
arguments and the outcomes are exchanged through the group's store, so every rank judges the
same outcomes and fails (or passes) the same way. A rank that never reports is named.
"""

from __future__ import annotations

import datetime
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from deskcheck.errors import BackendUnavailableError, RankTaskError
from deskcheck.suites import _rank_main
from deskcheck.suites._diagnose import values_or_raise
from deskcheck.suites._rank_main import RankContext, collective_count
from deskcheck.suites.backends import TORCH_BACKEND, rank_device, tier_of, uses_cuda
from deskcheck.suites.outcomes import RankOutcome
from deskcheck.suites.pool import GRACE_S, default_pg_timeout

_ENV_KEYS = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


def under_torchrun() -> bool:
    """True when this process is one rank of an env:// launch (torchrun and friends)."""
    return all(key in os.environ for key in _ENV_KEYS)


def env_world() -> int:
    return int(os.environ["WORLD_SIZE"])


class EnvGroup:
    """The pool interface over the process group this process joined through env://."""

    start_method = "env"
    start_seconds = 0.0

    def __init__(self, world: int, backend: str = "gloo", *, timeout_s: float | None = None):
        tier_of(backend)
        if not under_torchrun():
            raise BackendUnavailableError(
                "env:// mode needs RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT",
                location="environment", fix="launch with torchrun, or use rank_pool()")
        if env_world() != world:
            raise BackendUnavailableError(
                f"torchrun started WORLD_SIZE={env_world()} ranks; this case needs world={world}",
                location="environment", fix=f"run it with torchrun --nproc-per-node {world}")
        self.world = world
        self.backend = backend
        self.timeout_s = default_pg_timeout() if timeout_s is None else float(timeout_s)
        self.owner_pid = os.getpid()
        self.tasks_run = 0
        self.rank = int(os.environ["RANK"])
        self._store: Any = None

    @property
    def alive(self) -> bool:
        return self._store is not None

    @property
    def pids(self) -> list[int]:
        return []  # the ranks are torchrun's, not ours

    def describe(self) -> str:
        return f"world={self.world} {self.backend} ({tier_of(self.backend)}, env://)"

    def start(self) -> EnvGroup:
        import torch
        import torch.distributed as dist

        if not dist.is_initialized():
            options: dict[str, Any] = {}
            if self.backend == "nccl":
                local = int(os.environ.get("LOCAL_RANK", self.rank))
                torch.cuda.set_device(local)
                options["device_id"] = torch.device("cuda", local)
            elif self.backend == "gloo-cuda":
                torch.cuda.set_device(torch.device(self._device()))
            dist.init_process_group(TORCH_BACKEND[self.backend], init_method="env://",
                                    timeout=datetime.timedelta(seconds=self.timeout_s), **options)
        elif dist.get_backend() != TORCH_BACKEND[self.backend]:
            raise BackendUnavailableError(
                f"this torchrun process already joined a {dist.get_backend()} group",
                location="environment", fix=f"run the {self.backend} cases in their own torchrun")
        device = f"cuda:{torch.cuda.current_device()}" if uses_cuda(self.backend) else "cpu"
        _rank_main._context = RankContext(self.rank, self.world, self.backend, device)
        store = dist.distributed_c10d._get_default_store()
        self._store = dist.PrefixStore(f"deskcheck/{os.environ.get('TORCHELASTIC_RUN_ID', '')}/",
                                       store)
        return self

    def _device(self) -> str:
        import torch

        local = int(os.environ.get("LOCAL_RANK", self.rank))
        return rank_device(self.backend, local, torch.cuda.device_count())

    def close(self) -> None:
        self._store = None  # the group belongs to torchrun; it ends with the process

    def run(self, fn: Callable[..., Any], *args: Any, per_rank: Sequence[Any] | None = None,
            **kwargs: Any) -> list[Any]:
        return values_or_raise(self.run_outcomes(fn, *args, per_rank=per_rank, **kwargs), fn,
                               self.describe(), self.timeout_s)

    def run_outcomes(self, fn: Callable[..., Any], *args: Any,
                     per_rank: Sequence[Any] | None = None, **kwargs: Any) -> list[RankOutcome]:
        if per_rank is not None and len(per_rank) != self.world:
            raise RankTaskError(f"per_rank has {len(per_rank)} entries for world={self.world}",
                                location=repr(fn), fix="give exactly one entry per rank")
        if self._store is None:
            self.start()
        self.tasks_run += 1
        call_args = ((per_rank[self.rank],) if per_rank is not None else ()) + args
        mine = self._run_here(fn, call_args, kwargs)
        key = f"task{self.tasks_run}/rank"
        self._store.set(f"{key}{self.rank}", pickle.dumps(mine))
        deadline = time.monotonic() + self.timeout_s + GRACE_S
        outcomes: dict[int, RankOutcome] = {self.rank: mine}
        while len(outcomes) < self.world and time.monotonic() < deadline:
            for r in range(self.world):
                if r not in outcomes and self._store.check([f"{key}{r}"]):
                    outcomes[r] = pickle.loads(self._store.get(f"{key}{r}"))
            time.sleep(0.002)
        return [outcomes.get(r) or RankOutcome(r, 0, hung=True,
                                               stack="(another host's rank: no stack)")
                for r in range(self.world)]

    def _run_here(self, fn: Callable[..., Any], args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> RankOutcome:
        started = time.perf_counter()
        try:
            value = fn(*args, **kwargs)
            pickle.dumps(value)
            failure = None
        except BaseException as exc:  # noqa: B036 - reported to every rank
            value, failure = None, _rank_main._failure(exc)
        sys.stdout.flush()
        return RankOutcome(self.rank, os.getpid(), value=value, failure=failure,
                           collectives=collective_count(),
                           seconds=time.perf_counter() - started)
