"""Real processes: two concurrent writers, and a kill -9 mid-run followed by a resume."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store

WRITER = Path(__file__).with_name("writer_process.py")
pytestmark = pytest.mark.xdist_group("report-processes")


def _writer(db: Path, label: str, count: int, mode: str, pause: float = 0.0):
    return subprocess.Popen([sys.executable, str(WRITER), str(db), label, str(count), mode,
                             str(pause)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _integrity(db: Path) -> str:
    with sqlite3.connect(db) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def test_two_concurrent_writers_lose_no_verdict(tmp_path: Path):
    db = tmp_path / ".deskcheck" / "results.sqlite"
    count = 150
    first, second = _writer(db, "a", count, "fresh"), _writer(db, "b", count, "fresh")
    outputs = [p.communicate(timeout=120) for p in (first, second)]
    for process, (out, err) in zip((first, second), outputs, strict=True):
        assert process.returncode == 0, err
        assert out.count("DONE ") == count, (
            f"each concurrent writer must acknowledge all {count} verdicts; it printed "
            f"{out.count('DONE ')}"
        )
    with Store(db) as store:
        runs = store.runs("sweep")
        assert len(runs) == 2, (
            f"two concurrent writers must record two sweep runs; the store has {len(runs)}"
        )
        by_label = {store.mutants(r.id)[0].id.split(".")[0]: r.id for r in runs}
        for label, run_id in by_label.items():
            assert store.finished_ids(run_id) == {f"{label}.M{i}" for i in range(count)}, (
                f"writer {label} lost verdicts: {count - len(store.finished_ids(run_id))} of "
                f"{count} missing"
            )
            assert store.run(run_id).status == "falls_short", (
                f"writer {label}'s run must finish as falls_short; it is "
                f"{store.run(run_id).status!r}"
            )
    assert _integrity(db) == "ok", (
        f"the store must pass PRAGMA integrity_check after two writers; it says {_integrity(db)!r}"
    )


def test_kill_9_mid_run_then_resume_loses_and_redoes_nothing(tmp_path: Path):
    db = tmp_path / ".deskcheck" / "results.sqlite"
    count = 400
    victim = _writer(db, "k", count, "fresh", pause=0.002)
    assert victim.stdout is not None, "the writer process has no stdout pipe"
    run_line = victim.stdout.readline()
    acknowledged: list[str] = []
    while len(acknowledged) < 40:
        line = victim.stdout.readline()
        assert line.startswith("DONE "), line + victim.stderr.read()
        acknowledged.append(line.split()[1])
    os.kill(victim.pid, signal.SIGKILL)
    rest, _ = victim.communicate(timeout=30)
    assert victim.returncode == -signal.SIGKILL, (
        f"the victim must have died of SIGKILL; its return code is {victim.returncode}"
    )
    acknowledged += [line.split()[1] for line in rest.splitlines() if line.startswith("DONE ")]
    run_id = int(run_line.split()[1])
    assert _integrity(db) == "ok", (
        f"the store must pass PRAGMA integrity_check after kill -9; it says {_integrity(db)!r}"
    )
    with Store(db) as store:
        recorded = store.finished_ids(run_id)
        assert store.run(run_id).status == "interrupted", (
            "a run whose owner was killed with SIGKILL reads as interrupted, not running")
    assert set(acknowledged) <= recorded, (
        f"verdicts acknowledged before kill -9 were lost: {sorted(set(acknowledged) - recorded)}"
    )  # every committed verdict survived the kill
    assert len(recorded) < count, (
        f"the writer must be killed mid-run; it recorded all {len(recorded)} of {count}"
    )  # and it really was killed mid-run

    resumer = _writer(db, "k", count, "resume")
    out, err = resumer.communicate(timeout=120)
    assert resumer.returncode == 0, err
    lines = out.splitlines()
    assert lines[0] == f"RUN {run_id}", (
        f"the resume must claim the killed run {run_id}; it said {lines[:1]}"
    )
    redone = {line.split()[1] for line in lines if line.startswith("DONE ")}
    assert not redone & recorded, (
        f"the resume redid finished mutants: {sorted(redone & recorded)[:10]}"
    )  # finished mutants were not redone
    with Store(db) as store:
        assert store.finished_ids(run_id) == {f"k.M{i}" for i in range(count)}, (
            f"the resumed run must finish all {count} mutants; it has "
            f"{len(store.finished_ids(run_id))}"
        )
        assert store.run(run_id).status == "falls_short", (
            f"the resumed run must finish as falls_short; it is {store.run(run_id).status!r}"
        )
        assert len(store.runs()) == 1, (
            f"the resume must reuse the run, not begin another; the store has {len(store.runs())} "
            "runs"
        )
    assert _integrity(db) == "ok", (
        f"the store must pass PRAGMA integrity_check after the resume; it says {_integrity(db)!r}"
    )


def test_a_live_run_is_not_taken_over_by_a_second_process(tmp_path: Path):
    db = tmp_path / ".deskcheck" / "results.sqlite"
    owner = _writer(db, "live", 100_000, "fresh", pause=0.01)
    try:
        assert owner.stdout is not None and owner.stdout.readline().startswith("RUN "), (
            "the owner process must begin its run (print RUN <id>)"
        )
        intruder = _writer(db, "live", 10, "resume")
        out, _ = intruder.communicate(timeout=60)
        assert intruder.returncode == 3 and out.strip() == "NO-RUN", (
            "a second process must not take over a live run: it must exit 3 saying NO-RUN; it "
            f"exited {intruder.returncode}: {out!r}"
        )
    finally:
        owner.kill()
        owner.communicate(timeout=30)


def test_a_forked_worker_records_through_its_own_connection(tmp_path: Path):
    db = tmp_path / ".deskcheck" / "results.sqlite"
    with Store(db) as store:
        run_id = store.begin_run(RunRecord(kind="sweep"))
        children = []
        for index in range(3):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child
                code = 0
                try:
                    for n in range(20):
                        store.record_mutant(run_id, MutantRecord(
                            id=f"fork{index}.M{n}", title="", target="pkg.m:f", operator="swap",
                            verdict="KILLED"))
                    code = 0 if store._pid == os.getpid() else 2  # it reconnected
                except BaseException:
                    code = 1
                os._exit(code)
            children.append(pid)
        store.record_mutant(run_id, MutantRecord(id="parent.M0", title="", target="pkg.m:f",
                                                 operator="swap", verdict="KILLED"))
        codes = [os.waitpid(pid, 0)[1] for pid in children]
        assert codes == [0, 0, 0], (
            "each forked worker must record through its own connection and exit 0; they exited "
            f"{codes}"
        )
        assert len(store.finished_ids(run_id)) == 61, (
            "the 3 forked workers and the parent must record 61 verdicts; the store has "
            f"{len(store.finished_ids(run_id))}"
        )  # the parent's connection still works
    assert _integrity(db) == "ok", (
        "the store must pass PRAGMA integrity_check after forked writers; it says "
        f"{_integrity(db)!r}"
    )


def test_the_main_file_alone_holds_a_finished_run_of_a_process_that_never_closed(
        tmp_path: Path):
    """CI uploads results.sqlite as an artifact: the WAL must be folded back into it."""
    db = tmp_path / "shard" / "results.sqlite"
    script = (
        "import os, sys\n"
        "from deskcheck.report.records import MutantRecord, RunRecord\n"
        "from deskcheck.report.store import Store\n"
        "store = Store(sys.argv[1])\n"  # never closed
        "run = store.begin_run(RunRecord(kind='sweep', shard='1/2'))\n"
        "for n in range(30):\n"
        "    store.record_mutant(run, MutantRecord(id=f'm.M{n}', title='', target='p.m:f',\n"
        "                        operator='swap', verdict='KILLED'))\n"
        "store.finish_run(run, 'holds')\n"
        "os._exit(0)\n")  # no cleanup at all, as a killed or os._exit-ing sweep
    done = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "artifact" / "results.sqlite"
    copy.parent.mkdir()
    copy.write_bytes(db.read_bytes())  # the main file only, as upload-artifact would take it
    with Store(copy) as store:
        (run,) = store.runs()
        assert run.status == "holds" and len(store.finished_ids(run.id)) == 30, (
            "the main file alone (no WAL) must hold the finished run with 30 verdicts; it has "
            f"{run.status!r}, {len(store.finished_ids(run.id))}"
        )


def _open_when_released(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        Store(path)
        results.put("ok")
    except Exception as exc:  # the test reports what each process raised
        results.put(f"{type(exc).__name__}: {exc}")


def test_processes_opening_a_fresh_store_at_once_all_open_it(tmp_path: Path):
    """Four processes released at once on a store no one created yet: each must open it.
    Found by the concurrent-writers test failing in full runs: two processes switching a
    fresh file to WAL can get "database is locked" at once, without the busy timeout
    (19 of 60 rounds of four failed before the switch was retried)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    failures: list[str] = []
    for round_ in range(8):
        path = tmp_path / f"r{round_}" / ".deskcheck" / "results.sqlite"
        path.parent.mkdir(parents=True)
        barrier, results = context.Barrier(4), context.Queue()
        workers = [context.Process(target=_open_when_released, args=(str(path), barrier, results))
                   for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=120)
        failures += [r for r in (results.get(timeout=60) for _ in workers) if r != "ok"]
    assert not failures, (
        f"every process opening a fresh store at once must open it; {len(failures)} of 32 "
        f"failed: {failures[0]}")


class _LockedAtFirst:
    """A connection whose switch to WAL is refused as "database is locked" twice (what a
    second process gets while the first switches a fresh store), then done."""

    def __init__(self) -> None:
        self.mode, self.refused = "delete", 0

    def execute(self, sql: str):
        if sql == "PRAGMA journal_mode = WAL":
            if self.refused < 2:
                self.refused += 1
                raise sqlite3.OperationalError("database is locked")
            self.mode = "wal"
        connection = self

        class _Row:
            def fetchone(self):
                return (connection.mode,)
        return _Row()


def test_a_wal_switch_refused_as_locked_is_tried_again():
    from deskcheck.report.store import _write_ahead

    db = _LockedAtFirst()
    _write_ahead(db)  # type: ignore[arg-type]
    assert db.mode == "wal" and db.refused == 2, (
        f"a WAL switch refused as 'database is locked' (another process is switching the "
        f"fresh store) must be tried again until it holds; mode {db.mode!r} after "
        f"{db.refused} refusals")
