"""Items 2-4: a target module that forks or exits at import, and a test configuration that
replaces ``os.fork``. Each sweep ends with a proper result or a ``file:line`` error, and
leaves no process, no temp entry and the tree as it was."""

from __future__ import annotations

import pytest

from tests.reliability.battery import Bench

pytestmark = pytest.mark.xdist_group("reliability-hostile")

FORKS_AT_IMPORT = '''import os
import time

if os.fork() == 0:  # a helper process started at import, never stopped by the module
    time.sleep(3600)
    os._exit(0)


def total(values):
    return sum(values)
'''


@pytest.mark.parametrize("store", [True, False], ids=["with-store", "no-store"])
def test_a_target_that_forks_at_import_leaves_no_process(bench: Bench, store: bool) -> None:
    bench.write({"kpkg/mod.py": FORKS_AT_IMPORT})
    bench.commit("a target that forks at import")
    bench.snapshot()
    done = bench.run("sweep", "--workers", "1", *([] if store else ["--no-store"]))
    assert done.returncode == 0, f"the sweep should hold:\n{done.stdout}{done.stderr}"
    assert "outlived the import and were stopped" in done.stderr, (
        f"the process the target started at import was not reported:\n{done.stderr}")
    assert "kpkg/mod.py:4" in done.stderr, (
        f"the report does not name the line that forked (kpkg/mod.py:4):\n{done.stderr}")
    # bench's teardown: no process carrying this case's marker is left


REPLACES_FORK = '''import os


def _fork_refused():  # gevent.monkey.patch_all() replaces os.fork the same way
    raise RuntimeError("os.fork is replaced by this conftest")


os.fork = _fork_refused
'''


def test_a_conftest_that_replaces_os_fork_does_not_break_the_runner(bench: Bench) -> None:
    bench.write({"tests/conftest.py": REPLACES_FORK})
    bench.commit("a conftest replacing os.fork")
    bench.snapshot()
    done = bench.run("sweep", "--workers", "1", "--no-store")
    assert "INTERNALERROR" not in done.stdout + done.stderr, (
        f"the runner used the conftest's os.fork:\n{done.stderr[-3000:]}")
    assert done.returncode == 0 and "1 KILLED" in done.stdout, (
        f"the sweep should hold with the real fork:\n{done.stdout}{done.stderr[-3000:]}")


EXITS_AT_IMPORT = '''import sys

sys.exit("no configuration found")


def total(values):
    return sum(values)
'''


def test_a_target_that_exits_at_import_is_a_file_line_error(bench: Bench) -> None:
    bench.write({"kpkg/mod.py": EXITS_AT_IMPORT})
    bench.commit("a target that exits at import")
    bench.snapshot()
    for args in (["--no-store"], []):
        done = bench.run("sweep", "--workers", "1", *args)
        out = done.stdout + done.stderr
        assert "INTERNALERROR" not in out and "could not collect the test universe" not in out, (
            f"sys.exit at import was reported as pytest's failure:\n{out[-3000:]}")
        assert done.returncode == 2, f"exit {done.returncode}, expected 2:\n{out[-3000:]}"
        assert "mutants.toml:4" in done.stderr and "kpkg/mod.py:3" in done.stderr \
            and "sys.exit('no configuration found')" in done.stderr, (
                f"the error does not name the catalog entry and the line that exits:\n"
                f"{done.stderr}")
