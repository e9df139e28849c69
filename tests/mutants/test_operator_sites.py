"""The operators as docs/mutants.md (*Operators*) describes them, on the forms the earlier
tests left out: expressions in load position only (never an attribute's name, an assignment
target or a loop variable), inside ``+=``, walrus and ``for``; parentheses and formatting kept;
two matches without ``occurrence`` refused; and the words of every STALE, BROKEN and catalog
problem (each names the key, the snippet and the function, with its fix). Gaps mutmut found in
deskcheck/mutants/operators/ (issue 17). Each test applies one operator to a function parsed
with libcst and reads the code it gives back."""

from __future__ import annotations

import textwrap
from typing import Any

import libcst as cst
import pytest

from deskcheck.mutants.operators import (
    BrokenMutant,
    DropCall,
    ForceBranch,
    Offset,
    Operator,
    OperatorParamError,
    Replace,
    ReturnValue,
    StaleOperator,
    Swap,
)
from deskcheck.mutants.operators.base import collect_expressions

WHERE = "pkg.mod:f"


def mutate(operator: type[Operator], source: str, **params: Any) -> str:
    """The code of the function ``source`` defines, after ``operator`` with ``params``."""
    func = cst.parse_module(textwrap.dedent(source)).body[0]
    assert isinstance(func, cst.FunctionDef), "the test's source must define one function"
    operator.validate(params)
    return cst.Module(body=[operator(params).apply(func, WHERE)]).code


def refusal(operator: type[Operator], source: str, error: type[Exception], **params: Any) -> str:
    """The message of the ``error`` the operator raises on ``source``."""
    with pytest.raises(error) as caught:
        mutate(operator, source, **params)
    return str(caught.value)


def problems(operator: type[Operator], **params: Any) -> list[tuple[str | None, str, str]]:
    """The (key, message, fix) problems the operator's catalog check reports."""
    with pytest.raises(OperatorParamError) as caught:
        operator.validate(params)
    return caught.value.problems


# -- which expressions match: load position only, everywhere in the body --------------------

def test_an_attribute_name_is_not_the_expression_of_the_same_name():
    got = mutate(Offset, """
        def f(self, limit):
            return self.limit + limit
        """, expression="limit", by=1)
    assert "return self.limit + (limit + 1)" in got, (
        "offset `limit` must reach the parameter only: `self.limit`'s attribute name is not "
        f"an expression (docs: located in load position); got:\n{got}")


def test_the_value_of_an_augmented_assignment_is_reached():
    got = mutate(Offset, """
        def f(total, step):
            total += step
            return total
        """, expression="step", by=2)
    assert "total += (step + 2)" in got, (
        f"offset must reach the value of `total += step`; got:\n{got}")


def test_a_walrus_value_is_reached_and_its_target_is_not():
    got = mutate(Offset, """
        def f(queue, limit):
            if (n := len(queue)) > limit:
                return n
            return 0
        """, expression="n", by=1)
    assert "return (n + 1)" in got and "(n := len(queue))" in got, (
        "offset `n` must reach the one load of n, never the walrus target `n :=`; got:\n"
        f"{got}")
    got = mutate(Offset, """
        def f(queue, limit):
            if (n := len(queue)) > limit:
                return n
            return 0
        """, expression="len(queue)", by=1)
    assert "(n := (len(queue) + 1))" in got, (
        f"offset must reach the value of a walrus; got:\n{got}")


def test_a_loop_variable_is_not_a_site_but_its_uses_are():
    got = mutate(Offset, """
        def f(items):
            total = 0
            for item in items:
                total = total + item
            return total
        """, expression="item", by=1)
    assert "for item in items:" in got and "total = total + (item + 1)" in got, (
        "offset `item` must reach its one use in the loop body, not the loop variable nor "
        f"the iterable twice; got:\n{got}")
    got = mutate(Offset, """
        def f(xs):
            return [x * 2 for x in xs]
        """, expression="x", by=1)
    assert "return [(x + 1) * 2 for x in xs]" in got, (
        f"offset `x` must reach the element of a comprehension, not its variable; got:\n{got}")


