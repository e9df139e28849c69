"""A ``self.m(...)`` call keeps its call node on its access (docs/drift.md, *call-site
constants*: every ``self.m(...)`` call inside production binds ``m``'s parameters from its
arguments, evaluated in the caller, so a literal flag decides the callee's branches). Only
the touch that *is* the call carries it: ``self.m(1)``'s ``m``; never a plain read, never the
call of a deeper chain (``self.a.b(1)`` calls ``b`` of another object, whose parameters are not
``self``'s methods'), nor the read of ``a`` on the way. Gaps mutmut found in
static/_collector.py (``_record``, ``_visit_call``, ``facts``)."""

from __future__ import annotations

import ast
import textwrap

from deskcheck.static._collect import Access, clear_cache, first_param, function_facts

SOURCE = '''
class Engine:
    def run(self):
        self.step(True, n=2)
        self.pool.submit(3)
        return self.ready
'''


def _accesses() -> tuple[dict[tuple[str, str], Access], ast.Call]:
    """Every access of ``Engine.run`` by (name, kind), and the ``self.step(...)`` call node."""
    tree = ast.parse(textwrap.dedent(SOURCE))
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    step = next(n for n in ast.walk(method) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute) and n.func.attr == "step")
    clear_cache()  # the cache is keyed by node id: a new tree may reuse an old id
    try:
        facts = function_facts(method, first_param(method))
    finally:
        clear_cache()
    return {(a.name, a.kind): a for a in facts.accesses}, step


def test_a_method_call_on_self_carries_its_call_node():
    accesses, step = _accesses()
    call = accesses[("step", "call")].call
    assert call is step, (
        "self.step(True, n=2) must keep its call node on the access, so the callee's "
        f"parameters can be bound from the arguments; got {call!r}")


def test_only_the_call_itself_carries_a_call_node():
    accesses, _ = _accesses()
    carrying = sorted(f"{name} ({kind})" for (name, kind), a in accesses.items()
                      if a.call is not None)
    assert carrying == ["step (call)"], (
        "only self.step(...) is a call of one of self's methods: the read of self.pool on "
        "the way, the call of self.pool.submit (another object's method) and the read of "
        f"self.ready must carry no call node; carrying one: {carrying}")
