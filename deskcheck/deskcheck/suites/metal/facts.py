"""What the machine is: GPUs, driver, Python, torch, CUDA, NCCL, and which modules are missing.

Run as ``python -m deskcheck.suites.metal.facts [MODULE ...]`` in its own process (the runner
gives it a timeout, so a hung driver is reported, not fatal); prints one JSON object. Counting
GPUs goes through NVML (:func:`deskcheck.suites.backends.cuda_device_count`); GPU names come
from ``nvidia-smi``, else from torch in this throwaway process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
from typing import Any

SMI_QUERY = "name,driver_version,memory.total"


def _nvidia_smi() -> tuple[list[dict[str, Any]], str | None]:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return [], None
    try:
        done = subprocess.run([smi, f"--query-gpu={SMI_QUERY}", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return [], None
    gpus, driver = [], None
    for line in done.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            gpus.append({"name": parts[0], "memory_mib": int(float(parts[2] or 0))})
            driver = parts[1]
    return gpus, driver


def _proc_driver() -> str | None:
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as handle:
            first = handle.readline()
    except OSError:
        return None
    words = [w for w in first.split() if w[:1].isdigit() and "." in w]
    return words[0] if words else None


def _torch_facts(gpus: list[dict[str, Any]]) -> dict[str, Any]:
    from deskcheck.suites.backends import backend_unavailable_reason, cuda_device_count

    try:
        import torch
        import torch.distributed as dist
    except ImportError as exc:
        return {"torch": None, "torch_error": str(exc), "gpu_count": 0,
                "count_how": "torch is not installed"}
    facts: dict[str, Any] = {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
                             "gloo": dist.is_available() and dist.is_gloo_available(),
                             "nccl": None}
    count, how = cuda_device_count()
    facts.update(gpu_count=count, count_how=how)
    if torch.version.cuda is not None:
        try:
            facts["nccl"] = ".".join(str(p) for p in torch.cuda.nccl.version())
        except Exception as exc:  # a CUDA build without NCCL
            facts["nccl_error"] = str(exc)
    if count and not gpus:  # no nvidia-smi: ask torch (this process is thrown away)
        gpus.extend({"name": torch.cuda.get_device_name(i), "memory_mib": int(
            torch.cuda.get_device_properties(i).total_memory // 2**20)} for i in range(count))
    facts["unavailable"] = {f"{backend}-w{world}": backend_unavailable_reason(backend, world)
                            for backend in ("nccl", "gloo-cuda")
                            for world in range(1, max(3, count) + 1)}
    return facts


def machine_facts(modules: list[str]) -> dict[str, Any]:
    """Everything the plan needs to decide what runs here; see the module docstring."""
    gpus, driver = _nvidia_smi()
    facts: dict[str, Any] = {
        "host": platform.node(), "machine": platform.machine(),
        "python": platform.python_version(), "executable": sys.executable,
        "cpus": os.cpu_count() or 1,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    facts.update(_torch_facts(gpus))
    facts["gpus"] = gpus
    facts["driver"] = driver or _proc_driver()
    facts["missing_modules"] = sorted(m for m in modules if importlib.util.find_spec(m) is None)
    return facts


if __name__ == "__main__":
    print(json.dumps(machine_facts(sys.argv[1:])))
