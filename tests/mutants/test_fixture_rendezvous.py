"""The gloo world of the sweep fixture (tests/mutants/fixtures/proj, run by the sweep tests
for real) leaves nothing on disk even when it is killed mid-run, as a sweep kills a hung
mutant's check (the brief: nothing left behind, even after kill -9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from tests.mutants.conftest import FIXTURE

WAIT_S = 120.0  # a generous bound on two ranks meeting under load, not a timing margin


def test_a_killed_gloo_world_of_the_fixture_leaves_no_file_in_the_temp_folder(tmp_path):
    temp = tmp_path / "tmp"
    markers = tmp_path / "markers"
    temp.mkdir()
    markers.mkdir()
    script = textwrap.dedent(f'''
        import os, sys, time
        sys.path.insert(0, {str(FIXTURE)!r})
        from fixpkg import dist as decisions, ranks

        def hang(local):  # both ranks have met: say so, then hang like a broken rank
            open(os.path.join({str(markers)!r}, str(local)), "w").close()
            time.sleep(600)

        decisions.agreed_budget = hang
        ranks.run_world(2, "fork")
    ''')
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True,
                            env={**os.environ, "TMPDIR": str(temp)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + WAIT_S
        while len(list(markers.iterdir())) < 2:
            if proc.poll() is not None:
                raise AssertionError("the fixture's gloo world exited before its two ranks met: "
                                     + proc.stderr.read().decode()[-800:])
            assert time.monotonic() < deadline, (
                f"the fixture's two gloo ranks did not meet within {WAIT_S:.0f} s")
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    left = sorted(p.name for p in temp.iterdir())
    assert left == [], (
        "the fixture's gloo world, killed with SIGKILL after its ranks met, left "
        f"{left} in the temp folder: its rendezvous must leave nothing on disk (a TCP store "
        "the launcher holds, not a file:// store)")
