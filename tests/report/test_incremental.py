"""Incremental sweeps: a verdict is reused exactly while nothing it depends on changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.report.fingerprint import mutant_fingerprint
from deskcheck.report.locations import function_span
from deskcheck.report.recorder import RunRecorder
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store

MODULE = '''def queue_head_digest(rids, depth=4):
    head = rids[:depth]
    return hash(tuple(head)) if head else 0


def batch_decision(local_limit, group_min):
    return min(local_limit, group_min)


class Scheduler:
    def get_num_allocatable_reqs(self):
        return self.max_running - len(self.running)
'''

CATALOG = [
    {"id": "ballot.M1", "target": "pkg.mod:queue_head_digest", "operator": "offset",
     "owners": ["tests/test_ballot.py::test_depth"]},
    {"id": "ballot.M2", "target": "pkg.mod:queue_head_digest", "operator": "return",
     "owners": ["tests/test_ballot.py::test_empty"]},
    {"id": "congruence.M1", "target": "pkg.mod:batch_decision", "operator": "swap",
     "owners": ["tests/test_congruence.py::test_min"]},
    {"id": "congruence.M2", "target": "pkg.mod:batch_decision", "operator": "offset",
     "owners": ["tests/test_congruence.py::test_min"]},
    {"id": "budget.M1", "target": "pkg.mod:Scheduler.get_num_allocatable_reqs",
     "operator": "offset", "owners": ["tests/test_budget.py::test_room"]},
]


class FakeRunner:
    """Stands in for the sweep's per-mutant run: records which mutants actually ran."""

    def __init__(self, survivors: frozenset[str] = frozenset()):
        self.ran: list[str] = []
        self.survivors = survivors

    def __call__(self, definition: dict, fingerprint: str) -> MutantRecord:
        self.ran.append(definition["id"])
        survived = definition["id"] in self.survivors
        return MutantRecord(id=definition["id"], title="", target=definition["target"],
                            operator=definition["operator"],
                            verdict="SURVIVED" if survived else "KILLED",
                            owners=definition["owners"],
                            killed_by=[] if survived else definition["owners"],
                            fingerprint=fingerprint)


def sweep(root: Path, runner: FakeRunner, *, version: str = "0.1.0",
          incremental: bool = True, catalog: list[dict] = CATALOG) -> list[str]:
    text = (root / "pkg" / "mod.py").read_text()
    lines = text.splitlines(keepends=True)
    with Store.for_project(root) as store, RunRecorder(
            store, RunRecord(kind="sweep", commit="c1"), incremental=incremental) as recorder:
        for definition in catalog:
            first, last = function_span(text, definition["target"])
            owner_files = [root / o.split("::")[0] for o in definition["owners"]]
            fingerprint = mutant_fingerprint(definition, "".join(lines[first - 1:last]),
                                             owner_files, version)
            if recorder.reuse(definition["id"], fingerprint) is None:
                recorder.record(runner(definition, fingerprint))
    return runner.ran


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    (tmp_path / "tests").mkdir()
    for name in ("test_ballot.py", "test_congruence.py", "test_budget.py"):
        (tmp_path / "tests" / name).write_text(f"# {name}\ndef test_x():\n    pass\n")
    return tmp_path


def test_second_run_without_change_reuses_every_verdict(repo: Path):
    assert sweep(repo, FakeRunner()) == [d["id"] for d in CATALOG], (
        "the first sweep must run every mutant of the catalog"
    )
    assert sweep(repo, FakeRunner()) == [], (
        "a second sweep with nothing changed re-ran mutants: every verdict must be reused"
    )
    with Store.for_project(repo) as store:
        last = store.runs()[-1]
        assert last.summary["reused"] == len(CATALOG) and last.status == "holds", (
            f"the second run must reuse all {len(CATALOG)} verdicts and hold; it reused "
            f"{last.summary.get('reused')} and is {last.status!r}"
        )
        assert all(m.reused for m in store.mutants(last.id or 0)), (
            "a mutant of the fully reused run is not marked reused"
        )


def test_changing_one_target_function_reruns_exactly_its_mutants(repo: Path):
    sweep(repo, FakeRunner())
    module = repo / "pkg" / "mod.py"
    module.write_text(module.read_text().replace("min(local_limit, group_min)",
                                                 "min(group_min, local_limit)"))
    assert sweep(repo, FakeRunner()) == ["congruence.M1", "congruence.M2"], (
        "a change inside one target function must re-run exactly its mutants congruence.M1 and "
        "congruence.M2"
    )
    # a change elsewhere in the file (not in any target) re-runs nothing
    module.write_text(module.read_text() + "\n\nUNRELATED = 1\n")
    assert sweep(repo, FakeRunner()) == [], (
        "a change outside every target function re-ran mutants: it must re-run nothing"
    )


