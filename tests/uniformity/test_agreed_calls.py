"""An ``agreed`` declaration may name a call instead of a field (docs/uniformity.md "Declaring a
source"): what a call matching ``call`` returns is declared identical on every rank, made so
by ``collective`` — a forward pass whose outputs ride its per-layer collectives, or a helper
that returns a reduced value. The decisions it reaches are SANCTIONED, and the declaration is
checked like a field's: stale when it matches no call, unproven when its collective is
neither the call itself (a configured forward or collective) nor what the callee returns."""

from __future__ import annotations

import pytest

from deskcheck.errors import ConfigError
from deskcheck.uniformity import Verdict, audit
from deskcheck.uniformity.config import load_uniformity_config

SRC = {"s.py": """
    import time

    class Worker:
        def forward(self, batch):
            return time.monotonic()          # stands for sampling: differs per rank

        def reduced(self):
            t = torch.tensor([time.monotonic()])
            dist.all_reduce(t, group=self.tp_cpu_group)
            return t.item()

    class S:
        def __init__(self):
            self.worker = Worker()

        def step(self):
            out = self.worker.forward(self.batch)
            if out > 0:
                dist.barrier(group=self.tp_cpu_group)
            if self.worker.reduced() > 0:
                dist.barrier(group=self.tp_cpu_group)
"""}

BASE = """
[tool.deskcheck.uniformity]
roots = ["step"]
forward = [{ call = "self.worker.forward", group = "self.tp_cpu_group" }]
"""


def _agreed(call: str, collective: str) -> str:
    """One ``[[agreed]]`` entry naming a call."""
    return (f'\n[[tool.deskcheck.uniformity.agreed]]\ncall = "{call}"\n'
            f'collective = "{collective}"\n')


def _report(make_pkg, extra: str = ""):
    return audit("pkg.s:S", root=make_pkg(SRC, BASE + extra))


def _verdict(report, condition: str):
    found = [d for d in report.decisions if d.condition == condition]
    assert found, f"no decision `{condition}` in {[d.condition for d in report.decisions]}"
    return found[0]


def test_a_forwards_outputs_are_walked_into_until_declared(make_pkg):
    decision = _verdict(_report(make_pkg), "out > 0")
    assert decision.verdict is Verdict.RANK_LOCAL and "monotonic" in decision.why, (
        "without a declaration the forward's return is walked into and its per-rank source "
        f"(the clock) must make `out > 0` RANK-LOCAL; it is {decision.verdict.value}: "
        f"{decision.why}")


def test_a_call_declared_agreed_sanctions_what_it_returns(make_pkg):
    report = _report(make_pkg, """
[[tool.deskcheck.uniformity.agreed]]
call = "self.worker.forward"
collective = "self.worker.forward"
why = "tokens sampled with one seed on every TP rank"
""")
    decision = _verdict(report, "out > 0")
    assert decision.verdict is Verdict.SANCTIONED, (
        "`out` is the return of a call declared agreed: the decision on it must be SANCTIONED "
        f"(resting on the declaration), not {decision.verdict.value}: {decision.why}")
    witness = " ".join(h for i in decision.inputs for h in i.witness)
    reasons = " ".join(i.reason for i in decision.inputs)
    assert "seed" in reasons and "self.worker.forward" in witness, (
        "the sanctioned input must carry the declaration's why and the call it came from: "
        f"reasons {reasons!r}, witness {witness!r}")
    assert report.declarations == [], (
        "a forward pass declared agreed by itself is proven by its per-layer collectives: no "
        f"finding expected, got {report.declarations}")


def test_an_agreed_call_glob_matches_like_a_collective_pattern(make_pkg):
    report = _report(make_pkg, _agreed("*.forward", "*.forward"))
    decision = _verdict(report, "out > 0")
    assert decision.verdict is Verdict.SANCTIONED, (
        "`*.forward` matches the call `self.worker.forward` as collective patterns do: the "
        f"decision must be SANCTIONED, not {decision.verdict.value}: {decision.why}")


def test_a_helper_returning_a_reduced_value_is_proven_by_its_collective(make_pkg):
    report = _report(make_pkg, _agreed("self.worker.reduced", "*all_reduce*"))
    assert report.declarations == [], (
        "Worker.reduced returns a value reduced in place by dist.all_reduce: the declaration "
        f"is proven, yet the audit reported {report.declarations}")


def test_an_agreed_call_that_matches_no_call_is_stale(make_pkg):
    report = _report(make_pkg, _agreed("self.worker.backward", "self.worker.backward"))
    found = {(f.kind, f.subject, f.status) for f in report.declarations}
    assert ("agreed", "self.worker.backward", "stale") in found, (
        f"a call pattern that matches no call in the code must be stale; findings: {found}")


def test_an_agreed_call_whose_collective_is_not_shown_is_unproven(make_pkg):
    report = _report(make_pkg, _agreed("self.worker.forward", "*all_reduce*"))
    found = [(f.kind, f.subject, f.status, f.detail) for f in report.declarations]
    assert any(s == "unproven" and subject == "self.worker.forward"
               for _k, subject, s, _d in found), (
        "Worker.forward returns a clock, made by no all_reduce, and the call is no all_reduce "
        f"itself: the declaration must be unproven; findings: {found}")
    assert report.exit_code() == 1, "an unproven declaration must fail the audit (exit 1)"


