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
    assert all(m.line in changed for m in generation.mutants), (
        f"--auto must mutate only the branch's changed lines {sorted(changed)}; it mutated lines "
        f"{sorted(m.line for m in generation.mutants)}"
    )
    targets = {m.target for m in generation.mutants}
    assert targets == {"fixpkg.decide:should_admit", "fixpkg.decide:rank_pick",
                       "fixpkg.decide:clamp", "fixpkg.decide:unused_helper",
                       "fixpkg.decide:scaled"}, (
        "the mutants' targets must be the changed functions of fixpkg/decide.py; they are "
        f"{sorted(targets)}"
    )
    reasons = {s.line: s.reason for s in generation.suppressed}
    decide = "fixpkg/decide.py"

    def reason(needle: str) -> str:
        line = line_of(fixture_repo, decide, needle)
        assert line in reasons, (
            f"the arid line {decide}:{line} (`{needle}`) was not suppressed as arid; "
            f"suppressed: {reasons}")
        return reasons[line]

    assert reason("logger.info(") == "logging call", (
        "a logger.info(...) line is arid as 'logging call'; it was suppressed as "
        f"{reason('logger.info(')!r}"
    )
    assert reason("assert need >= 0") == "assert", (
        f"an assert line is arid as 'assert'; it was suppressed as {reason('assert need >= 0')!r}"
    )
    assert reason("How many requests fit") == "docstring", (
        "a docstring line is arid as 'docstring'; it was suppressed as "
        f"{reason('How many requests fit')!r}"
    )
    assert reason("return f\"Ballot(") == "__repr__ body", (
        "a __repr__ body is arid as '__repr__ body'; it was suppressed as "
        f"{reason('return f' + chr(34) + 'Ballot(')!r}"
    )
    assert reason("# pragma: no mutate") == "pragma: no mutate", (
        "a '# pragma: no mutate' line is suppressed as 'pragma: no mutate'; it was suppressed as "
        f"{reason('# pragma: no mutate')!r}"
    )
    assert reason("Sequence, Mapping").startswith("type-only"), (
        "a typing import is arid as 'type-only (...)'; it was suppressed as "
        f"{reason('Sequence, Mapping')!r}"
    )
    assert "module/class-level" in reason("THRESHOLD = 3"), (
        "a module-level assignment is suppressed as 'module/class-level code'; it was suppressed "
        f"as {reason('THRESHOLD = 3')!r}"
    )


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
    assert mutant.target == "pkg.mod:Outer.Inner.decide", (
        "a nested method's mutant must target its qualified name pkg.mod:Outer.Inner.decide; it "
        f"targets {mutant.target}"
    )
    assert mutant.function == "Outer.Inner.decide", (
        "a nested method's mutant must name its function Outer.Inner.decide; it names "
        f"{mutant.function}"
    )
    assert mutant.mutated_function_source.startswith("def decide(self, a, b):"), (
        "the mutated source of a method must be the whole enclosing method def decide(self, a, "
        f"b); it starts {mutant.mutated_function_source[:60]!r}"
    )
    assert "return x >= a" in mutant.mutated_function_source, (
        "ROR of `return x > a` must give `return x >= a`; the mutated function is "
        f"{mutant.mutated_function_source!r}"
    )


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
                        "        if x<=limit:   # tight comparison")], (
        "a mutant must change only its operator, keeping spacing and comments; changed lines "
        f"(before, after): {changed}"
    )
    assert mutant.diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n"), (
        f"a mutant's diff must be a unified diff of pkg/mod.py; it starts {mutant.diff[:80]!r}"
    )
    assert "-        if x<limit:" in mutant.diff and "+        if x<=limit:" in mutant.diff, (
        f"a mutant's diff must show the line before and after; it is {mutant.diff!r}"
    )


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


TRACED = """
    def f(self, n):
        self.audit.note(n + 1)
        self.pool.free(n + 1)
        return n
    """


def test_auto_arid_calls_patterns_make_matching_call_statements_arid(tmp_path: Path):
    plain = generate(tmp_path, TRACED, ["self.audit.note", "self.pool.free"])
    assert sorted(m.line for m in plain.mutants) == [3, 4] and not plain.suppressed, (
        "without auto_arid_calls, `self.audit.note(n + 1)` is live code and must be mutated "
        f"like its twin; mutants at {sorted(m.line for m in plain.mutants)}, suppressed "
        f"{[(s.line, s.reason) for s in plain.suppressed]}")
    arid = generate(tmp_path, TRACED, ["self.audit.note", "self.pool.free"],
                    arid_calls=["self.audit.*"])
    suppressed = [(s.line, s.reason) for s in arid.suppressed]
    assert suppressed == [(3, "arid call (self.audit.*)")], (
        "docs/auto.md: auto_arid_calls = ['self.audit.*'] makes `self.audit.note(...)` "
        f"arid, suppressed with the pattern as its reason; suppressed: {suppressed}")
    assert [m.line for m in arid.mutants] == [4], (
        "the pattern self.audit.* must not reach `self.pool.free(...)` (line 4); mutants at "
        f"{[m.line for m in arid.mutants]}")


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
    assert reasons.get(2) == reasons.get(3) == "type-only (typing import)", (
        "typing imports (lines 2, 3) are arid as 'type-only (typing import)'; suppressed: "
        f"{reasons}"
    )
    assert reasons.get(5) == "type-only (TYPE_CHECKING block)", (
        "a TYPE_CHECKING block (line 5) is arid as 'type-only (TYPE_CHECKING block)'; suppressed: "
        f"{reasons}"
    )
    assert reasons.get(7) == "module/class-level code (not injectable)", (
        "module-level code in else: (line 7) is suppressed as 'module/class-level code (not "
        f"injectable)'; suppressed: {reasons}"
    )  # else: is runtime code
    assert (reasons.get(10) or "").startswith("function signature"), (
        "a default in a signature (line 10) is suppressed as 'function signature'; suppressed: "
        f"{reasons}"
    )
    assert reasons.get(11) == "docstring", (
        f"a changed docstring (line 11) is arid as 'docstring'; suppressed: {reasons}"
    )
    assert reasons.get(12) == "type-only (...)", (
        f"a ... body (line 12) is arid as 'type-only (...)'; suppressed: {reasons}"
    )
    assert reasons.get(13) == "type-only (annotation)", (
        f"a bare annotation (line 13) is arid as 'type-only (annotation)'; suppressed: {reasons}"
    )
    assert reasons.get(14) == "type-only (TypeVar)", (
        f"a TypeVar (line 14) is arid as 'type-only (TypeVar)'; suppressed: {reasons}"
    )
    assert reasons.get(20) == "__repr__ body", (
        f"a __repr__ body (line 20) is arid as '__repr__ body'; suppressed: {reasons}"
    )
    assert reasons.get(23) == "__str__ body", (
        f"a __str__ body (line 23) is arid as '__str__ body'; suppressed: {reasons}"
    )
    assert reasons.get(26) == "type-only (@overload stub)", (
        "an @overload stub (line 26) is arid as 'type-only (@overload stub)'; suppressed: "
        f"{reasons}"
    )
    assert [m.line for m in generation.mutants] == [15], (
        "only the live `return a + 1` (line 15) may be mutated; mutants at lines "
        f"{[m.line for m in generation.mutants]}"
    )


