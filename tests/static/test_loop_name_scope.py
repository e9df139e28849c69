"""``getattr(self, n)`` with ``n`` a loop name (docs/drift.md, *The surface*: a name from a
literal tuple of strings touches each of its strings, any other name is a dynamic access):
the loop's strings hold only inside that loop's body. After the loop, in a loop over values
not known statically, or once an inner loop rebinds ``n`` over unknown values, the access is
dynamic again and names none of the strings. Gaps mutmut found in static/_collector.py (the
``for`` statement's loop names)."""

from __future__ import annotations

import ast
import textwrap

from deskcheck.static._collect import FunctionFacts, clear_cache, first_param, function_facts


def _facts(source: str) -> FunctionFacts:
    """The facts of the one method of ``source``, computed afresh."""
    tree = ast.parse(textwrap.dedent(source))
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    clear_cache()  # the cache is keyed by node id: a new tree may reuse an old id
    try:
        return function_facts(method, first_param(method))
    finally:
        clear_cache()


def _reads(facts: FunctionFacts) -> list[tuple[str, int]]:
    return [(a.name, a.line) for a in facts.accesses if a.kind == "read"]


def test_after_the_loop_the_loop_name_is_dynamic_again():
    facts = _facts('''
        def drain(self):
            for n in ("waiting", "staging"):
                pass
            return getattr(self, n)
    ''')
    assert _reads(facts) == [] and facts.dynamic_lines == (5,), (
        "getattr(self, n) after `for n in (...)` is outside the loop body: it must be one "
        f"dynamic access at line 5, not a read of each string; got reads {_reads(facts)}, "
        f"dynamic lines {facts.dynamic_lines}")


def test_a_loop_over_values_not_known_statically_gives_a_dynamic_access():
    facts = _facts('''
        def drain(self):
            for n in self.queue_names:
                getattr(self, n)
    ''')
    assert _reads(facts) == [("queue_names", 3)] and facts.dynamic_lines == (4,), (
        "getattr(self, n) with n looping over self.queue_names (not a literal) must be one "
        f"dynamic access at line 4; got reads {_reads(facts)}, dynamic lines "
        f"{facts.dynamic_lines}")


def test_an_inner_loop_over_unknown_values_rebinds_the_name():
    facts = _facts('''
        def drain(self, more):
            for n in ("waiting", "staging"):
                for n in more:
                    getattr(self, n)
                getattr(self, n)
    ''')
    assert _reads(facts) == [] and facts.dynamic_lines == (5, 6), (
        "once `for n in more` rebinds n, n is no longer one of the literal strings: "
        "getattr(self, n) in that loop and after it must be dynamic, not a read of 'waiting' and 'staging'; got reads "
        f"{_reads(facts)}, dynamic lines {facts.dynamic_lines}")


def test_an_inner_literal_loop_of_the_same_name_leaves_the_outer_body_dynamic():
    facts = _facts('''
        def drain(self):
            for n in ("waiting",):
                for n in ("staging",):
                    getattr(self, n)
                getattr(self, n)
    ''')
    assert _reads(facts) == [("staging", 5)] and facts.dynamic_lines == (6,), (
        "inside the inner loop n is 'staging'; after it n is no longer known (the inner "
        "loop rebound it): one read of staging at line 5 and one dynamic access at line 6; "
        f"got reads {_reads(facts)}, dynamic lines {facts.dynamic_lines}")
