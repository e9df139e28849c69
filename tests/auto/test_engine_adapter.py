"""The adapter that hands auto mutants to the sweep engine (no sweep is run here)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from deskcheck.mutants import OPERATORS, BrokenMutant, StaleOperator
from deskcheck.mutants.auto.changes import ChangedFile, ChangeSet
from deskcheck.mutants.auto.engine import (
    AUTO_OPERATOR,
    NO_WRONG_FAILURE_TYPES,
    AutoSource,
    build_catalog,
)
from deskcheck.mutants.auto.generate import generate_auto_mutants
from deskcheck.report.records import VERDICTS, MutantRecord, RunRecord

SOURCE = """
class Gate:
    def admit(self, free, need):
        return free >= need and need > 0
"""


@pytest.fixture
def mutant(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "gate.py").write_text(textwrap.dedent(SOURCE))
    changes = ChangeSet(root=tmp_path, base="b", files=[ChangedFile("pkg/gate.py",
                                                                    frozenset({4}))])
    (only,) = generate_auto_mutants(changes).mutants
    return only


def _def(text: str) -> cst.FunctionDef:
    node = cst.parse_statement(textwrap.dedent(text))
    assert isinstance(node, cst.FunctionDef), (
        f"the test text must parse as a function definition; it parsed as {type(node).__name__}"
    )
    return node


def test_auto_source_turns_todays_def_into_the_mutant(mutant):
    operator = AutoSource({"original": mutant.function_source,
                           "mutated": mutant.mutated_function_source})
    out = operator.apply(_def(mutant.function_source), "Gate.admit")
    assert cst.Module(body=[out]).code == mutant.mutated_function_source, (
        "auto-source must turn today's def into the mutant's source; it gave "
        f"{cst.Module(body=[out]).code!r}"
    )


def test_reformatting_is_not_staleness_but_a_changed_def_is(mutant):
    operator = AutoSource({"original": mutant.function_source,
                           "mutated": mutant.mutated_function_source})
    reformatted = "def admit(self, free, need):  # same code\n    return (free >= need and need > 0)\n"
    operator.apply(_def(reformatted), "Gate.admit")  # same AST: no error
    with pytest.raises(StaleOperator) as caught:
        operator.apply(_def("def admit(self, free, need):\n    return free > need\n"),
                       "Gate.admit")
    assert "changed since the mutant was generated" in str(caught.value), (
        "auto-source on a def that changed must be STALE saying 'changed since the mutant was "
        f"generated'; it says {caught.value}"
    )
    broken = AutoSource({"original": mutant.function_source, "mutated": "def admit(:\n"})
    with pytest.raises(BrokenMutant, match="auto-source: the mutant of Gate.admit does not parse"):
        broken.apply(_def(mutant.function_source), "Gate.admit")


def test_the_catalog_owns_each_mutant_by_its_covering_tests(mutant, tmp_path: Path):
    owners = {mutant.id: ["tests/test_gate.py::test_admit", "tests/test_b.py::test_x[2]"]}
    catalog = build_catalog(tmp_path, [mutant], owners)
    assert AUTO_OPERATOR in OPERATORS, (
        f"the internal operator {AUTO_OPERATOR!r} must be registered among the operators "
        f"{sorted(OPERATORS)}"
    )
    (named,) = catalog.mutants
    assert catalog.root == tmp_path, (
        f"the auto catalog's root must be the checkout {tmp_path}; it is {catalog.root}"
    )
    assert named.target == "pkg.gate:Gate.admit", (
        f"the auto mutant must target pkg.gate:Gate.admit; it targets {named.target}"
    )
    assert named.operator == AUTO_OPERATOR, (
        f"the auto mutant's operator must be {AUTO_OPERATOR!r}; it is {named.operator!r}"
    )
    assert named.owners == tuple(owners[mutant.id]), (
        f"the auto mutant must be owned by its covering tests {owners[mutant.id]}; owners are "
        f"{named.owners}"
    )
    assert (named.catalog_file, named.line) == ("pkg/gate.py", 4), (
        "the auto mutant must be placed where it is, pkg/gate.py:4; it is at "
        f"{named.catalog_file}:{named.line}"
    )  # where the mutant is
    assert catalog.settings.tests == tuple(sorted(owners[mutant.id])), (
        "the auto catalog's tests must be the covering tests, sorted; they are "
        f"{catalog.settings.tests}"
    )
    # any owner failure is the mutant detected (the baseline proved the owners green) ...
    assert catalog.settings.wrong_failure_types == NO_WRONG_FAILURE_TYPES, (
        "by default any owner failure detects an auto mutant (no wrong_failure_types); they are "
        f"{catalog.settings.wrong_failure_types}"
    )
    # ... unless the project asks for the named-mutant strictness
    strict = build_catalog(tmp_path, [mutant], owners, wrong_failure_types=["TypeError"])
    assert strict.settings.wrong_failure_types == ("TypeError",), (
        "wrong_failure_types asked for must reach the auto catalog; it has "
        f"{strict.settings.wrong_failure_types}"
    )


def test_a_rank_crash_under_an_auto_mutant_is_a_kill_not_a_wrong_failure():
    """Owners green on clean code, red under the mutant: detected, whatever the exception."""
    from deskcheck.mutants.verdicts import ItemResult, decide

    crash = ItemResult(nodeid="t::gloo", outcome="failed",
                       message="deskcheck.errors.RankError: rank 0 raised TypeError",
                       text="rank 0 (pid 1): raised TypeError: expected Tensor, got None")
    assert decide(["t::gloo"], [crash], None, NO_WRONG_FAILURE_TYPES).verdict == "KILLED", (
        "a rank crash under an auto mutant must be KILLED; it was "
        f"{decide(['t::gloo'], [crash], None, NO_WRONG_FAILURE_TYPES).verdict}"
    )
    strict = decide(["t::gloo"], [crash], None, ("TypeError",))
    assert strict.verdict == "WRONG_FAILURE", (
        "with wrong_failure_types = TypeError a TypeError crash must be WRONG_FAILURE; it was "
        f"{strict.verdict}"
    )  # the named-mutant rule, when asked for


def test_the_store_keeps_no_coverage_as_its_own_verdict(tmp_path):
    """An uncovered changed line is recorded as NO_COVERAGE, never folded into SURVIVED."""
    from deskcheck.report.store import Store

    record = MutantRecord(id="a", title="", target="m:f", operator="", verdict="NO_COVERAGE")
    assert "NO_COVERAGE" in VERDICTS, (
        f"NO_COVERAGE must be a verdict of its own; the verdicts are {VERDICTS}"
    )
    with Store(tmp_path / "results.sqlite") as store:
        run_id = store.begin_run(RunRecord(kind="auto"))
        store.record_mutant(run_id, record)
        (stored,) = store.mutants(run_id)
    assert stored.verdict == "NO_COVERAGE", (
        f"the store must keep NO_COVERAGE as recorded; it read back {stored.verdict}"
    )
