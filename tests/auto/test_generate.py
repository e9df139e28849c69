from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.errors import ConfigError
from deskcheck.mutants.auto.changes import ChangedFile, ChangeSet, changed_production_lines
from deskcheck.mutants.auto.generate import Generation, generate_auto_mutants
from deskcheck.mutants.auto.operators import operator_filter
from tests.auto.fixture_repo import line_of


def generate(tmp_path: Path, source: str, changed_needles: list[str], **kwargs) -> Generation:
    """Write ``pkg/mod.py`` and mutate the lines containing each needle."""
    source = textwrap.dedent(source)
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(source)
    lines = {n for n, text in enumerate(source.splitlines(), start=1)
             if any(needle in text for needle in changed_needles)}
    assert len(lines) >= len(changed_needles), "every needle must name a line"
    changes = ChangeSet(root=tmp_path, base="base",
                        files=[ChangedFile("pkg/mod.py", frozenset(lines))])
    return generate_auto_mutants(changes, **kwargs)


def test_fixture_branch_mutates_only_changed_lines(fixture_repo: Path):
    changes = changed_production_lines(fixture_repo, "main")
    generation = generate_auto_mutants(changes)
    changed = changes.files[0].lines
    assert generation.mutants, "the branch changes mutable lines"
    assert all(m.line in changed for m in generation.mutants)
    targets = {m.target for m in generation.mutants}
    assert targets == {"fixpkg.decide:should_admit", "fixpkg.decide:rank_pick",
                       "fixpkg.decide:clamp", "fixpkg.decide:unused_helper",
                       "fixpkg.decide:scaled"}
    reasons = {s.line: s.reason for s in generation.suppressed}
    decide = "fixpkg/decide.py"

    def reason(needle: str) -> str:
        line = line_of(fixture_repo, decide, needle)
        assert line in reasons, (
            f"the arid line {decide}:{line} (`{needle}`) was not suppressed as arid; "
            f"suppressed: {reasons}")
        return reasons[line]

    assert reason("logger.info(") == "logging call"
    assert reason("assert need >= 0") == "assert"
    assert reason("How many requests fit") == "docstring"
    assert reason("return f\"Ballot(") == "__repr__ body"
    assert reason("# pragma: no mutate") == "pragma: no mutate"
    assert reason("Sequence, Mapping").startswith("type-only")
    assert "module/class-level" in reason("THRESHOLD = 3")


def test_method_mutant_is_located_by_qualified_name(tmp_path: Path):
    generation = generate(tmp_path, """
        class Outer:
            class Inner:
                def decide(self, a, b):
                    def helper(x):
                        return x > a
                    return helper(b)
        """, ["return x > a"])
    (mutant,) = generation.mutants
    assert mutant.target == "pkg.mod:Outer.Inner.decide"
    assert mutant.function == "Outer.Inner.decide"
    assert mutant.mutated_function_source.startswith("def decide(self, a, b):")
    assert "return x >= a" in mutant.mutated_function_source


def test_formatting_and_comments_survive_in_the_mutated_function(tmp_path: Path):
    generation = generate(tmp_path, """
        def pick(xs,   limit):  # odd spacing kept
            # choose the first that fits
            for x in xs:
                if x<limit:   # tight comparison
                    return x
            return None
        """, ["if x<limit"])
    (mutant,) = generation.mutants
    before = mutant.function_source.splitlines()
    after = mutant.mutated_function_source.splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [("        if x<limit:   # tight comparison",
                        "        if x<=limit:   # tight comparison")]
    assert mutant.diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")
    assert "-        if x<limit:" in mutant.diff and "+        if x<=limit:" in mutant.diff


@pytest.mark.parametrize("arid_line, reason", [
    ("logger.info('n=%s', n + 1)", "logging call"),
    ("logging.getLogger(__name__).debug(n + 1)", "logging call"),
    ("self.log.warning('n=%s', n + 1)", "logging call"),
    ("print(n + 1)", "print call"),
    ("warnings.warn(str(n + 1))", "warnings call"),
    ("self.metrics.observe(n + 1)", "metrics call"),
    ("stats_counter.inc(n + 1)", "metrics call"),
    ("assert n + 1 > 0", "assert"),
])
def test_arid_statements_get_no_mutant_but_the_same_code_elsewhere_does(
        tmp_path: Path, arid_line: str, reason: str):
    generation = generate(tmp_path, f"""
        def f(self, n, logger, logging, warnings, stats_counter):
            {arid_line}
            return n + 1 > 0
        """, [arid_line, "return n + 1 > 0"])
    suppressed = [(s.line, s.reason) for s in generation.suppressed]
    assert suppressed == [(3, reason)], (
        f"`{arid_line}` is arid ({reason}; docs/auto.md: arid lines are suppressed) and must "
        f"get no mutant; suppressed (line, reason): {suppressed}, mutants at lines "
        f"{[m.line for m in generation.mutants]}")
    lines = [m.line for m in generation.mutants]
    assert lines == [4], (
        f"only the live twin `return n + 1 > 0` (line 4) is mutated: the filter can fail; {lines}")


