"""Issue 14, case 4: a crash in a process deskcheck did not start is named, not called a hang.

A plain test starts two gloo ranks with ``mp.Process`` (fork, and spawn) and waits ``q.get(timeout=30)``. Under
the mutant every rank raises ``TypeError`` at once; the test then waits. The verdict must
name that crash (process, exception, file:line) and follow the rules for a crash type:
``TypeError`` is in the default ``wrong_failure_types``, so WRONG_FAILURE, never TIMEOUT.
The same for a ``subprocess`` python the test starts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realprojects.project import make_project, run_json

FILES = {
    "userpkg/pick.py": """\
        def pick(values):
            return min(values)
        """,
    "tests/test_ranks.py": """\
        import datetime
        import multiprocessing as mp
        import socket

        import torch
        import torch.distributed as dist

        from userpkg.pick import pick


        def _free_port():
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                return s.getsockname()[1]


        def _rank(rank, world, port, q):
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                    world_size=world, timeout=datetime.timedelta(seconds=60))
            value = torch.tensor([pick([rank + 1, rank + 2])])
            dist.all_reduce(value)
            q.put((rank, int(value.item())))
            dist.destroy_process_group()


        def test_ranks_agree(start_method="fork"):
            ctx = mp.get_context(start_method)
            q = ctx.Queue()
            port = _free_port()
            procs = [ctx.Process(target=_rank, args=(r, 2, port, q)) for r in range(2)]
            for p in procs:
                p.start()
            got = sorted(q.get(timeout=30) for _ in procs)
            for p in procs:
                p.join(timeout=30)
            assert got == [(0, 3), (1, 3)]


        def test_spawned_ranks_agree():
            test_ranks_agree("spawn")
        """,
    "tests/test_subprocess.py": """\
        import subprocess
        import sys


        def test_cli_prints_the_pick():
            done = subprocess.run(
                [sys.executable, "-c", "from userpkg.pick import pick; print(pick([3, 2]))"],
                capture_output=True, text=True, timeout=60)
            assert done.stdout.strip() == "2"
        """,
    "mutants.toml": """\
        [sweep]
        timeout_s = 5.0

        [[mutant]]
        id = "pick.type-error.ranks"
        title = "pick raises TypeError in every rank"
        target = "userpkg.pick:pick"
        operator = "return"
        value = "min(values) + None"
        owners = ["tests/test_ranks.py::test_ranks_agree"]

        [[mutant]]
        id = "pick.type-error.spawn"
        title = "pick raises TypeError in every spawned rank"
        target = "userpkg.pick:pick"
        operator = "return"
        value = "min(values) + None"
        owners = ["tests/test_ranks.py::test_spawned_ranks_agree"]

        [[mutant]]
        id = "pick.type-error.subprocess"
        title = "pick raises TypeError in a subprocess python"
        target = "userpkg.pick:pick"
        operator = "return"
        value = "min(values) + None"
        owners = ["tests/test_subprocess.py"]
        """,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("crash") / "proj", FILES)


@pytest.mark.parametrize(("mutant_id", "process"), [
    ("pick.type-error.ranks", "multiprocessing"),
    ("pick.type-error.spawn", "multiprocessing SpawnProcess"),
    ("pick.type-error.subprocess", "python -c")], ids=["ranks", "spawn", "subprocess"])
def test_the_crash_is_the_verdict_not_a_hang(project: Path, mutant_id: str,
                                             process: str) -> None:
    done, report = run_json(project, "sweep", "--catalog", "mutants.toml", "--no-store",
                            "--workers", "1", "--only", mutant_id)
    output = done.stdout + done.stderr
    (mutant,) = report["mutants"]
    assert mutant["verdict"] == "WRONG_FAILURE", (
        f"{mutant_id}: a process died of TypeError (a wrong_failure_types crash) before the "
        f"owner failed or waited; got {mutant['verdict']}:\n{mutant['excerpt']}\n{output}")
    head = mutant["excerpt"].splitlines()[0]
    assert "TypeError" in head and "userpkg/pick.py:2" in head and process in head, (
        f"{mutant_id}: the verdict names the process, the exception and file:line: {head!r}")
    crashes = mutant["detail"].get("crashes", [])
    assert crashes and crashes[0]["exception"] == "TypeError", mutant["detail"]
    assert crashes[0]["exit_status"] == 1, (
        f"the crashed process's exit status is recorded: {crashes[0]}")
