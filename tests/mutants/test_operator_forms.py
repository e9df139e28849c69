"""The less common forms of each operator (docs/mutants.md, *Operators*): ``force-branch`` on
``while``, ``elif`` and conditional expressions; ``offset`` by a negative amount and on a
negative index; ``occurrence`` counted 1-based in source order, its last value, one past it,
and ``"all"``. Each test reads the mutated lines of a small module written for it."""

from __future__ import annotations

import sys
import textwrap

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutated import StaleOperator
from deskcheck.mutants.mutation import build_mutation

SOURCE = '''
def drain(queue, limit):
    taken = 0
    while queue and taken < limit:
        queue.pop()
        taken += 1
    return taken


def grade(score):
    if score >= 90:
        return "A"
    elif score >= 50:
        return "B"
    return "C"


def pick(flag, a, b):
    return a if flag else b


def last(items):
    return items[-1]


def spread(a, b, c):
    low = min(a, b)
    high = min(b, c)
    return a < b, b < c, c < a


def compute(a):
    return a * 2


def total(a):
    x = compute(a) + 1
    return x


async def push(channel):
    await channel.send(1)
    return True


def one_line(): return 1


def documented():
    """Kept by return."""
    value = 1
    return value


def retry(ready, log):
    if ready:
        log("first")
    while ready:
        log("again")
        ready = False
    log("done")
'''


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    root = tmp_path_factory.mktemp("forms")
    (root / "dc_opforms.py").write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def forms_on_path(forms, monkeypatch):
    # import dc_opforms from this session's folder, never a module cached by an earlier run
    monkeypatch.delitem(sys.modules, "dc_opforms", raising=False)
    monkeypatch.syspath_prepend(str(forms))


def plus(function: str, operator: str, **params) -> list[str]:
    """The lines the mutant adds (stripped), in source order."""
    mutant = Mutant(id="t", title="t", target=f"dc_opforms:{function}", operator=operator,
                    params=params)
    diff = build_mutation(mutant).diff().splitlines()
    return [ln[1:].strip() for ln in diff if ln.startswith("+") and not ln.startswith("+++")]


# (case, function, operator, params, the lines the mutant must add, why)
CASES = [
    ("while", "drain", "force-branch", {"condition": "queue and taken < limit", "to": False},
     ["while False:"], "force-branch reaches the test of a while loop"),
    ("elif", "grade", "force-branch", {"condition": "score >= 50", "to": True},
     ["elif True:"], "force-branch reaches the test of an elif, not only the first if"),
    ("ifexp", "pick", "force-branch", {"condition": "flag", "to": False},
     ["return a if False else b"], "force-branch reaches a conditional expression's test"),
    ("if_and_while_occurrence_2", "retry", "force-branch",
     {"condition": "ready", "to": False, "occurrence": 2},
     ["while False:"], "occurrence = 2 is the second site in source order (the while)"),
    ("if_and_while_all", "retry", "force-branch",
     {"condition": "ready", "to": False, "occurrence": "all"},
     ["if False:", "while False:"], "occurrence = \"all\" forces every matching test"),
    ("offset_negative", "drain", "offset", {"expression": "limit", "by": -1},
     ["while queue and taken < (limit - 1):"], "a negative by subtracts"),
    ("offset_negative_index", "last", "offset", {"expression": "-1", "by": -1},
     ["return items[((-1) - 1)]"], "an offset of a negative index keeps its sign"),
    ("swap_first", "spread", "swap", {"old": "<", "new": "<=", "occurrence": 1},
     ["return a <= b, b < c, c < a"], "occurrence = 1 is the first site in source order"),
    ("swap_last", "spread", "swap", {"old": "<", "new": "<=", "occurrence": 3},
     ["return a < b, b < c, c <= a"], "occurrence = N (the last site) is allowed"),
    ("swap_all", "spread", "swap", {"old": "<", "new": ">=", "occurrence": "all"},
     ["return a >= b, b >= c, c >= a"], "occurrence = \"all\" swaps every site"),
    ("swap_expression_all", "spread", "swap", {"old": "min", "new": "max", "occurrence": "all"},
     ["low = max(a, b)", "high = max(b, c)"], "an expression swap with \"all\" swaps each"),
    ("drop_call_occurrence", "retry", "drop-call", {"call": "log", "occurrence": 3},
     ["pass"], "drop-call's occurrence picks the third call"),
    ("drop_call_in_expression", "total", "drop-call", {"call": "compute", "value": "0"},
     ["x = 0 + 1"], "a call inside an expression becomes the given value"),
    ("drop_call_default_value", "total", "drop-call", {"call": "compute(a)"},
     ["x = None + 1"], "the whole call text matches too, and the value defaults to None"),
    ("drop_call_awaited", "push", "drop-call", {"call": "channel.send"},
     ["pass"], "an awaited call statement becomes pass"),
    ("return_one_line", "one_line", "return", {"value": "2"},
     ["def one_line(): return 2"], "a one-line body is replaced in place"),
    ("return_keeps_docstring", "documented", "return", {"value": "None"},
     ["return None"], "return keeps the docstring and replaces the rest of the body"),
]