def test_docstrings_reprs_and_type_only_code_are_arid(tmp_path: Path):
    generation = generate(tmp_path, '''
        from typing import TYPE_CHECKING, overload
        import typing
        if TYPE_CHECKING:
            LIMIT = 1 + 1
        else:
            LIMIT2 = 2 + 2


        def f(a: int = 3 + 4) -> "int | None":
            """Docstring that changed."""
            ...
            x: int
            T = typing.TypeVar("T")
            return a + 1


        class C:
            def __repr__(self):
                return "C(" + str(1 + 1) + ")"

            def __str__(self):
                return str(2 + 2)

            @overload
            def g(self, x: int) -> int: ...
        ''', ["TYPE_CHECKING, overload", "import typing", "LIMIT = 1 + 1", "LIMIT2 = 2 + 2",
              "def f(", "Docstring", "...", "x: int", "TypeVar", "return a + 1",
              "return \"C(\"", "return str(2 + 2)", "def g("])
    reasons = {s.line: s.reason for s in generation.suppressed}
    assert reasons[2] == reasons[3] == "type-only (typing import)"
    assert reasons[5] == "type-only (TYPE_CHECKING block)"
    assert reasons[7] == "module/class-level code (not injectable)"  # else: is runtime code
    assert reasons[10].startswith("function signature")
    assert reasons[11] == "docstring"
    assert reasons[12] == "type-only (...)"
    assert reasons[13] == "type-only (annotation)"
    assert reasons[14] == "type-only (TypeVar)"
    assert reasons[20] == "__repr__ body"
    assert reasons[23] == "__str__ body"
    assert reasons[26] == "type-only (@overload stub)"
    assert [m.line for m in generation.mutants] == [15]


def test_pragma_no_mutate_lines_are_skipped(tmp_path: Path):
    generation = generate(tmp_path, """
        def f(a, b):
            x = a < b  # pragma: no mutate
            y = a < b
            return x, y
        """, ["x = a < b", "y = a < b"])
    assert [m.line for m in generation.mutants] == [4]
    assert [(s.line, s.reason) for s in generation.suppressed] == [(3, "pragma: no mutate")]


SOURCE_MANY = """
    def f(a, b, c):
        total = a * 2 + c
        ok = a < b and not c
        return total if ok else -1
    """


def test_per_line_cap_keeps_the_most_useful_operator(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["ok = a < b and not c"])
    (mutant,) = generation.mutants
    assert mutant.family == "ROR", (
        "with one mutant per line, `ok = a < b and not c` must keep its most useful family, "
        "ROR (docs/auto.md usefulness ranking: ... > ROR > LCR > UOI ...); it kept "
        f"{mutant.family}: {mutant.changed_line_after.strip()}")
    assert mutant.changed_line_after.strip() == "ok = a <= b and not c"
    assert generation.dropped_by_line_cap == generation.candidates - 1 > 0


def test_raising_the_per_line_cap_adds_mutants_in_rank_order(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["ok = a < b and not c"], per_line=3)
    # the three best-ranked families of the line; ASSIGN (`ok = None`) is cut
    assert sorted(m.family for m in generation.mutants) == ["LCR", "ROR", "UOI"]
    assert len({m.id for m in generation.mutants}) == 3
    with pytest.raises(ConfigError):
        generate(tmp_path, SOURCE_MANY, ["ok ="], per_line=0)


def test_pr_cap_keeps_the_most_useful_lines(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["total =", "ok =", "return total"],
                          max_mutants=2)
    families = [m.family for m in generation.mutants]
    assert families == ["ROR", "COND"], (
        "the PR cap (2) must keep the most useful lines by the documented ranking (ROR before "
        f"LCR before ... ASSIGN); it kept {families}")
    assert generation.dropped_by_pr_cap == 1


def test_operator_filter_by_family_and_unknown_names(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["ok ="], keep=operator_filter(["LCR"]))
    assert [m.family for m in generation.mutants] == ["LCR"]
    with pytest.raises(ConfigError) as caught:
        operator_filter(["operator_nope"])
    assert "operator_nope" in caught.value.render()
