"""The ``uniformity:`` owner kind, judged with a stand-in audit (docs/mutants.md, *The audit
as an owner*): a decision that flips to RANK-LOCAL under the mutant kills, one that still
holds does not, UNKNOWN kills only under strict, a decision already failing on clean code is
red, an owner naming a function with no gating decision is a catalog error at its line, and
the audit is handed the mutated file as an in-memory overlay (nothing written). The real
audit on a fixture project: tests/mutants/test_uniformity_owner_sweep.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog
from deskcheck.mutants.mutated import MutatedFunction
from deskcheck.mutants.uniformity_owner import AuditSettings, UniformityJudge
from deskcheck.mutants.verdicts import ItemResult, decide

SOURCE = "class Sched:\n    def step(self):\n        if self.agreed > 0:\n            pass\n"
OWNER = "uniformity:Sched.step"


@dataclass
class FakeInput:
    name: str
    klass: str
    witness: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class FakeDecision:
    function: str
    verdict: str
    condition: str = "self.agreed > 0"
    file: str = "sched.py"
    line: int = 3
    kind: str = "if"
    inputs: list[FakeInput] = field(default_factory=list)
    collectives: list = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.function}|{self.kind}|{self.condition}"


@dataclass
class FakeFinding:
    subject: str
    status: str
    detail: str = "no write of it comes from its collective"


@dataclass
class FakeReport:
    decisions: list[FakeDecision]
    declarations: list[FakeFinding] = field(default_factory=list)


class FakeAudit:
    """``clean`` without an overlay, ``mutated`` with one; records every overlay given."""

    def __init__(self, clean: list[FakeDecision], mutated: list[FakeDecision] | None = None,
                 clean_findings=(), mutated_findings=()):
        self.clean, self.mutated = clean, mutated if mutated is not None else clean
        self.findings = list(clean_findings), list(mutated_findings)
        self.overlays: list[dict[str, str]] = []

    def __call__(self, settings, catalog_root, overlay=None):
        if overlay is None:
            return FakeReport(self.clean, self.findings[0])
        self.overlays.append(overlay)
        return FakeReport(self.mutated, self.findings[1])


def mutated_function(tmp_path: Path) -> MutatedFunction:
    path = tmp_path / "sched.py"
    path.write_text(SOURCE)
    return MutatedFunction(
        mutant_id="m", target="sched:Sched.step", file=str(path), start_line=2, end_line=4,
        indent="    ", original="def step(self):\n    if self.agreed > 0:\n        pass\n",
        mutated="def step(self):\n    if self.local > 0:\n        pass\n", file_sha="")


def judge(audit: FakeAudit, strict: bool = False) -> UniformityJudge:
    return UniformityJudge(AuditSettings(target="sched:Sched", strict=strict), Path("."),
                           audit=audit)


def rank_local(function: str = "Sched.step") -> FakeDecision:
    return FakeDecision(function, "RANK-LOCAL", condition="self.local > 0", inputs=[
        FakeInput("self.local", "RANK-LOCAL", ["sched.py:3 self.local", "sched.py:9 write"],
                  reason="a pool's free size")])


def test_a_decision_that_flips_to_rank_local_kills_with_its_witness(tmp_path):
    audit = FakeAudit([FakeDecision("Sched.step", "UNIFORM")], [rank_local()])
    got = judge(audit).judge(OWNER, mutated_function(tmp_path))
    assert got.killed, "a decision that turned RANK-LOCAL under the mutant did not kill"
    assert got.message.startswith("RankLocalDecision: Sched.step at sched.py:3"), got.message
    assert "`self.local > 0` UNIFORM -> RANK-LOCAL" in got.message, (
        "the kill does not name the clean verdict of the decision at that line (its "
        f"condition text changed): {got.message}")
    assert "input self.local: RANK-LOCAL (a pool's free size)" in got.text, got.text
    assert "    sched.py:9 write" in got.text, "the witness hops are not shown"


def test_the_audit_reads_the_mutated_file_from_an_overlay_and_nothing_is_written(tmp_path):
    audit = FakeAudit([FakeDecision("Sched.step", "UNIFORM")])
    mutated = mutated_function(tmp_path)
    judge(audit).judge(OWNER, mutated)
    assert audit.overlays == [{mutated.file: SOURCE.replace("self.agreed", "self.local")}], (
        f"the audit was given {audit.overlays}, not the file with the mutant in place")
    assert Path(mutated.file).read_text() == SOURCE, "the target file was written"


def test_a_decision_that_still_holds_does_not_kill(tmp_path):
    audit = FakeAudit([FakeDecision("Sched.step", "UNIFORM")],
                      [FakeDecision("Sched.step", "SANCTIONED")])
    got = judge(audit).judge(OWNER, mutated_function(tmp_path))
    assert not got.killed, "a decision still SANCTIONED under the mutant was counted a kill"
    assert "still holds" in got.message and "SANCTIONED" in got.message, got.message


def test_unknown_kills_only_under_strict(tmp_path):
    audit = FakeAudit([FakeDecision("Sched.step", "UNIFORM")],
                      [FakeDecision("Sched.step", "UNKNOWN")])
    assert not judge(audit).judge(OWNER, mutated_function(tmp_path)).killed, (
        "an UNKNOWN decision killed without strict")
    assert judge(audit, strict=True).judge(OWNER, mutated_function(tmp_path)).killed, (
        "an UNKNOWN decision did not kill under strict = true")


def test_a_decision_already_rank_local_on_clean_code_is_baseline_red():
    red = judge(FakeAudit([rank_local()])).baseline_red(OWNER)
    assert red is not None and "not green on clean code" in red, red
    assert "input self.local: RANK-LOCAL" in red, "the red owner does not show its witness"
    assert judge(FakeAudit([FakeDecision("Sched.step", "TRIVIAL")])).baseline_red(OWNER) is None, (
        "a TRIVIAL decision on clean code is no baseline-red owner, yet baseline_red reported one"
    )


def test_an_owner_naming_a_function_without_a_decision_is_an_error_at_its_line():
    @dataclass
    class Entry:
        id: str
        owners: tuple[str, ...]

    audit = FakeAudit([FakeDecision("Sched.step", "UNIFORM")])
    errors = judge(audit).owner_errors(
        [Entry("m", ("uniformity:Sched.stop", "tests/t.py::test_a"))],
        lambda mutant, owner: f"mutants.toml:{7 if owner.endswith('stop') else 0}")
    assert len(errors) == 1, [e.render() for e in errors]
    text = errors[0].render()
    assert text.startswith("mutants.toml:7: mutant 'm': owner 'uniformity:Sched.stop' names a "
                           "function with no gating decision"), text
    assert "did you mean 'Sched.step'?" in text and "fix:" in text, text


def test_a_uniformity_kill_is_judged_by_its_flip_not_by_expect():
    results = [ItemResult("uniformity:Sched.step", "failed", message="RankLocalDecision: x"),
               ItemResult("t.py::test_arm", "passed")]
    verdict = decide(["uniformity:Sched.step", "t.py::test_arm"], results,
                     expect="told to admit", wrong_failure_types=("TypeError",),
                     judged={"uniformity:Sched.step": "kill"})
    assert (verdict.verdict, verdict.killed_by) == ("KILLED", ["uniformity:Sched.step"]), (
        f"{verdict.verdict} by {verdict.killed_by}: the audit's kill was judged by the "
        "tests' expect")


CATALOG = '''\
{table}
[[mutant]]
id = "m"
title = "an agreed value replaced by its local source"
target = "os.path:join"
operator = "return"
value = "None"
owners = ["uniformity:Sched.step",
          "uniformity:Sched..bad"]
'''


def test_catalog_checks_the_uniformity_table_and_owners_in_one_pass(tmp_path):
    path = tmp_path / "mutants.toml"
    path.write_text(CATALOG.format(table='[uniformity]\ntarget = "sched"\nrooot = "."\n'))
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    text = caught.value.render()
    assert f"{path}:2: [uniformity] target 'sched' is not 'package.module:Class'" in text, text
    assert f"{path}:3: unknown [uniformity] key 'rooot'; did you mean 'root'?" in text, text
    assert (f"{path}:12: owner 'uniformity:Sched..bad': 'Sched..bad' is not a qualified "
            "function name") in text, text


def test_a_uniformity_owner_without_an_audit_target_is_an_error_at_its_line(tmp_path):
    path = tmp_path / "mutants.toml"
    path.write_text(CATALOG.format(table="").replace(',\n          "uniformity:Sched..bad"', ""))
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    assert (f"{path}:8: owner 'uniformity:Sched.step': a uniformity owner needs the catalog's "
            "[uniformity] target") in caught.value.render(), caught.value.render()


def test_an_audit_verdict_is_reused_only_while_the_files_the_audit_reads_are_unchanged(
        tmp_path):
    import shutil

    from deskcheck.mutants.reuse import TestUniverse

    project = tmp_path / "uniproj"
    shutil.copytree(Path(__file__).parent / "fixtures" / "uniproj", project,
                    ignore=shutil.ignore_patterns("__pycache__"))

    def fingerprint() -> tuple[list[Path], str]:
        catalog = load_catalog(project / "mutants.toml")
        mutant = catalog.get("room.audit_only")
        universe = TestUniverse(catalog)
        files = universe.owner_files(mutant)
        return files, universe.fingerprint(mutant, "def step(self): ...", files)

    files, first = fingerprint()
    assert files is not None and {project.resolve() / "unisched" / "sched.py",
                                  project.resolve() / "pyproject.toml"} <= set(files), (
        f"the audit's source and declarations are not among the files its verdict uses: {files}")
    (project / "unisched" / "pool.py").write_text("SIZE = 4\n")
    _, second = fingerprint()
    assert second != first, "a new source file under the audit's root kept the old verdict"
    with (project / "pyproject.toml").open("a") as out:
        out.write('rank_local = ["*.busy"]\n')
    _, third = fingerprint()
    assert third != second, "a changed declaration kept the old verdict"


def sanctioned() -> FakeDecision:
    return FakeDecision("Sched.step", "SANCTIONED", inputs=[
        FakeInput("self.agreed", "SANCTIONED", ["sched.py:3 self.agreed"])])


def test_a_declaration_that_fails_under_the_mutant_kills_through_the_decision_it_sanctions(
        tmp_path):
    unproven = FakeFinding("self.agreed", "unproven")
    audit = FakeAudit([sanctioned()], mutated_findings=[unproven])
    got = judge(audit).judge(OWNER, mutated_function(tmp_path))
    assert got.killed, "an agreed field written from its local source did not kill"
    assert got.message.startswith(
        "UnprovenSource: Sched.step at sched.py:3: `self.agreed > 0` SANCTIONED, through a "
        "declaration that fails under the mutant: self.agreed: unproven"), got.message
    other = FakeAudit([sanctioned()], mutated_findings=[FakeFinding("self.other", "unproven")])
    assert not judge(other).judge(OWNER, mutated_function(tmp_path)).killed, (
        "a declaration no input of the owner's decisions rests on killed it")


def test_a_declaration_already_failing_on_clean_code_makes_the_owner_red():
    red = judge(FakeAudit([sanctioned()], clean_findings=[FakeFinding("self.agreed", "stale")])
                ).baseline_red(OWNER)
    assert red is not None and "a declaration its decisions rest on fails: self.agreed: " \
        "stale" in red, red
