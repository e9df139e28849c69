"""The first decision where ranks split: recorded in each rank, diffed in the parent.

Pure parts first (the diff over recorded decisions, the recorder in this process), then real
gloo ranks: a diverged congruence arm and a rank that skips a gated collective both name the
decision, each rank's way and the values its condition read.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from deskcheck.suites.recorder import record_decisions, show
from deskcheck.suites.split import Decision, first_split, read_records, telling_split
from tests.suites import _split_decisions as S

HERE = S.__file__
pytest_plugins = ["pytester"]


def _d(n: int, line: int, took: bool | None, kind: str = "if", epoch: int = 0,
       **inputs: str) -> Decision:
    return Decision(n, epoch, "/p/sched.py", line, kind, "free >= need", took, dict(inputs),
                    ("Sched.step", "Sched.admit"))


def test_no_split_when_every_rank_decided_alike():
    same = [_d(1, 10, True), _d(2, 12, False)]
    assert first_split([same, list(same)]) is None, "identical records must not split"


def test_one_decision_taken_two_ways_is_the_split_with_each_ranks_inputs():
    split = first_split([[_d(1, 10, True), _d(2, 12, True, free="3")],
                         [_d(1, 10, True), _d(2, 12, False, free="1")]])
    assert split is not None and split.kind == "way" and split.index == 1, split
    text = split.render()
    assert text.splitlines()[0] == "first split: /p/sched.py:12 in Sched.admit: if free >= need", (
        "the split must render its first line as first split: file:line in function: condition; "
        f"it is {text.splitlines()[0]!r}"
    )
    assert "  rank 0: true (free=3)" in text and "  rank 1: false (free=1)" in text, text
    assert "call path: Sched.step -> Sched.admit" in text, text


def test_ranks_at_different_decisions_name_the_last_shared_one():
    split = first_split([[_d(1, 10, True), _d(2, 12, True)], [_d(1, 10, True), _d(2, 30, True)]])
    assert split is not None and split.kind == "decision", split
    assert "the last shared one: /p/sched.py:10" in split.render(), split.render()


def test_a_record_that_stops_early_is_the_split_and_says_how_many_it_recorded():
    split = first_split([[_d(1, 10, True), _d(2, 12, True)], [_d(1, 10, True)]])
    assert split is not None and split.kind == "stopped" and split.counts == (2, 1), split
    assert "rank 1: no more decisions (recorded 1" in split.render(), split.render()


def test_the_telling_split_skips_rank_local_work_before_the_last_shared_collective():
    # epoch 0: each rank searches its own cache (splits by design); epoch 1, after the
    # reduce: the admission compares the agreed budget with a rank-local room.
    rank0 = [_d(1, 5, True, epoch=0, child="None"), _d(2, 12, True, epoch=1, budget="4",
                                                       room="5")]
    rank1 = [_d(1, 5, False, epoch=0, child="<node>"), _d(2, 9, True, epoch=0),
             _d(3, 12, False, epoch=1, budget="4", room="2")]
    split = telling_split([rank0, rank1])
    assert split is not None and split.per_rank[0].line == 12, \
        f"expected the admission after the reduce (line 12), got {split and split.render()}"
    assert "other splits (rank-local work, or after this one): /p/sched.py:5" in split.render(), (
        "the rank-local split before the last shared collective must be listed under other "
        f"splits:\n{split.render()}"
    )


def test_in_the_telling_epoch_a_condition_mixing_shared_and_local_values_wins():
    rank0 = [_d(1, 5, True, child="None"), _d(2, 7, True, need="2", free="3")]
    rank1 = [_d(1, 5, False, child="<node>"), _d(2, 6, True), _d(3, 7, False, need="2",
                                                                 free="1")]
    split = telling_split([rank0, rank1])
    assert split is not None and split.per_rank[0].line == 7, \
        "rank 0's and rank 1's records must stay aligned past a rank-local detour, and the " \
        f"decision reading an agreed need against a local free must win: {split}"
    assert split.per_rank[1].line == 7 and split.per_rank[1].took is False, (
        f"rank 1 must take the other way at line 7 (took False); it is {split.per_rank[1]}"
    )


def test_a_rank_that_turned_away_from_the_next_collective_is_split_at_its_guard():
    rank0 = [_d(1, 3, True, epoch=1, **{"self.tp_rank": "0"})]            # then waits in it
    rank1 = [_d(1, 3, False, epoch=1, **{"self.tp_rank": "1"}), _d(2, 20, True, epoch=1)]
    split = telling_split([rank0, rank1])
    assert split is not None and split.kind == "way" and split.per_rank[0].line == 3, split


def test_a_loop_is_one_record_with_its_trip_count_and_the_values_it_ended_on(tmp_path):
    source = ("def count(n):\n    i = 0\n    while i < n:\n        i += 1\n"
              "    for _x in range(3):\n        return i\n    return -1\n")
    path = tmp_path / "loops_mod.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    out = tmp_path / "rec"
    out.mkdir()
    with record_decisions(out, 0, include=[str(tmp_path)], functions=[namespace["count"]]):
        assert namespace["count"](4) == 4, (
            "the recorded function must still return its value (count(4) == 4); it returned "
            f"{namespace['count'](4)}"
        )
    loops = [(r.kind, r.took, r.inputs) for r in read_records(out, 1)[0] if r.kind != "call"]
    assert loops[0] == ("while", 4, {"i": "4", "n": "4"}), \
        f"the while loop must be one record: 4 iterations, ended on i=4, n=4; got {loops}"
    assert loops[1][:2] == ("for", 1), f"a return inside a for body ends it after 1: {loops}"


def test_a_line_cut_by_a_kill_is_dropped_not_fatal(tmp_path):
    good = {"n": 1, "c": 0, "file": "/p/a.py", "line": 3, "kind": "if", "condition": "x",
            "took": True, "inputs": {}, "path": ["f"]}
    (tmp_path / "rank0.jsonl").write_text(json.dumps(good) + "\n{\"n\": 2, \"fi")
    records = read_records(tmp_path, 2)
    assert [len(r) for r in records] == [1, 0], "a torn last line must be skipped, a missing " \
        f"rank file read as no decisions; got {records}"


def test_the_recorder_writes_each_way_and_the_values_the_condition_reads(tmp_path):
    admitter = S.Admitter(free=3, enforce=False)
    with record_decisions(tmp_path, 0):
        assert admitter.admit(need=2) == 2, "admit(need=2) with free=3 must admit 2 while recorded"
    records = read_records(tmp_path, 1)[0]
    admit = S.line_of("ADMIT-DECISION")
    ways = [(r.line, r.kind, r.took) for r in records]
    assert ways.count((admit, "if", True)) == 2, f"expected the admit decision twice, {ways}"
    loop = [w for w in ways if w[1] == "for"]
    assert [t for _l, _k, t in loop] == [2], \
        f"the for loop must be one record with its trip count (2), got {loop}"
    at_admit = next(r for r in records if r.line == admit)
    assert at_admit.inputs == {"free": "3", "need": "2"}, at_admit.inputs
    assert at_admit.path[-1] == "Admitter.admit", at_admit.path
    assert sys.gettrace() is None, "the recorder must restore the previous trace function"


def test_the_recorder_never_runs_a_property_and_shortens_large_values(tmp_path):
    assert show(list(range(40))).startswith("<list len=40 #"), show(list(range(40)))
    assert show(list(range(40))) != show(list(range(1, 41))), \
        "two long lists of numbers must not show alike (the split compares what is shown)"
    assert show(["x"] * 30).startswith("<list len=30 sha1:"), show(["x"] * 30)
    assert show(list(range(300))) == "<list len=300>", show(list(range(300)))

    class Loud:
        def __repr__(self) -> str:
            raise AssertionError("the recorder called a user __repr__")

    assert show(Loud()) == "<Loud>", "a user object must show as its type, repr never called"
    admitter = S.Admitter(free=3, enforce=False)
    source = "def probe(a):\n    if a.exploding and a.free:\n        return 1\n    return 0\n"
    (tmp_path / "probe_mod.py").write_text(source)
    namespace: dict = {}
    exec(compile(source, str(tmp_path / "probe_mod.py"), "exec"), namespace)
    out = tmp_path / "rec"
    out.mkdir()
    with record_decisions(out, 0, include=[str(tmp_path)], functions=[namespace["probe"]]):
        with pytest.raises(RuntimeError):
            namespace["probe"](admitter)
    records = read_records(out, 1)[0]
    assert [(r.kind, r.took) for r in records] == [("call", "raised RuntimeError")], \
        f"a condition whose property raised is no way taken; the call raised: {records}"


def test_recording_can_be_turned_off(monkeypatch):
    from deskcheck.suites.recorder import recording_enabled
    monkeypatch.setenv("DESKCHECK_RECORD", "off")
    assert not recording_enabled(), "DESKCHECK_RECORD=off must turn recording off"
    monkeypatch.setenv("DESKCHECK_RECORD", "")
    assert recording_enabled(), "recording is on by default"





@pytest.mark.xdist_group("deskcheck-suites")
@pytest.mark.world(2, 3)
@pytest.mark.backend("gloo")
def test_a_diverged_arm_names_its_first_split_with_each_ranks_way_and_inputs(rank_pool, world):
    from deskcheck.errors import CongruenceError
    from deskcheck.suites import check_arm

    inputs = [3] + [1] * (world - 1)
    with pytest.raises(CongruenceError) as caught:
        check_arm(S.ADMIT_LOCAL, inputs, rank_pool)
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    where = f"{os.path.relpath(HERE)}:{S.line_of('ADMIT-DECISION')} in Admitter.admit"
    assert f"first split: {where}: if free >= need" in notes, \
        f"the split must name the admit decision ({where}); notes were:\n{notes}"
    assert "rank 0: true (free=3, need=2)" in notes, notes
    assert all(f"rank {r}: false (free=1, need=2)" in notes for r in range(1, world)), notes
    assert "call path: count_admitted_local -> count_admitted -> Admitter.admit" in notes, notes
    assert caught.value.first_split.kind == "way", (
        "the first split of a diverged arm must be a way (a branch taken two ways); it is "
        f"{caught.value.first_split.kind!r}"
    )


@pytest.mark.xdist_group("deskcheck-suites")
@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_an_agreeing_arm_leaves_no_record_folder_behind(rank_pool, tmp_path, monkeypatch):
    from deskcheck.suites import check_arm

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    check_arm(S.ADMIT, [3, 1], rank_pool)
    left = [p.name for p in tmp_path.iterdir()]
    assert not [n for n in left if n.startswith("deskcheck-w-decisions-")], \
        f"the record folder must be removed after the arm, found {left}"


@pytest.mark.xdist_group("deskcheck-suites-hang")
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_rank_that_skips_a_gated_collective_names_the_decision_that_sent_it_away(
        start_method, tmp_path, monkeypatch):
    """Nothing recorded (the default): the waiting ranks' call site and its source name the
    gate. With DESKCHECK_RECORD=all: each rank's way and the values it read."""
    from deskcheck.errors import RankTimeoutError
    from deskcheck.suites import CongruenceArm, KillSwitch, RankPool, check_arm

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    arm = CongruenceArm("gate", S.gated_collective, KillSwitch.from_keyword("unused", 0))
    gate = f"{os.path.relpath(HERE)}:{S.line_of('GATE-DECISION')}"
    notes = {}
    for mode in ("", "all"):
        monkeypatch.setenv("DESKCHECK_RECORD", mode)
        # recorded: the ranks build their instrumented copies before the task, outside its
        # timeout (RankPool.prepare_recording), so both pools time out alike
        with RankPool(2, "gloo", timeout_s=2.0, start_method=start_method) as pool:
            with pytest.raises(RankTimeoutError) as caught:
                check_arm(arm, [3, 1], pool, premise=False)
        notes[mode] = "\n".join(getattr(caught.value, "__notes__", []))
    assert "where the paths parted: rank(s) 0 waited in a collective reached from " \
        f"{os.path.relpath(HERE)}:" in notes[""] and \
        f"{gate}: if self.free >= need  (it runs only inside this branch)" in notes[""], \
        f"without recording the hang must name the gate {gate} from the source:\n{notes['']}"
    assert f"first split: {gate} in Admitter.admit_with_collective" in notes["all"], \
        f"recorded, the hang must name the gating decision {gate}; notes:\n{notes['all']}"
    assert "rank 0: true (self.free=3, need=2)" in notes["all"], notes["all"]
    assert "rank 1: false (self.free=1, need=2)" in notes["all"], notes["all"]
    assert not list(tmp_path.glob("deskcheck-w-decisions-*")), "record folder left behind"