@pytest.mark.parametrize(("function", "operator", "params", "expected", "why"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_less_common_form_mutates_exactly_its_site(function, operator, params, expected,
                                                     why):
    try:
        got = plus(function, operator, **params)
    except StaleOperator as stale:
        pytest.fail(f"{operator} {params} on dc_opforms:{function} found no site to mutate "
                    f"({stale}): {why}")
    assert got == expected, (
        f"{operator} {params} on dc_opforms:{function} added {got}, not {expected}: {why}")


def test_the_dropped_call_is_the_one_occurrence_names():
    mutant = Mutant(id="t", title="t", target="dc_opforms:retry", operator="drop-call",
                    params={"call": "log", "occurrence": 3})
    minus = [ln[1:].strip() for ln in build_mutation(mutant).diff().splitlines()
             if ln.startswith("-") and not ln.startswith("---")]
    assert minus == ['log("done")'], (
        f"drop-call occurrence = 3 removed {minus}, not the third call log(\"done\")")


@pytest.mark.parametrize(("operator", "params", "sites"), [
    ("swap", {"old": "<", "new": "<=", "occurrence": 4}, 3),
    ("force-branch", {"condition": "ready", "to": True, "occurrence": 3}, 2),
    ("drop-call", {"call": "log", "occurrence": 1000000}, 3),
])
def test_an_occurrence_past_the_last_site_is_stale_and_says_how_many(operator, params,
                                                                     sites):
    function = "spread" if operator == "swap" else "retry"
    with pytest.raises(StaleOperator) as caught:
        plus(function, operator, **params)
    text = str(caught.value)
    assert f"occurrence {params['occurrence']} requested" in text and f"{sites} site" in text, (
        f"{operator} occurrence {params['occurrence']} on dc_opforms:{function} ({sites} sites) "
        f"must be STALE naming both numbers; it said {text!r}")


def test_several_matches_without_occurrence_are_stale_and_suggest_all():
    with pytest.raises(StaleOperator) as caught:
        plus("spread", "swap", old="<", new="<=")
    text = str(caught.value)
    assert "matches 3 sites" in text and "occurrence = 1..3" in text and '"all"' in text, (
        f"a swap of '<' (3 sites) without occurrence must be STALE naming the count and the "
        f"fix (occurrence = 1..3 or \"all\"); it said {text!r}")


def test_return_keeps_the_docstring_and_drops_the_rest():
    mutant = Mutant(id="t", title="t", target="dc_opforms:documented", operator="return",
                    params={"value": "None"})
    minus = [ln[1:].strip() for ln in build_mutation(mutant).diff().splitlines()
             if ln.startswith("-") and not ln.startswith("---")]
    assert minus == ["value = 1", "return value"], (
        f"return must drop the body after the docstring (value = 1, return value) and keep "
        f"the docstring; it removed {minus}")
