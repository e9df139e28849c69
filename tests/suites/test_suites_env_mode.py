"""env:// mode: the same task API when torchrun (or anything setting RANK/WORLD_SIZE/MASTER_*)
started the ranks. Exercised with a real env:// rendezvous between two forked processes."""

from __future__ import annotations

import os
import pickle
import socket

import pytest

from deskcheck.errors import BackendUnavailableError, RankAssertionError
from deskcheck.suites import EnvGroup, rank_pool, under_torchrun
from tests.suites import _decisions as D

pytestmark = pytest.mark.xdist_group("deskcheck-suites")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_torchrun_rank(rank: int, world: int, port: int, write_fd: int) -> None:
    """Child body: behave like one torchrun worker and report what the group saw."""
    code = 1
    try:
        os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                          MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                          GLOO_SOCKET_IFNAME="lo", CUDA_VISIBLE_DEVICES="")
        group = rank_pool(world, "gloo", timeout_s=5.0)
        report: dict = {"kind": type(group).__name__,
                        "sum": group.run(D.all_reduce_sum, per_rank=[1, 2]),
                        "who": group.run(D.whoami)}
        try:
            group.run(D.assert_below, 1, per_rank=[0, 1])
        except RankAssertionError as exc:
            report["failure"] = str(exc).splitlines()[0]
        # another world inside a torchrun worker: a local pool forked from a process that
        # already joined a group
        local = rank_pool(1, "gloo")
        report["local"] = (type(local).__name__, local.run(D.whoami))
        local.close()
        os.write(write_fd, pickle.dumps(report))
        code = 0
    finally:
        os._exit(code)


def test_env_mode_runs_the_same_tasks_and_every_rank_judges_the_same_outcomes():
    port, world = _free_port(), 2
    pipes, pids = [], []
    for rank in range(world):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _as_torchrun_rank(rank, world, port, write_fd)
        os.close(write_fd)
        pipes.append(read_fd)
        pids.append(pid)
    reports = []
    for read_fd, pid in zip(pipes, pids, strict=True):
        with os.fdopen(read_fd, "rb") as reader:
            data = reader.read()
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, (
            "a torchrun-style rank process must exit 0; it exited "
            f"{os.waitstatus_to_exitcode(status)}"
        )
        reports.append(pickle.loads(data))
    for rank, report in enumerate(reports):
        assert report["kind"] == "EnvGroup", (
            f"under torchrun env the pool must be an EnvGroup; rank {rank} got {report['kind']}"
        )
        assert report["sum"] == [3, 3], (
            f"all_reduce over the env group must sum to 3 on each rank; rank {rank} got "
            f"{report['sum']}"
        )
        assert report["who"] == [(0, 2, "gloo", 2), (1, 2, "gloo", 2)], (
            f"each rank must run the tasks as (rank, world 2, gloo, 2); rank {rank} got "
            f"{report['who']}"
        )
        assert report["local"] == ("RankPool", [(0, 1, "gloo", 1)]), (
            f"a world=1 pool inside env mode must be a local RankPool; rank {rank} got "
            f"{report['local']}"
        )
        assert report["failure"].endswith(
            "assert_below on world=2 gloo (DESK, env://): rank 1 raised AssertionError: "
            "value 1 is not below 1"), (rank, report["failure"])


def test_env_mode_refuses_a_world_torchrun_did_not_start(monkeypatch):
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "1")
    assert under_torchrun(), (
        "RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set must count as under torchrun"
    )
    with pytest.raises(BackendUnavailableError, match="torchrun started WORLD_SIZE=2 ranks; "
                                                      "this case needs world=3"):
        EnvGroup(3)


def test_outside_torchrun_env_mode_says_how_to_launch(monkeypatch):
    monkeypatch.delenv("MASTER_PORT", raising=False)
    with pytest.raises(BackendUnavailableError, match="env:// mode needs RANK"):
        EnvGroup(2)


@pytest.mark.parametrize("missing", ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"])
def test_env_mode_needs_all_four_variables(monkeypatch, missing):
    for key, value in (("RANK", "0"), ("WORLD_SIZE", "2"), ("MASTER_ADDR", "127.0.0.1"),
                       ("MASTER_PORT", "1")):
        monkeypatch.setenv(key, value)
    monkeypatch.delenv(missing)
    assert not under_torchrun(), (
        "rank_pool() returns torchrun's group only when RANK, WORLD_SIZE, MASTER_ADDR and "
        f"MASTER_PORT are all set (docs/suites.md:66); with {missing} unset it still took this "
        "process for a torchrun worker")