@pytest.mark.xdist_group("deskcheck-suites-hang")
def test_under_record_all_a_plain_pool_task_names_its_split_too(tmp_path, monkeypatch):
    from deskcheck.errors import RankTimeoutError
    from deskcheck.suites import RankPool

    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    # the recorded ranks build their instrumented copies before the task, outside its timeout
    with RankPool(2, "gloo", timeout_s=2.0) as pool:
        monkeypatch.setenv("DESKCHECK_RECORD", "arms")
        with pytest.raises(RankTimeoutError) as plain:
            pool.run(S.gated_collective, per_rank=[3, 1])
        assert "first split" not in "\n".join(getattr(plain.value, "__notes__", [])), \
            "a plain pool task must not record unless DESKCHECK_RECORD=all"
        monkeypatch.setenv("DESKCHECK_RECORD", "all")
        with pytest.raises(RankTimeoutError) as recorded:
            pool.run(S.gated_collective, per_rank=[3, 1])
    notes = "\n".join(getattr(recorded.value, "__notes__", []))
    assert f":{S.line_of('GATE-DECISION')} in Admitter.admit_with_collective" in notes, \
        ("DESKCHECK_RECORD=all must name the gating decision of a plain task; notes:\n"
         f"{notes}\nthe error:\n{recorded.value}")


USER_TEST = '''
import multiprocessing

from deskcheck.suites import record_decisions

from helper_mod import admit


def rank_main(folder, rank, free):
    with record_decisions(folder, rank):
        admit(free)


def test_my_own_ranks(decision_log):
    ctx = multiprocessing.get_context("START_METHOD")
    procs = [ctx.Process(target=rank_main, args=(decision_log.folder, r, free))
             for r, free in enumerate([3, 1])]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert decision_log.split(2) is not None
    assert False, "the ranks disagreed"
'''

HELPER = '''
def admit(free):
    need = 2
    if free >= need:
        return 1
    return 0
'''


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_the_decision_log_fixture_puts_the_split_of_a_users_own_ranks_in_the_report(
        pytester, start_method):
    pytester.makepyfile(helper_mod=HELPER,
                        test_user=USER_TEST.replace("START_METHOD", start_method))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "deskcheck: first split" in text and "helper_mod.py:3 in admit: if free >= need" \
        in text, f"{start_method}: the failing test's report must carry its ranks' first " \
        f"split:\n{text}"
    assert "rank 0: true (free=3, need=2)" in text and "rank 1: false (free=1, need=2)" in text, (
        f"{start_method}: the report must show each rank's way and inputs:\n{text}"
    )
