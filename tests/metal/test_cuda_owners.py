"""Owners of the CUDA mutant catalog (tests/metal/mutants.toml): CUDA code in spawned ranks.

The test process touches CUDA before it starts its pool, so the pool must fall back to
spawned ranks (a forked child of a CUDA process cannot use CUDA), and a mutant reaches those
ranks only through the import hook. Skips, with the reason, where no GPU is visible.
"""

from __future__ import annotations

import pytest

from deskcheck.suites import RankPool, backend_unavailable_reason
from tests.metal import cuda_decisions as C


@pytest.fixture
def spawned_pool(world, backend):
    """A private pool started after this process touched CUDA: spawned ranks."""
    reason = backend_unavailable_reason(backend, world)
    if reason:
        pytest.skip(reason)
    import torch

    torch.zeros(1, device="cuda")  # the parent touches CUDA: forked ranks could not use it
    pool = RankPool(world, backend).start()
    try:
        assert pool.start_method == "spawn", (
            f"the parent initialised CUDA, so the {pool.describe()} ranks must be spawned, but "
            f"they were started with {pool.start_method}")
        yield pool
    finally:
        pool.close()


@pytest.mark.world(1, 2, 3)
@pytest.mark.backend("nccl", "gloo-cuda")
def test_the_group_min_is_reduced_on_each_ranks_gpu(spawned_pool, world):
    free = [5 + 2 * r for r in range(world)][::-1]  # the poorest rank is the last one
    decided = spawned_pool.run(C.group_min_on_device, per_rank=free)
    devices = [device for _, device in decided]
    for rank, device in enumerate(devices):
        assert device.startswith("cuda"), (
            f"rank {rank} computed on {device}: the group MIN must be reduced on the rank's "
            f"GPU, not on the CPU")
    values = [value for value, _ in decided]
    assert values == [min(free)] * world, (
        f"every rank must agree on the poorest rank's {min(free)} free slots, got {values}")


@pytest.mark.world(2, 3)
@pytest.mark.backend("gloo-cuda")
def test_gloo_cuda_ranks_see_the_gpus_and_share_them_round_robin(spawned_pool, world):
    import torch

    gpus = torch.cuda.device_count()
    states = spawned_pool.run(C.cuda_state)
    for rank, (visible, device, count) in enumerate(states):
        assert visible != "" and count == gpus, (
            f"rank {rank} sees {count} GPU(s) (CUDA_VISIBLE_DEVICES={visible!r}) where the "
            f"parent sees {gpus}: gloo-cuda ranks must not be made hermetic like DESK ranks")
        assert device == f"cuda:{rank % gpus}", (
            f"rank {rank} runs on {device}; with {gpus} GPU(s) it must run on "
            f"cuda:{rank % gpus} (ranks share the GPUs round-robin)")
