"""Which item writes replace an element at a position their loop counts (``Def.positional``,
docs/uniformity.md "What the audit follows", Inputs): ``xs[i] = v`` where *every* definition
of ``i`` reaching the write is the count of ``for i, x in enumerate(...)`` or the variable of
``for i in range(...)``. Such a write keeps the container's length; any other key can grow it.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from deskcheck.static import clear_flow_cache, flow_facts

CASES = {
    # name: (body of `def f(xs, items, n, zs):` with `ys = [0] * n` first; counted?)
    "the count of enumerate": ("""
        for i, x in enumerate(xs):
            ys[i] = x
    """, True),
    "the element of enumerate": ("""
        for i, x in enumerate(xs):
            ys[x] = i
    """, False),
    "a key unpacked beside the count of enumerate": ("""
        for i, (k, v) in enumerate(items):
            ys[k] = v
    """, False),
    "the variable of range": ("""
        for i in range(n):
            ys[i] = 0
    """, True),
    "a name of a tuple target over range": ("""
        for i, j in range(n):
            ys[i] = 0
    """, False),
    "the variable of a plain loop": ("""
        for k in xs:
            ys[k] = 0
    """, False),
    "the count or another value": ("""
        for i in range(n):
            if i > 2:
                i = n
            ys[i] = 0
    """, False),
    "a name not defined in the function": ("""
        for i in range(n):
            ys[KEY] = 0
    """, False),
    "the count rebound in an inner loop after the write": ("""
        for i in range(n):
            for j in zs:
                ys[i] = j
                i = j
    """, False),
}


def _store_counted(body: str) -> bool:
    """Is every item write into ``ys`` in ``body`` marked as a counted position?"""
    src = "def f(xs, items, n, zs):\n    ys = [0] * n\n" + textwrap.indent(
        textwrap.dedent(body), "    ")
    node = ast.parse(src).body[0]
    clear_flow_cache()
    fills = [d for d in flow_facts(node).defs if d.kind == "fill" and d.name == "ys"]
    assert fills, f"the walker recorded no write into `ys` at all in:\n{src}"
    return all(d.positional for d in fills)


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_item_write_keeps_the_length_only_at_a_position_its_loop_counts(case):
    body, expected = CASES[case]
    got = _store_counted(body)
    assert got is expected, (
        f"{case}: the write `ys[...] = ...` in{textwrap.indent(textwrap.dedent(body), '  ')}"
        f"must {'' if expected else 'NOT '}be taken for an element replaced at a counted "
        f"position (which keeps the length), but positional was {got}")