def test_collect_expressions_can_keep_only_one_node_type():
    func = cst.parse_module("def f(a):\n    return a + 1, (a + 1)\n").body[0]
    assert len(collect_expressions(func, "a + 1")) == 2, (
        "both `a + 1` sites (one parenthesized) must match formatting-blind")
    assert collect_expressions(func, "a + 1", cst.Call) == [], (
        "with node_type=cst.Call no BinaryOperation may be collected")
    names = collect_expressions(func, "a", cst.Name)
    assert len(names) == 2 and all(isinstance(n, cst.Name) for n in names), (
        f"with node_type=cst.Name both loads of `a` must be collected: {names}")


def test_two_matches_without_occurrence_are_refused_with_the_fix():
    message = refusal(Swap, """
        def f(a, b):
            return a < b, b < a
        """, StaleOperator, old="<", new="<=")
    assert message == (f"swap: operator '<' matches 2 sites in {WHERE}; add occurrence = 1..2 "
                       "(or \"all\")"), (
        "two sites and no occurrence must be refused (docs: more than one match needs "
        f"occurrence = N), naming the count and the fix; got {message!r}")


# -- formatting and parentheses kept ----------------------------------------------------------

def test_a_swapped_expression_keeps_its_parentheses():
    got = mutate(Swap, """
        def f(a, b, c):
            return (a + b) * c
        """, old="a + b", new="a - b")
    assert "return (a - b) * c" in got, (
        "an expression swap must keep the site's parentheses (without them `a - b * c` "
        f"changes the precedence); got:\n{got}")


def test_a_swapped_operator_keeps_the_sites_spacing():
    got = mutate(Swap, """
        def f(a, b):
            return a<b and b>=a
        """, old="<", new="<=")
    assert "return a<=b and b>=a" in got, (
        f"swap keeps formatting (docs: libcst, formatting kept): `a<b` must become `a<=b`; "
        f"got:\n{got}")
    got = mutate(Swap, """
        def f(a, b):
            return a  and  b
        """, old="and", new="or")
    assert "return a  or  b" in got, f"`a  and  b` must keep its spacing as `a  or  b`:\n{got}"


def test_a_multi_word_operator_is_an_operator_token():
    got = mutate(Swap, """
        def f(a):
            return a is  not None
        """, old="is   not", new="is")
    assert "return a is None" in got, (
        f"`is not` (any spacing) is a comparison token swappable for `is`; got:\n{got}")


def test_a_forced_parenthesized_condition_keeps_its_parentheses():
    got = mutate(ForceBranch, """
        def f(ready):
            if (ready):
                return 1
            return 0
        """, condition="ready", to=True)
    assert "if (True):" in got, (
        f"force-branch must keep the condition's parentheses; got:\n{got}")
    cst.parse_module(got)  # the mutated code must still parse


def test_an_offset_of_a_parenthesized_expression_is_not_doubly_parenthesized():
    got = mutate(Offset, """
        def f(limit):
            return (limit) * 2
        """, expression="limit", by=3)
    assert "return (limit + 3) * 2" in got, (
        f"offset turns `(limit)` into `(limit + 3)` (docs: `(expression + by)`); got:\n{got}")
    got = mutate(Offset, """
        def f(a, b):
            return (a + b) * 2
        """, expression="a + b", by=-1)
    assert "return ((a + b) - 1) * 2" in got, (
        f"a compound expression is wrapped once before the offset; got:\n{got}")


def test_a_dropped_call_keeps_the_statements_semicolon():
    got = mutate(DropCall, """
        def f(log, x):
            log("a"); return x
        """, call="log")
    assert 'pass; return x' in got, (
        f"a dropped statement call on a line with `;` must become `pass;`; got:\n{got}")


