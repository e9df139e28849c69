"""A decision that runs on CUDA tensors inside rank processes: the METAL sweep's target.

Module level on purpose: ranks import it by reference, so in spawned ranks the mutant arrives
through the import hook (``DESKCHECK_MUTANT``), not through fork's copied memory.
"""

from __future__ import annotations

import os

import torch
import torch.distributed as dist

from deskcheck.suites import rank_context


def group_min_on_device(free: int) -> tuple[int, str]:
    """The group MIN of every rank's free slots, reduced as a tensor on this rank's device;
    returns the agreed value and the device it was computed on."""
    device = rank_context().device
    t = torch.tensor([free], dtype=torch.int64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return int(t.item()), str(t.device)


def cuda_state() -> tuple[str | None, str, int]:
    """(CUDA_VISIBLE_DEVICES, the rank's device, GPUs it sees): run in a rank."""
    return os.environ.get("CUDA_VISIBLE_DEVICES"), rank_context().device, torch.cuda.device_count()
