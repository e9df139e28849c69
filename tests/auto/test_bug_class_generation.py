"""Bug-class mutants on changed lines that touch a collective, its input or its output: they
come before mutmut's operators, within the same caps."""

from __future__ import annotations

import pytest

from deskcheck.errors import ConfigError
from deskcheck.mutants.auto.changes import changed_production_lines
from deskcheck.mutants.auto.generate import generate_auto_mutants
from deskcheck.mutants.auto.operators import FAMILY_RANK, operator_filter
from tests.auto.newcomer_branch import make_newcomer_branch


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory):
    repo = make_newcomer_branch(tmp_path_factory.mktemp("newcomer") / "repo",
                                with_collective_touch=True)
    return changed_production_lines(repo, "main")


def by_line(generation) -> dict[int, tuple[str, str]]:
    return {m.line: (m.family, m.changed_line_after) for m in generation.mutants}


def test_every_changed_line_of_the_reduce_gets_a_bug_class_mutant_first(newcomer):
    got = by_line(generate_auto_mutants(newcomer, per_line=1, max_mutants=50))
    families = {family: after for _line, (family, after) in got.items()}
    assert len(got) == 4 and sorted(families) == ["LOCAL", "REDOP", "SKIP", "SLOT"], (
        f"each of the four changed lines of the reduce must get one bug-class mutant (the "
        f"slot shifted, the rank-0 skip, the local read, the reduce op), got {got}")
    assert families["LOCAL"] == "self._uniform_admit_limit = vals[count_at]", (
        f"the read of the group's count was not made rank-local: {families['LOCAL']}")
    assert families["SKIP"] == ("reduced = (self._all_reduce_min(vals) if self.tp_rank == 0 "
                                "else vals)"), (
        "the skip-on-rank mutant must let only rank 0 (`runs_on` defaults to 0) run the "
        f"collective: `... if self.tp_rank == 0 else vals`; it made {families['SKIP']!r}")
    assert "ReduceOp.MAX" in families["REDOP"], families["REDOP"]


def test_the_pr_cap_keeps_the_bug_class_before_anything_else(newcomer):
    generation = generate_auto_mutants(newcomer, per_line=1, max_mutants=3)
    assert sorted(m.family for m in generation.mutants) == ["LOCAL", "REDOP", "SKIP"], (
        [(m.line, m.family) for m in generation.mutants])
    assert generation.dropped_by_pr_cap == 1, (
        "the PR cap of 3 over 4 candidate lines must count 1 dropped_by_pr_cap; it counted "
        f"{generation.dropped_by_pr_cap}"
    )


def test_without_the_bug_class_the_same_lines_get_mutmuts_operators(newcomer):
    generic = operator_filter(list(FAMILY_RANK))
    got = by_line(generate_auto_mutants(newcomer, per_line=1, max_mutants=50, keep=generic))
    assert got and not {f for f, _ in got.values()} & {"SLOT", "SKIP", "LOCAL", "REDOP"}, got


def test_bug_class_operators_and_families_can_be_chosen_by_name():
    keep = operator_filter(["rank-local", "SKIP"])
    assert keep("rank-local", "LOCAL") and keep("skip-on-rank", "SKIP"), (
        "an operator filter naming rank-local and SKIP must keep the rank-local and skip-on-rank "
        "operators"
    )
    assert not keep("operator_swap_op", "ROR"), (
        "an operator filter naming only bug-class operators must drop mutmut's operator_swap_op "
        "(ROR)"
    )
    with pytest.raises(ConfigError, match="bug-class operators"):
        operator_filter(["rank-locale"])
