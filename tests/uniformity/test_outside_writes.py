"""A field written through another object (``req.to_finish = FINISH_ABORT()`` in the
scheduler, not in ``Req``) is followed when ``outside_writes = true`` (or
``--outside-writes``): docs/uniformity.md "Writes through another object". SGLang aborts a
request by setting ``req.to_finish`` from the scheduler; the per-rank clock of an abort path
is the TP deadlock its tracker reports. By default such writes are not followed (the audit
reads a field's writes in its class's MRO only), and the decision below is UNIFORM.
Twins: a write through a function's own ``self`` is that class's field, not this one; a
config value that is not a boolean is an error naming the line."""

from __future__ import annotations

import json

import pytest

from deskcheck.errors import ConfigError
from deskcheck.uniformity import Verdict, audit, load_uniformity_config

SOURCE = """
    class Req:
        def __init__(self, rid):
            self.rid = rid
            self.to_finish = None
            self.pending = []


    class Other:
        def __init__(self):
            self.to_finish = None

        def poke(self, group):
            self.to_finish = time.monotonic()
            dist.barrier(group=group)


    def abort_expired(reqs, deadline):
        for req in reqs:
            if time.monotonic() > deadline:
                req.to_finish = "abort"


    def remember(reqs):
        for req in reqs:
            if time.monotonic() > 5:
                req.pending.append(req.rid)


    def tune(sched):
        sched.budget = time.monotonic()


    def stamp(sched):
        sched.marks[0] = time.monotonic()


    def flag(sched):
        sched.late = time.monotonic() > 5


    def mark_aborted(reqs):
        for req in reqs:
            req.aborted = time.monotonic()


    def tick(sched, on):
        if on:
            sched.limit = time.monotonic()


    class S:
        def __init__(self, group):
            self.group = group
            self.budget = 0
            self.marks = [0]
            self.limit = 0

        def recv(self):
            out = []
            dist.broadcast_object_list(out, src=0, group=self.group)
            return [Req(x) for x in out]

        def step(self):
            reqs = self.recv()
            WRITER
            for req in reqs:
                if READ:
                    dist.barrier(group=self.group)
"""


def _audit(make_pkg, writer: str, read: str, table: str = "", with_report: bool = False):
    pyproject = '[tool.deskcheck.uniformity]\nroots = ["step"]\n' + table
    root = make_pkg({"s.py": SOURCE.replace("WRITER", writer).replace("READ", read)},
                    pyproject)
    report = audit("pkg.s:S", root=root)
    found = [d for d in report.decisions if d.condition == read]
    assert found, f"`if {read}:` gates the barrier: it must be a decision; got " \
        f"{[d.condition for d in report.decisions]}"
    return (report, found[0]) if with_report else found[0]


ON = "outside_writes = true\n"


@pytest.mark.parametrize("writer, read, hop, clock", [
    ("abort_expired(reqs, 5)", "req.to_finish", "req.to_finish assign",
     "written when: time.monotonic() > deadline"),
    ("remember(reqs)", "req.pending", "req.pending mutate.append",
     "written when: time.monotonic() > 5"),
    ("tune(self)", "self.budget > 3", "sched.budget assign", "time.monotonic"),
    ("stamp(self)", "self.marks[0] > 3", "sched.marks item", "time.monotonic"),
    ("flag(self)", "self.late", "sched.late assign", "time.monotonic"),
    ("mark_aborted(reqs)", "req.aborted", "req.aborted assign", "time.monotonic"),
], ids=["assigned_on_an_element", "appended_to_an_elements_list", "assigned_on_self_passed",
        "stored_at_an_index", "self_field_written_only_outside",
        "element_field_written_only_outside"])
def test_a_field_written_through_another_object_is_followed_when_enabled(make_pkg, writer,
                                                                         read, hop, clock):
    decision = _audit(make_pkg, writer, read, ON)
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"with outside_writes = true, `{writer}` writes the field `{read}` reads under a "
        f"per-rank clock, so `if {read}:` before the barrier is RANK-LOCAL; got "
        f"{decision.verdict.value}: {decision.why}")
    witness = [h for i in decision.inputs for h in i.witness]
    assert any(h.endswith(hop) for h in witness), (
        f"the witness must name the write through the other object ({hop!r}); got {witness}")
    assert any(h.endswith(clock) for h in witness), (
        f"the clock reaches the decision through the outside write ({clock!r}: the value "
        f"written, or the condition the write sits under); witness {witness}")


@pytest.mark.parametrize("writer, read", [
    ("abort_expired(reqs, 5)", "req.to_finish"),
    ("tune(self)", "self.budget > 3"),
])
def test_by_default_writes_through_another_object_are_not_followed(make_pkg, writer, read):
    decision = _audit(make_pkg, writer, read)
    assert decision.verdict is Verdict.UNIFORM, (
        f"outside_writes is off by default (docs: the field's writes in its class's MRO "
        f"only): `if {read}:` reads the agreed object; got {decision.verdict.value}: "
        f"{decision.why}")


def test_a_write_through_a_functions_own_self_is_not_an_outside_write(make_pkg):
    report, decision = _audit(make_pkg, "poker = Other()\n            poker.poke(self.group)",
                              "req.to_finish", ON, with_report=True)
    assert any(s.function.endswith("Other.poke") for s in report.sites), (
        "the fixture must walk Other.poke (its barrier is a site), else the write through "
        f"its self is never seen; sites {[s.function for s in report.sites]}")
    assert decision.verdict is Verdict.UNIFORM, (
        "Other.poke writes `self.to_finish`: Other's own field, not the field of the Req "
        f"objects read; got {decision.verdict.value}: {decision.why}")


def test_a_write_the_callers_constant_makes_dead_is_left_out(make_pkg):
    decision = _audit(make_pkg, "tick(self, False)", "self.limit > 2", ON)
    assert decision.verdict is Verdict.UNIFORM, (
        "tick(self, False) writes sched.limit only under `if on:`, dead for that call: "
        f"the write must be left out; got {decision.verdict.value}: {decision.why}")
    live = _audit(make_pkg, "tick(self, True)", "self.limit > 2", ON)
    assert live.verdict is Verdict.RANK_LOCAL, (
        "tick(self, True) writes the clock into sched.limit: RANK-LOCAL; got "
        f"{live.verdict.value}: {live.why}")


def test_the_cli_flag_turns_outside_writes_on(make_pkg, capsys):
    from deskcheck.cli import main

    root = make_pkg({"s.py": SOURCE.replace("WRITER", "abort_expired(reqs, 5)")
                     .replace("READ", "req.to_finish")},
                    '[tool.deskcheck.uniformity]\nroots = ["step"]\n')
    code = main(["uniformity", "pkg.s:S", "--root", str(root), "--json", "--no-cache",
                 "--outside-writes"])
    out = json.loads(capsys.readouterr().out)
    verdicts = {d["condition"]: d["verdict"] for d in out["decisions"]}
    assert verdicts.get("req.to_finish") == "RANK-LOCAL" and code == 1, (
        "--outside-writes must follow `req.to_finish = ...` in abort_expired (RANK-LOCAL, "
        f"exit 1); got {verdicts}, exit {code}")


def test_outside_writes_must_be_a_boolean(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.deskcheck.uniformity]\nroots = ["step"]\noutside_writes = "yes"\n')
    try:
        load_uniformity_config(path)
        text = "no error"
    except ConfigError as exc:
        text = str(exc)
    assert f"{path}:3" in text and "outside_writes" in text and "true" in text, (
        f"a non-boolean outside_writes must be reported at its line with the fix; got {text}")
