"""``--parallel`` runs both sides at once: they share one probe folder, and a side that
cannot run stops the other at once. Found red in CI: both threads made the probe folder
at the same moment, one of them died of ``FileExistsError`` before starting pytest, and the
gate then waited out the other side's whole run before saying anything."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from deskcheck.errors import GateError
from deskcheck.gate import runner
from deskcheck.gate.runner import SideSpec, run_sides

pytestmark = pytest.mark.xdist_group("gate-parallel")

PROBE_FILES = {"sitecustomize.py", "_deskcheck_gate_redirect.py",
               f"{runner.PROBE_MODULE_NAME}.py"}


def _start_at_once(scratch: Path, sides: int) -> tuple[list[set[str]], list[BaseException]]:
    """``sides`` threads ask for the probe folder of ``scratch`` at the same moment."""
    start = threading.Barrier(sides)
    errors: list[BaseException] = []
    seen: list[set[str]] = []

    def one_side() -> None:
        start.wait()
        try:
            folder = runner._probe_folder(scratch)
            seen.append({p.name for p in folder.iterdir()})
        except BaseException as exc:  # noqa: BLE001 - the test reports what a side died of
            errors.append(exc)

    threads = [threading.Thread(target=one_side) for _ in range(sides)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen, errors


def test_every_side_gets_a_complete_probe_folder_when_all_start_at_once(tmp_path: Path):
    for attempt in range(25):
        scratch = tmp_path / f"scratch-{attempt}"
        scratch.mkdir()
        seen, errors = _start_at_once(scratch, sides=8)
        assert not errors, (f"a side died making the shared probe folder (attempt {attempt}): "
                            f"{errors[0]!r}")
        incomplete = [names for names in seen if not PROBE_FILES <= names]
        assert not incomplete, (f"a side started with an incomplete probe folder (attempt "
                                f"{attempt}): {incomplete[0]}, want {sorted(PROBE_FILES)}")
        leftovers = [p.name for p in scratch.iterdir() if p.name != "probe"]
        assert not leftovers, f"building the probe folder left {leftovers} in the scratch folder"


SLOW = """
import time


def test_sleeps():
    time.sleep(600)
"""


def test_a_side_that_cannot_run_stops_the_other_at_once(tmp_path: Path):
    tests_root = tmp_path / "proj"
    (tests_root / "tests").mkdir(parents=True)
    (tests_root / "tests" / "test_slow.py").write_text(SLOW)
    slow = SideSpec(side="base", label="base", code_root=tests_root, tests_root=tests_root,
                    modules={}, paths=["tests/test_slow.py"])
    missing = tmp_path / "no-such-worktree"
    broken = SideSpec(side="branch", label="branch", code_root=missing, tests_root=missing,
                      modules={}, paths=["tests/test_slow.py"])
    started = time.monotonic()
    with pytest.raises((GateError, OSError)):
        run_sides([slow, broken], tmp_path / "scratch", parallel=True)
    took = time.monotonic() - started
    # 120 s, far below the 600 s the other side sleeps: a margin no load makes flaky
    assert took < 120, (f"the gate waited {took:.0f} s for the other side's run after one side "
                       "could not start; it must stop both at once")
    with runner._LIVE_LOCK:
        assert not runner._LIVE, "a side's pytest child was left running"
