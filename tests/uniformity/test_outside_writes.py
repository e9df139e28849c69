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

        def poke(self):
            self.to_finish = time.monotonic()


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


    class S:
        def __init__(self, group):
            self.group = group
            self.budget = 0

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


def _audit(make_pkg, writer: str, read: str, table: str = ""):
    pyproject = '[tool.deskcheck.uniformity]\nroots = ["step"]\n' + table
    root = make_pkg({"s.py": SOURCE.replace("WRITER", writer).replace("READ", read)},
                    pyproject)
    report = audit("pkg.s:S", root=root)
    found = [d for d in report.decisions if d.condition == read]
    assert found, f"`if {read}:` gates the barrier: it must be a decision; got " \
        f"{[d.condition for d in report.decisions]}"
    return found[0]


ON = "outside_writes = true\n"


@pytest.mark.parametrize("writer, read, hop, clock", [
    ("abort_expired(reqs, 5)", "req.to_finish", "req.to_finish assign",
     "written when: time.monotonic() > deadline"),
    ("remember(reqs)", "req.pending", "req.pending mutate.append",
     "written when: time.monotonic() > 5"),
    ("tune(self)", "self.budget > 3", "sched.budget assign", "time.monotonic"),
], ids=["assigned_on_an_element", "appended_to_an_elements_list", "assigned_on_self_passed"])
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
    decision = _audit(make_pkg, "Other().poke()", "req.to_finish", ON)
    assert decision.verdict is Verdict.UNIFORM, (
        "Other.poke writes `self.to_finish`: Other's own field, not the field of the Req "
        f"objects read; got {decision.verdict.value}: {decision.why}")


def test_the_cli_flag_turns_outside_writes_on(make_pkg, tmp_path, capsys):
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
    with pytest.raises(ConfigError) as info:
        load_uniformity_config(path)
    text = str(info.value)
    assert f"{path}:3" in text and "outside_writes" in text and "true" in text, (
        f"a non-boolean outside_writes must be reported at its line with the fix; got {text}")
