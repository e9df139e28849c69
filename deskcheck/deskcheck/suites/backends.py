"""Which backends can run here, and why not: decided without touching CUDA in this process.

``gloo`` needs only torch. ``nccl`` needs a CUDA build of torch, NCCL, and one GPU per rank
(NCCL refuses two ranks on one GPU). ``gloo-cuda`` is gloo over CUDA tensors: any number of
ranks share the visible GPUs round-robin (world 2-3 on one GPU), so a machine with fewer GPUs
than ranks still runs device code in every rank. The GPU count is read through NVML where torch offers
it, so a fork-mode pool can still start afterwards; only when NVML is unavailable does the
count initialise the CUDA driver, and then :func:`parent_touched_cuda` makes pools spawn.
"""

from __future__ import annotations

import os
import sys

BACKENDS: tuple[str, ...] = ("gloo", "nccl", "gloo-cuda")
DEFAULT_BACKENDS: tuple[str, ...] = ("gloo", "nccl")  # gloo-cuda is asked for by name
TIERS: dict[str, str] = {"gloo": "DESK", "nccl": "METAL", "gloo-cuda": "METAL"}
TORCH_BACKEND: dict[str, str] = {"gloo": "gloo", "nccl": "nccl", "gloo-cuda": "gloo"}

_driver_touched = False


def tier_of(backend: str) -> str:
    """The evidence tier a backend gives: DESK (CPU, gloo) or METAL (GPU, NCCL)."""
    try:
        return TIERS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}") from None


def uses_cuda(backend: str) -> bool:
    """True when the backend's ranks hold CUDA tensors (every METAL backend)."""
    return tier_of(backend) == "METAL"


def rank_device(backend: str, rank: int, gpus: int) -> str:
    """The device a rank computes on: ``cpu`` for gloo, else ``cuda:<rank mod gpus>``."""
    if not uses_cuda(backend):
        return "cpu"
    return f"cuda:{rank % max(gpus, 1)}"


def torch_unavailable_reason() -> str | None:
    """Why torch (with torch.distributed) cannot be used, or None when it can."""
    try:
        import torch.distributed as dist
    except ImportError as exc:
        return f"torch is not installed ({exc}); install deskcheck[torch]"
    if not dist.is_available():
        return "this torch build has no torch.distributed"
    return None


def cuda_device_count() -> tuple[int, str]:
    """(visible GPU count, how it was counted) without creating a CUDA context if avoidable."""
    global _driver_touched
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() == "":
        return 0, "CUDA_VISIBLE_DEVICES=''"
    import torch

    if torch.version.cuda is None:
        return 0, f"torch {torch.__version__} is a CPU-only build"
    nvml_count = getattr(torch.cuda, "_device_count_nvml", lambda: -1)()
    if nvml_count >= 0:
        return nvml_count, "counted through NVML"
    _driver_touched = True
    return torch.cuda.device_count(), "counted through the CUDA driver"


def backend_unavailable_reason(backend: str, world: int) -> str | None:
    """The precise reason ``world`` ranks cannot run on ``backend`` here, or None when they can."""
    tier_of(backend)
    if world < 1:
        raise ValueError(f"world size must be >= 1, got {world}")
    reason = torch_unavailable_reason()
    if reason:
        return reason
    import torch.distributed as dist

    if TORCH_BACKEND[backend] == "gloo" and not dist.is_gloo_available():
        return "this torch build has no gloo backend"
    if backend == "gloo":
        return None
    count, how = cuda_device_count()
    if count == 0:
        return f"{backend} needs CUDA and this machine shows no GPU ({how})"
    if backend == "gloo-cuda":
        return None  # ranks share the GPUs round-robin
    if not dist.is_nccl_available():
        return "this torch build has no NCCL backend"
    if count < world:
        return (f"nccl needs one GPU per rank (NCCL refuses two ranks on one GPU): "
                f"world={world} but {count} GPU(s) visible ({how})")
    return None


def parent_touched_cuda() -> bool:
    """True when this process has initialised CUDA, so rank processes must be spawned."""
    if _driver_touched:
        return True
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    try:
        return bool(torch.cuda.is_initialized())
    except Exception:  # a torch without a usable cuda module
        return False
