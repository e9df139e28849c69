"""Operators: located inside the target function, formatting kept, STALE when they no longer
match (naming the snippet and the function)."""

from __future__ import annotations

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutated import BrokenMutant, StaleOperator
from deskcheck.mutants.mutation import build_mutation

from .conftest import FIXTURE


@pytest.fixture(autouse=True)
def fixture_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))


def mutate(target: str, operator: str, **params):
    mutant = Mutant(id="t", title="t", target=target, operator=operator, params=params)
    return build_mutation(mutant)


def changed_lines(mutated) -> tuple[list[str], list[str]]:
    diff = mutated.diff().splitlines()
    minus = [line[1:] for line in diff if line.startswith("-") and not line.startswith("---")]
    plus = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    return minus, plus


def test_replace_exact_snippet_once():
    minus, plus = changed_lines(mutate("fixpkg.calc:total", "replace", old="acc = 0",
                                       new="acc = 1"))
    assert minus == ["    acc = 0"] and plus == ["    acc = 1"], (
        "replace of 'acc = 0' by 'acc = 1' must change exactly that line of fixpkg.calc:total; "
        f"removed {minus}, added {plus}"
    )


def test_replace_stale_names_snippet_and_function():
    with pytest.raises(StaleOperator) as info:
        mutate("fixpkg.calc:total", "replace", old="acc = 7", new="acc = 1")
    assert "'acc = 7'" in str(info.value) and "fixpkg.calc:total" in str(info.value), (
        "a STALE replace must quote its snippet 'acc = 7' and name fixpkg.calc:total; it says: "
        f"{info.value}"
    )


def test_replace_must_match_exactly_once():
    try:
        mutated = mutate("fixpkg.calc:clamp", "replace", old="return", new="yield")
    except StaleOperator as exc:
        assert "found 3 times" in str(exc), (
            f"a replace of 'return' in fixpkg.calc:clamp was STALE, but does not say it was "
            f"found 3 times: {exc}")
    else:
        minus, plus = changed_lines(mutated)
        pytest.fail(f"a replace of 'return', which occurs more than once in fixpkg.calc:clamp, "
                    f"was applied instead of being STALE: {minus} became {plus}")


def test_replace_only_looks_inside_the_target():
    # "acc = 0" exists, but in total(), not in clamp()
    with pytest.raises(StaleOperator, match=r"snippet 'acc = 0' not found in function fixpkg\.calc:clamp"):
        mutate("fixpkg.calc:clamp", "replace", old="acc = 0", new="acc = 1")


def test_swap_operator_keeps_spacing():
    minus, plus = changed_lines(mutate("fixpkg.calc:admit", "swap", old="<=", new="<"))
    assert minus == ["    return cost <= budget"] and plus == ["    return cost < budget"], (
        f"swap of <= by < must keep the line's spacing; removed {minus}, added {plus}"
    )


def test_swap_expression_attribute():
    minus, plus = changed_lines(mutate("fixpkg.dist:agreed_budget", "swap",
                                       old="dist.ReduceOp.MIN", new="dist.ReduceOp.MAX"))
    assert plus == ["    dist.all_reduce(tensor, op=dist.ReduceOp.MAX)"], (
        "swap of dist.ReduceOp.MIN by dist.ReduceOp.MAX must change the attribute in place; added "
        f"{plus}"
    )


def test_swap_ambiguous_needs_occurrence():
    with pytest.raises(StaleOperator, match="matches 3 sites"):
        mutate("fixpkg.shapes:Shape.outer", "swap", old="y", new="x")
    _, plus = changed_lines(mutate("fixpkg.calc:clamp", "swap", old="low", new="high",
                                   occurrence=2))
    assert plus == ["        return high"], (
        f"swap with occurrence = 2 must change the second 'low' of fixpkg.calc:clamp; added {plus}"
    )


def test_drop_call_statement_becomes_pass():
    minus, plus = changed_lines(mutate("fixpkg.calc:Ledger.add", "drop-call", call="self._audit"))
    assert minus == ["        self._audit(entry)"] and plus == ["        pass"], (
        f"drop-call of a statement call self._audit must turn it into pass; removed {minus}, added "
        f"{plus}"
    )


def test_drop_call_inside_expression_uses_value():
    _, plus = changed_lines(mutate("fixpkg.calc:Ledger.size", "drop-call", call="len",
                                   value="0"))
    assert plus == ["        return 0"], (
        f"drop-call of len inside an expression must put its value 0 there; added {plus}"
    )



def test_drop_call_inside_expression_defaults_to_none():
    _, plus = changed_lines(mutate("fixpkg.calc:Ledger.size", "drop-call", call="len"))
    assert plus == ["        return None"], (
        "docs/mutants.md: drop-call puts `value` (default None) where a call inside an "
        f"expression was; without value, `return len(self.entries)` became {plus}")

def test_force_branch_if_and_nested_def():
    _, plus = changed_lines(mutate("fixpkg.shapes:Shape.outer.inner", "force-branch",
                                   condition="y > 2", to=True))
    assert plus == ["            if True:"], (
        "force-branch of 'y > 2' to true in the nested def Shape.outer.inner must give 'if "
        f"True:'; added {plus}"
    )


def test_force_branch_stale():
    with pytest.raises(StaleOperator, match="'value < 0' not found in function fixpkg.calc:clamp"):
        mutate("fixpkg.calc:clamp", "force-branch", condition="value < 0", to=True)


def test_return_keeps_signature():
    minus, plus = changed_lines(mutate("fixpkg.calc:admit", "return", value="True"))
    assert plus == ["    return True"] and minus == ["    return cost <= budget"], (
        "return with value True must replace the body's return and keep the signature; removed "
        f"{minus}, added {plus}"
    )


def test_offset_wraps_expression():
    _, plus = changed_lines(mutate("fixpkg.calc:Ledger.size", "offset",
                                   expression="len(self.entries)", by=2))
    assert plus == ["        return (len(self.entries) + 2)"], (
        f"offset by 2 of len(self.entries) must wrap it as (len(self.entries) + 2); added {plus}"
    )


def test_offset_never_touches_assignment_targets():
    # acc is assigned twice and read once: only the read is a site
    with pytest.raises(StaleOperator, match=r"has 1 site\(s\)"):
        mutate("fixpkg.calc:total", "offset", expression="acc", by=1, occurrence=2)
    _, plus = changed_lines(mutate("fixpkg.calc:total", "offset", expression="acc", by=1))
    assert plus == ["    return (acc + 1)"], (
        f"offset of acc must touch its one read, never its assignment targets; added {plus}"
    )


def test_broken_mutant_reported():
    with pytest.raises(BrokenMutant, match=r"does not parse after replacing 'acc = 0' with 'acc = = 0'"):
        mutate("fixpkg.calc:total", "replace", old="acc = 0", new="acc = = 0")


def test_property_setter_and_getter_are_told_apart():
    mutated = mutate("fixpkg.shapes:Shape.area", "offset", expression="3 * 4", by=1)
    assert "(3 * 4 + 1)" in mutated.mutated or "((3 * 4) + 1)" in mutated.mutated, (
        "offset by 1 of '3 * 4' in the area property must change the getter; the mutated source "
        f"is {mutated.mutated!r}"
    )