def test_return_keeps_only_a_real_docstring():
    got = mutate(ReturnValue, """
        def f():
            label = "kept?"
            return label
        """, value="None")
    assert "label" not in got and "return None" in got, (
        "a first statement that assigns a string is no docstring: `return` must replace it; "
        f"got:\n{got}")
    got = mutate(ReturnValue, """
        def f(x):
            if x:
                return 1
            return 2
        """, value="0")
    assert "if x" not in got and "return 0" in got, (
        f"a body that starts with an `if` becomes `return 0` alone; got:\n{got}")


# -- the words of STALE and BROKEN ------------------------------------------------------------

SOURCE = """
def f(log, limit):
    log("start")
    return limit + 1
"""


@pytest.mark.parametrize(("operator", "params", "words"), [
    (DropCall, {"call": "record"}, "drop-call: call 'record' not found in pkg.mod:f"),
    (Offset, {"expression": "budget", "by": 1},
     "offset: expression 'budget' not found in pkg.mod:f"),
    (Swap, {"old": "min", "new": "max"}, "swap: expression 'min' not found in pkg.mod:f"),
    (Swap, {"old": "*", "new": "/"}, "swap: operator '*' not found in pkg.mod:f"),
    (Swap, {"old": "limit +", "new": "0"}, "swap: expression 'limit +' not found in pkg.mod:f"),
    (Replace, {"old": "limit - 1", "new": "limit"},
     "replace: snippet 'limit - 1' not found in pkg.mod:f"),
], ids=["drop-call", "offset", "swap-expression", "swap-operator", "swap-unparsable", "replace"])
def test_a_stale_operator_names_the_snippet_and_the_function(operator, params, words):
    message = refusal(operator, SOURCE, StaleOperator, **params)
    assert message == words, (
        f"{operator.name} must go STALE naming what it looked for and where: expected "
        f"{words!r}, got {message!r}")


def test_a_snippet_found_twice_is_refused_by_replace_with_the_count():
    message = refusal(Replace, SOURCE, StaleOperator, old="limit", new="cap")
    assert message == ("replace: snippet 'limit' found 2 times (must be exactly once) in "
                       "pkg.mod:f"), (
        f"replace needs its snippet exactly once (docs) and must say how often it is found; "
        f"got {message!r}")


@pytest.mark.parametrize(("operator", "params", "key", "code"), [
    (Swap, {"old": "log", "new": "a b"}, "new", "a b"),
    (DropCall, {"call": "log", "value": "1 +"}, "value", "1 +"),
    (ReturnValue, {"value": "return"}, "value", "return"),
], ids=["swap-new", "drop-call-value", "return-value"])
def test_a_replacement_that_is_no_expression_is_broken_naming_its_key(operator, params, key,
                                                                      code):
    message = refusal(operator, SOURCE, BrokenMutant, **params)
    assert message.startswith(f"{key} = {code!r} is not a Python expression: "), (
        f"{operator.name} with {key} = {code!r} must be BROKEN naming the catalog key and the "
        f"text; got {message!r}")


def test_a_replace_that_breaks_the_function_is_broken_with_the_reason():
    message = refusal(Replace, SOURCE, BrokenMutant, old="limit + 1", new="limit +")
    assert message.startswith("replace: pkg.mod:f does not parse after replacing "
                              "'limit + 1' with 'limit +': "), (
        f"a replace whose result does not parse must say where, what and with what; "
        f"got {message!r}")
    message = refusal(Replace, SOURCE, BrokenMutant, old="def f(log, limit):",
                      new="class f:")
    assert message == "replace: pkg.mod:f is no longer a function after the replace", (
        f"a replace that turns the function into something else must say so; got {message!r}")


# -- the words of catalog problems ------------------------------------------------------------

