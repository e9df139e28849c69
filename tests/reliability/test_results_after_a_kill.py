"""Item 1: ``deskcheck results`` (and every summary, ``history``) is honest about what was
judged. The battery's three kinds of end — completed, interrupted (SIGINT), killed
(SIGKILL) — each give ``results`` an exit status that says whether every planned mutant was
judged and held; a run that did not complete is named, with the count never judged."""

from __future__ import annotations

import json
import signal
import sqlite3

import pytest

from tests.reliability.battery import Bench, wait_for

pytestmark = pytest.mark.xdist_group("reliability-results")

MODULE = '''
def first(values):
    return sum(values)


def second(values):
    return max(values)


def third(values):
    return min(values)
'''

OWNERS = '''
import os
import time

from kpkg.mod import first, second, third


def test_first():
    assert first([1, 2]) == 3


def test_second():
    if second([1, 2]) != 2 and os.environ.get("BLOCK_AT"):
        open(os.environ["BLOCK_AT"], "w").close()  # the sweep is inside the mutants phase
        time.sleep(3600)  # until the case signals the sweep
    assert second([1, 2]) == 2


def test_third():
    assert third([1, 2]) == 1
'''


def _mutant(name: str, old: str, new: str) -> str:
    return (f'\n[[mutant]]\nid = "k.{name}"\ntitle = "{name} changed"\n'
            f'target = "kpkg.mod:{name}"\noperator = "replace"\nold = "{old}"\nnew = "{new}"\n'
            f'owners = ["tests/test_mod.py::test_{name}"]\n')


CATALOG = '[sweep]\ntests = ["tests"]\n' + "".join([
    _mutant("first", "return sum(values)", "return sum(values) + 1"),
    _mutant("second", "return max(values)", "return min(values)"),
    _mutant("third", "return min(values)", "return max(values)")])


def _project(bench: Bench) -> None:
    bench.write({"kpkg/mod.py": MODULE, "tests/test_mod.py": OWNERS, "mutants.toml": CATALOG})
    bench.commit("three mutants")
    bench.snapshot()


def _stored_verdicts(bench: Bench) -> dict[int, int]:
    """Verdicts per run, read from the store file itself (not through deskcheck)."""
    with sqlite3.connect(bench.root / ".deskcheck" / "results.sqlite") as db:
        return dict(db.execute("SELECT run_id, COUNT(*) FROM mutants GROUP BY run_id"))


def _end(bench: Bench, how: str) -> str:
    """Run a sweep to the end ``how`` says: ``completed``, ``interrupted`` or ``killed``."""
    if how == "completed":
        done = bench.run("sweep", "--workers", "1")
        assert done.returncode == 0, f"the sweep should hold:\n{done.stdout}{done.stderr}"
        return done.stdout + done.stderr
    ready = bench.base / f"blocked-{how}"
    sweep = bench.start("sweep", "--workers", "1", BLOCK_AT=str(ready))
    wait_for(ready, sweep)
    sweep.send_signal(signal.SIGINT if how == "interrupted" else signal.SIGKILL)
    out, _ = sweep.communicate(timeout=300)
    expected = 130 if how == "interrupted" else -signal.SIGKILL
    assert sweep.returncode == expected, f"the {how} sweep exited {sweep.returncode}:\n{out}"
    return out


@pytest.mark.parametrize(("how", "exit_status", "words"), [
    ("completed", 0, "0 of 3 mutants do not hold"),
    ("interrupted", 1, "interrupted"),
    ("killed", 1, "interrupted"),
])
def test_results_exit_status_is_honest_about_what_was_judged(
        bench: Bench, how: str, exit_status: int, words: str) -> None:
    _project(bench)
    _end(bench, how)
    judged = sum(_stored_verdicts(bench).values())
    done = bench.run("results")
    assert done.returncode == exit_status, (
        f"after a {how} sweep with {judged} of 3 mutants judged, `deskcheck results` exited "
        f"{done.returncode}, expected {exit_status}:\n{done.stdout}{done.stderr}")
    assert words in done.stderr, f"`results` after a {how} sweep does not say {words!r}:\n" \
        f"{done.stderr}"
    if how != "completed":
        assert f"{3 - judged} of 3 mutants never judged" in done.stderr, (
            f"`results` does not count the {3 - judged} mutant(s) never judged:\n{done.stderr}")
    history = json.loads(bench.run("history", "--json", "-").stdout)[-1]
    assert history["summary"]["total"] == judged and history["summary"]["planned"] == 3, (
        f"history's summary of the {how} run says {history['summary']}, the store holds "
        f"{judged} verdicts of 3 planned")
    _resume_to_the_end(bench)


def _resume_to_the_end(bench: Bench) -> None:
    """The next sweep resumes the run (and reaps what a killed one left in TMPDIR); then
    ``results`` holds."""
    done = bench.run("sweep", "--workers", "1")
    assert done.returncode == 0, f"the resuming sweep should hold:\n{done.stdout}{done.stderr}"
    results = bench.run("results")
    assert results.returncode == 0 and "0 of 3 mutants do not hold" in results.stderr, (
        f"`results` after the run was completed:\n{results.stderr}")


def test_a_killed_resumed_run_is_summarised_from_its_stored_verdicts(bench: Bench) -> None:
    """Interrupted, then resumed and killed: history's summary counts what the store holds
    (it was the interrupted run's stale summary)."""
    _project(bench)
    _end(bench, "interrupted")
    (bench.base / "blocked-interrupted").unlink()
    ready = bench.base / "blocked-again"
    sweep = bench.start("sweep", "--workers", "1", BLOCK_AT=str(ready))
    wait_for(ready, sweep)
    sweep.kill()
    sweep.communicate(timeout=300)
    stored = _stored_verdicts(bench)
    runs = json.loads(bench.run("history", "--json", "-").stdout)
    assert len(runs) == 1, f"the second sweep did not resume the interrupted run: {runs}"
    summary = runs[0]["summary"]
    assert runs[0]["status"] == "interrupted", runs[0]
    assert summary["total"] == stored[runs[0]["id"]], (
        f"history summarises the killed run as {summary}, but the store holds "
        f"{stored[runs[0]['id']]} verdicts for it (a stale summary)")
    assert summary["never_judged"] == 3 - summary["total"], summary
    _resume_to_the_end(bench)