def test_a_method_in_a_class_is_a_target_of_its_own(repo: Path):
    sweep(repo, FakeRunner())
    module = repo / "pkg" / "mod.py"
    module.write_text(module.read_text().replace("self.max_running -", "self.max_running  -"))
    assert sweep(repo, FakeRunner()) == ["budget.M1"], (
        "a change inside one method must re-run exactly its mutant budget.M1: a method is a "
        "target of its own"
    )


def test_changing_an_owner_test_file_reruns_the_mutants_it_owns(repo: Path):
    sweep(repo, FakeRunner())
    (repo / "tests" / "test_ballot.py").write_text("def test_depth():\n    assert False\n")
    rerun = sweep(repo, FakeRunner())
    assert rerun == ["ballot.M1", "ballot.M2"], (
        f"after the owner test file tests/test_ballot.py changed, the sweep re-ran {rerun}, "
        f"not the mutants it owns (ballot.M1, ballot.M2): the fingerprint must hold the "
        f"contents of the owners' test files (docs/report.md), not their paths")


def test_changing_a_definition_or_the_version_or_no_incremental(repo: Path):
    sweep(repo, FakeRunner())
    edited = [dict(d) for d in CATALOG]
    edited[4]["operator"] = "return"
    assert sweep(repo, FakeRunner(), catalog=edited) == ["budget.M1"], (
        "editing one mutant definition (budget.M1) must re-run exactly that mutant"
    )
    assert sweep(repo, FakeRunner(), version="0.2.0") == [d["id"] for d in CATALOG], (
        "a new deskcheck version must re-run every mutant"
    )
    assert sweep(repo, FakeRunner(), incremental=False) == [d["id"] for d in CATALOG], (
        "incremental=False (--no-incremental) must re-run every mutant"
    )


def test_survivors_are_never_reused(repo: Path):
    sweep(repo, FakeRunner(survivors=frozenset({"ballot.M2"})))
    rerun = sweep(repo, FakeRunner(survivors=frozenset({"ballot.M2"})))
    assert rerun == ["ballot.M2"], (
        f"the second sweep re-ran {rerun}; it must re-run exactly the recorded survivor "
        f"ballot.M2 (a SURVIVED verdict is never reused) and reuse every kill")


def test_recorder_closes_runs_and_resumes_after_an_error(repo: Path):
    record = MutantRecord(id="ballot.M1", title="", target="pkg.mod:queue_head_digest",
                          operator="offset", verdict="KILLED")
    with Store.for_project(repo) as store:
        with pytest.raises(RuntimeError, match="worker pool died"), \
                RunRecorder(store, RunRecord(kind="sweep")) as rec:
            rec.record(record)
            raise RuntimeError("worker pool died")
        assert store.run(rec.run_id).status == "error", (
            f"a run that raised must be recorded as error; it is {store.run(rec.run_id).status!r}"
        )
        with RunRecorder(store, RunRecord(kind="sweep")) as again:
            assert again.resumed and again.run_id == rec.run_id, (
                f"the next run must resume the errored run {rec.run_id}; resumed={again.resumed}, "
                f"run {again.run_id}"
            )
            assert again.is_done("ballot.M1") and not again.is_done("ballot.M2"), (
                "the resumed run must count ballot.M1 (recorded) done and ballot.M2 (not "
                "recorded) not done"
            )
        assert store.run(rec.run_id).status == "holds", (
            f"the resumed run that finished must hold; it is {store.run(rec.run_id).status!r}"
        )
        assert store.run(rec.run_id).summary["resumed"] is True, (
            "a resumed run must say resumed: true in its summary; summary "
            f"{store.run(rec.run_id).summary}"
        )
        with pytest.raises(KeyboardInterrupt), RunRecorder(store, RunRecord(kind="sweep")) as r:
            raise KeyboardInterrupt
        assert store.run(r.run_id).status == "interrupted" and r.run_id != rec.run_id, (
            "a run stopped by KeyboardInterrupt must be a new run recorded as interrupted; it is "
            f"run {r.run_id}, {store.run(r.run_id).status!r}"
        )
        fresh = RunRecorder(store, RunRecord(kind="sweep"), resume=False)
        assert not fresh.resumed and fresh.run_id not in (rec.run_id, r.run_id), (
            f"resume=False must begin a fresh run; resumed={fresh.resumed}, run {fresh.run_id}"
        )