def test_every_problem_of_an_entry_is_reported_in_one_pass():
    found = problems(Swap, bogus=1, old=2, new="<")
    keys = [key for key, _, _ in found]
    assert "bogus" in keys and "old" in keys, (
        "an unknown key must not stop the check of the keys after it (every problem in one "
        f"pass); got problems for {keys}")
    error = OperatorParamError(found)
    assert str(error) == "; ".join(message for _, message, _ in found), (
        f"the error's text must be the problems' messages joined by '; ': {str(error)!r}")


def test_an_unknown_key_lists_the_allowed_keys_or_says_none():
    (problem,) = problems(Offset, expression="x", by=1, lineno=3)
    assert problem[0] == "lineno" and "never by line" in problem[1], (
        f"`lineno` must be refused saying mutants are never located by line: {problem}")
    assert problem[2] == "allowed keys: expression, by, occurrence", (
        f"the fix must list the operator's keys, comma-separated: {problem[2]!r}")

    class NoKeys(Operator):
        name = "no-keys"

    (problem,) = problems(NoKeys, line=4)
    assert problem[2] == "allowed keys: none", (
        f"an operator with no keys must say 'allowed keys: none': {problem[2]!r}")


def test_a_key_of_the_wrong_type_names_the_types_it_takes():
    problem = problems(Offset, expression="x", by=1, occurrence=1.5)[0]
    assert problem == ("occurrence", "offset: 'occurrence' must be int or str, got 1.5",
                       "write occurrence as int or str"), (
        f"a float occurrence must be refused naming both types it may be: {problem}")


def test_a_bad_occurrence_value_is_refused_with_its_fix():
    (problem,) = problems(Swap, old="<", new="<=", occurrence=0)
    assert problem == ("occurrence", "occurrence must be a positive integer or \"all\", got 0",
                       "occurrence = 1"), f"occurrence = 0 must be refused with a fix: {problem}"


def test_swap_with_a_new_that_is_not_text_is_a_problem_not_a_crash():
    found = problems(Swap, old="<", new=5)
    assert [(key, message) for key, message, _ in found] == [
        ("new", "swap: 'new' must be str, got 5")], (
        f"a non-text `new` must be one problem naming it, and nothing else: {found}")


def test_swap_problems_say_what_is_wrong_and_the_fix():
    (problem,) = problems(Swap, old="<", new="+")
    assert problem == ("new", "swap: '<' and '+' are not the same kind of token/expression",
                       "swap an operator for an operator of the same kind, or an expression "
                       "for an expression"), f"a swap across kinds must be refused: {problem}"
    (problem,) = problems(Swap, old="is  not", new="is not")
    assert problem == ("new", "swap: 'new' equals 'old' (no defect)", "change 'new'"), (
        f"a swap whose new equals its old (spacing aside) is no defect: {problem}")


def test_replace_and_offset_problems_say_what_is_wrong_and_the_fix():
    assert problems(Replace, old="", new="x") == [
        ("old", "replace: 'old' must not be empty", "give the exact snippet")], (
        "an empty `old` must be refused with the fix")
    assert problems(Replace, old="a", new="a") == [
        ("new", "replace: 'new' equals 'old' (no defect)", "change 'new'")], (
        "a replace of a snippet by itself is no defect")
    assert problems(Offset, expression="x", by=0) == [
        ("by", "offset: by = 0 is no defect", "use a non-zero offset")], (
        "offset by 0 is no defect")


def test_only_a_line_number_key_gets_the_line_hint():
    (problem,) = problems(Swap, old="<", new="<=", bogus=1)
    assert problem[:2] == ("bogus", "unknown key 'bogus' for operator 'swap'"), (
        "an unknown key that is no line-number key must be refused plainly, without the "
        f"'never by line' hint: {problem[:2]}")


def test_an_operator_describes_itself_by_name_and_keys():
    text = Swap({"old": "min", "new": "max", "occurrence": 2}).describe()
    assert text == "swap old='min', new='max', occurrence=2", (
        "describe() names the operator and each catalog key with its value (the STALE "
        f"'changes nothing' and BROKEN 'does not compile after' messages use it); got {text!r}")