@pytest.mark.parametrize("entry,needle", [
    ('field = "self.x"\ncall = "self.f"\ncollective = "c"', "both"),
    ('collective = "c"\nwhy = "no subject"', "neither field nor call"),
], ids=["both", "neither"])
def test_an_agreed_entry_names_exactly_one_of_field_or_call(tmp_path, entry, needle):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.deskcheck.uniformity]\nroots = [\"step\"]\n\n"
                    "[[tool.deskcheck.uniformity.agreed]]\n" + entry + "\n")
    try:
        load_uniformity_config(path)
    except ConfigError as exc:
        text = str(exc) + " ".join(str(e) for e in getattr(exc, "errors", []))
    else:
        text = "(accepted: no ConfigError)"
    assert needle in text and "pyproject.toml:5" in text, (
        f"an agreed entry naming {needle} must be refused at its own first line "
        f"(pyproject.toml:5); the error says {text!r}")


def test_each_declaration_is_located_at_its_own_entry(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("""[tool.deskcheck.uniformity]
roots = ["step"]

[[tool.deskcheck.uniformity.agreed]]
field = "self.tree_budget"
collective = "c"

[[tool.deskcheck.uniformity.replica]]
field = "self.pool"
arm = "tests/test_pools.py::test_pools_agree"

[[tool.deskcheck.uniformity.replica]]
field = "self.tree"
arm = "tests/test_pools.py::test_pools_agree"
""")
    config = load_uniformity_config(path)
    wheres = [a.where.rsplit(":", 1)[-1] for a in config.agreed] + [
        r.where.rsplit(":", 1)[-1] for r in config.replica]
    assert wheres == ["5", "9", "13"], (
        "each declaration must be located in its own [[...]] entry (lines 5, 9, 13), not at "
        "the first line that mentions its field or arm anywhere (two replicas share one arm; "
        f"self.tree is a prefix of self.tree_budget, above it); got lines {wheres}")


def test_the_documented_declarations_block_parses_with_its_agreed_call(documented_config):
    config = documented_config
    calls = [a for a in config.agreed if a.call]
    assert calls and calls[0].call == "*.forward_batch_generation" and not calls[0].field, (
        "docs/uniformity.md's declaration example must parse and declare the forward pass's "
        f"return agreed by `call`; it parsed to {config.agreed}")


def test_a_call_that_is_no_configured_collective_is_not_proven_by_its_own_name(make_pkg):
    root = make_pkg(SRC, """
[tool.deskcheck.uniformity]
roots = ["step"]

[[tool.deskcheck.uniformity.agreed]]
call = "self.worker.forward"
collective = "self.worker.forward"
""")
    report = audit("pkg.s:S", root=root)
    found = [(f.subject, f.status) for f in report.declarations]
    assert ("self.worker.forward", "unproven") in found, (
        "without a `forward` entry self.worker.forward is no collective, and it returns a "
        "clock: declaring it agreed by itself must be unproven; findings: " + repr(found))


def test_a_helper_reduced_by_another_collective_does_not_prove_the_named_one(make_pkg):
    report = _report(make_pkg, _agreed("self.worker.reduced", "*broadcast*"))
    found = [(f.subject, f.status) for f in report.declarations]
    assert ("self.worker.reduced", "unproven") in found, (
        "Worker.reduced returns a value an all_reduce made, not a broadcast: the declaration "
        f"naming *broadcast* must be unproven; findings: {found}")


def test_an_agreed_call_read_for_its_truth_is_sanctioned_too(make_pkg):
    src = {"s.py": SRC["s.py"].replace("if out > 0:", "if not out:")}
    root = make_pkg(src, BASE + """
[[tool.deskcheck.uniformity.agreed]]
call = "self.worker.forward"
collective = "self.worker.forward"
""")
    decision = _verdict(audit("pkg.s:S", root=root), "not out")
    assert decision.verdict is Verdict.SANCTIONED, (
        "`if not out:` reads the declared call's return for its truth: it is SANCTIONED "
        f"wherever it flows, however it is read; the audit said {decision.verdict.value}: "
        f"{decision.why}")


def test_the_call_pattern_not_the_collective_is_what_gets_sanctioned(make_pkg):
    report = _report(make_pkg, _agreed("self.worker.forward", "*all_gather*"))
    decision = _verdict(report, "out > 0")
    assert decision.verdict is Verdict.SANCTIONED, (
        "the entry's `call` (self.worker.forward) names what is sanctioned, whatever its "
        f"`collective` says; the decision on its return must be SANCTIONED, not "
        f"{decision.verdict.value}: {decision.why}")


def test_an_unproven_agreed_call_is_reported_at_its_entry(make_pkg):
    report = _report(make_pkg, _agreed("self.worker.forward", "*all_reduce*"))
    wheres = [f.where for f in report.declarations if f.subject == "self.worker.forward"]
    assert wheres and wheres[0].endswith("pyproject.toml:7"), (
        "the unproven agreed call must be reported at its own entry's first line "
        f"(pyproject.toml:7: `call = ...`); it was reported at {wheres}")


def test_a_declaration_written_as_a_single_table_is_refused_with_the_fix(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.deskcheck.uniformity]\nroots = ["step"]\n\n'
                    '[tool.deskcheck.uniformity.agreed]\nfield = "self.budget"\n'
                    'collective = "self._all_reduce_min"\n')
    try:
        load_uniformity_config(path)
    except ConfigError as exc:
        errors = getattr(exc, "errors", None) or [exc]
        said = " | ".join(f"{e.location}: {e.message} (fix: {e.fix})" for e in errors)
    else:
        said = "(accepted)"
    assert "array of tables" in said and "[[tool.deskcheck.uniformity.agreed]]" in said \
        and "pyproject.toml:4" in said, (
            "`[tool.deskcheck.uniformity.agreed]` (single brackets) declares no entry list: it "
            "must be refused once, at its header (line 4), with the double-bracket fix; the "
            f"config said {said}")
