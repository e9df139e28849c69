"""The METAL backends: NCCL (one GPU per rank) and gloo over CUDA tensors (ranks share the GPUs).

What can be shown on a CPU is shown here (the reasons, the device mapping, the hang arm on
gloo); what needs a GPU runs where one is visible and skips elsewhere with its reason.
"""

from __future__ import annotations

import re

import pytest
import torch.distributed

from deskcheck.cli import main
from deskcheck.errors import BackendUnavailableError
from deskcheck.suites import RankPool, backend_unavailable_reason, tier_of
from deskcheck.suites import backends as B
from deskcheck.suites.commands import hang_arm


def test_gloo_cuda_without_a_gpu_is_refused_with_the_precise_reason(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    reason = backend_unavailable_reason("gloo-cuda", 2)
    assert reason == "gloo-cuda needs CUDA and this machine shows no GPU (CUDA_VISIBLE_DEVICES='')", (
        "gloo-cuda with CUDA_VISIBLE_DEVICES='' must be refused with the precise reason; it says "
        f"{reason!r}"
    )
    with pytest.raises(BackendUnavailableError, match="gloo-cuda needs CUDA"):
        RankPool(2, "gloo-cuda").start()


def test_on_one_gpu_gloo_cuda_runs_three_ranks_where_nccl_runs_one(monkeypatch):
    monkeypatch.setattr(B, "cuda_device_count", lambda: (1, "counted through NVML"))
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: True)
    assert backend_unavailable_reason("nccl", 1) is None, (
        "nccl world=1 on one GPU must not be refused; reason "
        f"{backend_unavailable_reason('nccl', 1)!r}"
    )
    assert backend_unavailable_reason("nccl", 2) == (
        "nccl needs one GPU per rank (NCCL refuses two ranks on one GPU): world=2 but 1 GPU(s) "
        "visible (counted through NVML)"), (
        "nccl world=2 on one GPU must be refused naming both numbers; reason "
        f"{backend_unavailable_reason('nccl', 2)!r}"
    )
    for world in (1, 2, 3):
        assert backend_unavailable_reason("gloo-cuda", world) is None, (
            f"gloo over CUDA tensors must run world={world} on one GPU (ranks share it)")


def test_gloo_cuda_ranks_share_the_gpus_round_robin_and_are_metal():
    assert [B.rank_device("gloo-cuda", r, 1) for r in range(3)] == ["cuda:0"] * 3, (
        "gloo-cuda ranks on one GPU must all use cuda:0; they use "
        f"{[B.rank_device('gloo-cuda', r, 1) for r in range(3)]}"
    )
    assert [B.rank_device("gloo-cuda", r, 2) for r in range(3)] == ["cuda:0", "cuda:1", "cuda:0"], (
        "gloo-cuda ranks on two GPUs must share them round robin; they use "
        f"{[B.rank_device('gloo-cuda', r, 2) for r in range(3)]}"
    )
    assert B.rank_device("nccl", 1, 2) == "cuda:1", (
        f"nccl rank 1 of 2 GPUs must use cuda:1; it uses {B.rank_device('nccl', 1, 2)!r}"
    )
    assert B.rank_device("gloo", 1, 4) == "cpu", "a DESK rank never computes on a GPU"
    assert (tier_of("gloo-cuda"), tier_of("nccl"), tier_of("gloo")) == ("METAL", "METAL", "DESK"), (
        "gloo-cuda and nccl must be METAL, gloo DESK; they are "
        f"{(tier_of('gloo-cuda'), tier_of('nccl'), tier_of('gloo'))}"
    )
    assert B.TORCH_BACKEND["gloo-cuda"] == "gloo", (
        f"gloo-cuda must run torch's gloo backend; it runs {B.TORCH_BACKEND['gloo-cuda']!r}"
    )


def test_doctor_runs_the_hang_arm_and_names_the_rank_that_skipped(capsys):
    assert main(["suites", "doctor", "--backend", "gloo", "--world", "1", "--world", "2",
                 "--hang", "--hang-timeout", "2"]) == 0, (
        "`suites doctor --backend gloo --world 1 --world 2 --hang` must exit 0; it said:\n"
        f"{capsys.readouterr()}"
    )
    out = capsys.readouterr().out
    assert "hang arm skipped: the hang arm needs world >= 2" in out, out
    # the ordinal (`#1`) is there when the waiting rank's collective count reached the parent
    # before the timeout killed it; under load it may not have (the message then omits it)
    assert re.search(r"rank 1 skipped all_reduce( #1)?: returned after 0 collectives while "
                     r"ranks? 0 waited", out), (
        f"the hang arm must name rank 1 as the rank that skipped, rank 0 as the one waiting:\n{out}")
    assert "first split: deskcheck/suites/commands.py:" in out and \
        "in skip_all_reduce_on: if rank_context().rank == skipper" in out, \
        f"the hang arm must name the decision where the skipping rank left the others:\n{out}"
    assert "rank 0: false (skipper=1)" in out and "rank 1: true (skipper=1)" in out, out


@pytest.mark.world(2, 3)
@pytest.mark.backend("nccl", "gloo-cuda")
def test_the_hang_arm_names_the_skipping_rank_on_the_gpu(world, backend):
    reason = backend_unavailable_reason(backend, world)
    if reason:
        pytest.skip(reason)
    row = hang_arm(backend, world, 3.0)
    assert row["ok"], f"the {backend} hang arm at world {world} failed: {row}"
    assert f"rank {world - 1} skipped all_reduce" in row["message"], row["message"]


@pytest.mark.world(1, 2, 3)
@pytest.mark.backend("nccl", "gloo-cuda")
def test_a_group_reduces_cuda_tensors(rank_pool, world, backend):
    from deskcheck.suites.commands import probe_all_reduce

    assert rank_pool.run(probe_all_reduce, per_rank=list(range(1, world + 1))) == \
        [world * (world + 1) // 2] * world, f"{backend} all_reduce over the GPUs went wrong"
