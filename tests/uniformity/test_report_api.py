"""The report's stable API (docs/uniformity.md): ``Decision.key`` is
``function|kind|condition`` (no line: stable across line moves), ``report.find`` selects one
function's decisions (optionally at one line), and the JSON's ``unexercised`` names each
decision with a rank-local or sanctioned input and no covering arm as ``function:line``."""

from __future__ import annotations

from deskcheck.uniformity import audit

SRC = {"api.py": """
    class S:
        def step(self):
            self.budget = self._all_reduce_min([1])[0]
            if self.budget > 0:
                dist.barrier(group=self.tp_group)
            if self.pool.available_size() > 0:
                dist.barrier(group=self.tp_group)
            self.other()
        def other(self):
            if self.tp_rank == 0:
                dist.barrier(group=self.tp_group)
        def _all_reduce_min(self, vals):
            return vals
"""}

CFG = """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = ["self._all_reduce_min"]
"""


def _report(make_pkg):
    return audit("pkg.api:S", root=make_pkg(SRC, CFG))


def test_a_decisions_key_is_function_kind_condition(make_pkg):
    keys = sorted(d.key for d in _report(make_pkg).decisions)
    assert keys == ["S.other|if|self.tp_rank == 0", "S.step|if|self.budget > 0",
                    "S.step|if|self.pool.available_size() > 0"], (
        f"Decision.key must read function|kind|condition (no line number); the keys are {keys}")


def test_find_selects_one_functions_decisions_and_optionally_one_line(make_pkg):
    report = _report(make_pkg)
    step = report.find("S.step")
    assert sorted(d.condition for d in step) == ["self.budget > 0",
                                                 "self.pool.available_size() > 0"], (
        f"report.find('S.step') must give step's two decisions only; it gave {step}")
    line = step[0].line
    at = report.find("step", line)
    assert [d.line for d in at] == [line], (
        f"report.find('step', {line}) must give the one decision at line {line} (a bare method "
        f"name matches its class.method); it gave {[(d.function, d.line) for d in at]}")
    assert report.find("S.step", line + 100) == [], (
        "report.find at a line with no decision must give nothing")


def test_the_json_unexercised_names_function_and_line_of_each_rank_local_decision(make_pkg):
    report = _report(make_pkg)
    lines = {d.condition: f"{d.function}:{d.line}" for d in report.decisions}
    got = sorted(report.to_json()["unexercised"])
    want = sorted([lines["self.pool.available_size() > 0"], lines["self.tp_rank == 0"]])
    assert got == want, (
        "the JSON's unexercised lists the decisions with a RANK-LOCAL or SANCTIONED input and "
        f"no covering arm as function:line ({want}); the agreed `self.budget > 0` needs no "
        f"arm. It lists {got}")


def test_the_verdict_and_input_class_words_are_the_documented_ones():
    from deskcheck.uniformity import InputClass, Verdict

    verdicts = [v.value for v in Verdict]
    assert verdicts == ["UNIFORM", "SANCTIONED", "SYMMETRIC", "TRIVIAL", "ROLE", "RANK-LOCAL",
                        "UNKNOWN"], f"docs/uniformity.md:47 lists the verdicts; they are {verdicts}"
    classes = [c.value for c in InputClass]
    assert classes == ["AGREED", "CONFIG", "SANCTIONED", "TRIVIAL", "RANK-LOCAL", "UNKNOWN"], (
        f"docs/uniformity.md:46 lists the input classes; they are {classes}")


def test_the_json_carries_every_documented_field(make_pkg):
    data = _report(make_pkg).to_json()
    missing = {"decisions", "sites", "declarations", "unexercised", "counts"} - set(data)
    decision = next(d for d in data["decisions"] if d["inputs"] and d["collectives"])
    missing |= {f"decision.{k}" for k in ("function", "file", "line", "condition", "kind",
                                          "verdict", "why", "collectives", "inputs",
                                          "covered_by", "can_fail") if k not in decision}
    missing |= {f"site.{k}" for k in ("function", "file", "line", "call", "kind", "group", "dim")
                if k not in decision["collectives"][0]}
    missing |= {f"input.{k}" for k in ("name", "class", "witness", "reason")
                if k not in decision["inputs"][0]}
    assert not missing, (
        "the JSON report (`--json`: stable keys) lacks the fields docs/uniformity.md:25-40 "
        f"documents: {sorted(missing)}")


def test_a_sanctioned_decision_no_replica_arm_covers_is_unexercised(make_pkg):
    root = make_pkg(SRC, CFG + """
[[tool.deskcheck.uniformity.agreed]]
field = "self.budget"
collective = "self._all_reduce_min"
""")
    report = audit("pkg.api:S", root=root)
    budget = next(d for d in report.decisions if d.condition == "self.budget > 0")
    where = f"{budget.function}:{budget.line}"
    got = report.to_json()["unexercised"]
    assert where in got, (
        "docs/uniformity.md:232-233: the JSON's unexercised lists the decisions with a "
        "rank-local or SANCTIONED input that no replica arm covers; `self.budget > 0` reads "
        f"the declared-agreed self.budget ({budget.verdict.value}, no arm), yet unexercised "
        f"is {got}, without {where}")


def test_a_replica_whose_arm_does_not_exist_covers_nothing(make_pkg):
    root = make_pkg(SRC, CFG + """
[[tool.deskcheck.uniformity.replica]]
field = "self.pool"
arm = "tests/test_congruence.py::test_pools_are_replicas"
""")
    report = audit("pkg.api:S", root=root)
    pool = next(d for d in report.decisions if d.condition == "self.pool.available_size() > 0")
    where = f"{pool.function}:{pool.line}"
    got = report.to_json()["unexercised"]
    assert pool.covered_by == [] and where in got, (
        "docs/uniformity.md:34,232-233: covered_by names only replica arms that exist, and "
        "unexercised lists what no existing arm covers; the arm of the self.pool replica does "
        f"not exist, yet covered_by is {pool.covered_by} and unexercised is {got}")


def test_a_decision_whose_only_doubt_is_unknown_is_not_unexercised(make_pkg):
    root = make_pkg({"api.py": """
        class S:
            def __init__(self, thing):
                self.mystery = thing
            def step(self):
                if self.mystery.value():
                    dist.barrier(group=self.tp_group)
    """}, CFG)
    report = audit("pkg.api:S", root=root)
    (d,) = report.find("S.step")
    got = report.to_json()["unexercised"]
    assert d.verdict.value == "UNKNOWN" and got == [], (
        "docs/uniformity.md:232-233: unexercised lists the decisions with a rank-local or "
        "sanctioned input; `self.mystery.value()` has only an UNKNOWN input (an unresolved "
        f"receiver, {d.verdict.value}), which no congruence arm is asked to cover, yet "
        f"unexercised is {got}")