def test_pragma_no_mutate_lines_are_skipped(tmp_path: Path):
    generation = generate(tmp_path, """
        def f(a, b):
            x = a < b  # pragma: no mutate
            y = a < b
            return x, y
        """, ["x = a < b", "y = a < b"])
    assert [m.line for m in generation.mutants] == [4], (
        "only the line without '# pragma: no mutate' (line 4) may be mutated; mutants at lines "
        f"{[m.line for m in generation.mutants]}"
    )
    assert [(s.line, s.reason) for s in generation.suppressed] == [(3, "pragma: no mutate")], (
        "the pragma line 3 must be suppressed as 'pragma: no mutate'; suppressed: "
        f"{[(s.line, s.reason) for s in generation.suppressed]}"
    )


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
    assert mutant.changed_line_after.strip() == "ok = a <= b and not c", (
        "the ROR mutant of `ok = a < b and not c` must be `ok = a <= b and not c`; it is "
        f"{mutant.changed_line_after.strip()!r}"
    )
    assert generation.dropped_by_line_cap == generation.candidates - 1 > 0, (
        "with one mutant per line every other candidate must count as dropped_by_line_cap; "
        f"dropped {generation.dropped_by_line_cap} of {generation.candidates} candidates"
    )


def test_raising_the_per_line_cap_adds_mutants_in_rank_order(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["ok = a < b and not c"], per_line=3)
    # the three best-ranked families of the line; ASSIGN (`ok = None`) is cut
    assert sorted(m.family for m in generation.mutants) == ["LCR", "ROR", "UOI"], (
        "per_line = 3 must keep the three best-ranked families LCR, ROR, UOI; it kept "
        f"{sorted(m.family for m in generation.mutants)}"
    )
    assert len({m.id for m in generation.mutants}) == 3, (
        "the three mutants of one line must have distinct ids; ids: "
        f"{[m.id for m in generation.mutants]}"
    )
    with pytest.raises(ConfigError, match="the per-line mutant cap must be at least 1"):
        generate(tmp_path, SOURCE_MANY, ["ok ="], per_line=0)


def test_pr_cap_keeps_the_most_useful_lines(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["total =", "ok =", "return total"],
                          max_mutants=2)
    families = [m.family for m in generation.mutants]
    assert families == ["ROR", "COND"], (
        "the PR cap (2) must keep the most useful lines by the documented ranking (ROR before "
        f"LCR before ... ASSIGN); it kept {families}")
    assert generation.dropped_by_pr_cap == 1, (
        "the PR cap (2) of 3 mutated lines must count 1 dropped_by_pr_cap; it counted "
        f"{generation.dropped_by_pr_cap}"
    )


@pytest.mark.parametrize("cap", [-1, 3, 50])
def test_a_pr_cap_of_minus_one_or_at_least_the_mutants_keeps_them_all(tmp_path: Path, cap: int):
    generation = generate(tmp_path, SOURCE_MANY, ["total =", "ok =", "return total"],
                          max_mutants=cap)
    lines = sorted(m.line for m in generation.mutants)
    meaning = "-1: no cap" if cap < 0 else "not below the 3 mutants of the change"
    assert len(lines) == 3 and generation.dropped_by_pr_cap == 0, (
        f"docs/auto.md: auto_max_mutants = {cap} ({meaning}) must keep all 3 mutated lines; "
        f"it kept lines {lines} and counted {generation.dropped_by_pr_cap} dropped_by_pr_cap")


def test_operator_filter_by_family_and_unknown_names(tmp_path: Path):
    generation = generate(tmp_path, SOURCE_MANY, ["ok ="], keep=operator_filter(["LCR"]))
    assert [m.family for m in generation.mutants] == ["LCR"], (
        "operator filter LCR must keep only LCR mutants; it kept "
        f"{[m.family for m in generation.mutants]}"
    )
    with pytest.raises(ConfigError) as caught:
        operator_filter(["operator_nope"])
    assert "operator_nope" in caught.value.render(), (
        f"an unknown operator name must be named in the error; it says {caught.value.render()!r}"
    )
