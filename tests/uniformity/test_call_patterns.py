"""Calls named in config (docs/uniformity.md "Declaring a source"): a collective's ``group``
is the argument that holds the process group, by 0-based position (``group = "2"``, as in
``broadcast_pyobj(data, rank, group)``) or by keyword, or the group expression itself; a
forward pass's group defaults to tp."""

from __future__ import annotations

import ast

import pytest

from deskcheck.uniformity.collectives import classify_call
from deskcheck.uniformity.config import parse_uniformity_table

CONFIG = parse_uniformity_table({
    "collectives": [{"call": "*.broadcast_pyobj", "group": "2"},
                    {"call": "self._sync", "group": "cpu_group"},
                    {"call": "self._all_reduce_min", "group": "self.tp_cpu_group"}],
    "forward": ["self.model_runner.forward"]}, "pyproject.toml")


@pytest.mark.parametrize("call, expected", [
    ("self.broadcast_pyobj(reqs, self.tp_rank, self.tp_cpu_group)",
     ("collective", "self.tp_cpu_group")),
    ("self._sync(x, cpu_group=self.attn_tp_cpu_group)", ("collective", "self.attn_tp_cpu_group")),
    ("self._all_reduce_min([1])", ("collective", "self.tp_cpu_group")),
    ("self.model_runner.forward(batch)", ("forward", "tp")),
    ("self.unrelated(1, 2, 3)", None)])
def test_a_configured_calls_group_is_found_where_the_pattern_says(call, expected):
    got = classify_call(ast.parse(call, mode="eval").body, CONFIG)
    assert got == expected, (
        f"`{call}` under collectives = [{{ call = \"*.broadcast_pyobj\", group = \"2\" }}, ...] "
        f"must be the site {expected} (group: a 0-based position, a keyword, or the "
        f"expression itself; a forward pass defaults to tp); it was {got}")


def test_each_forward_pattern_keeps_its_own_group():
    config = parse_uniformity_table({
        "forward": [{"call": "self.model_runner.forward", "group": "tp"},
                    {"call": "self.draft_runner.forward", "group": "self.draft_group"}]},
        "pyproject.toml")
    got = classify_call(ast.parse("self.draft_runner.forward(batch)", mode="eval").body, config)
    assert got == ("forward", "self.draft_group"), (
        "`self.draft_runner.forward(batch)` matches the second forward pattern, so its group "
        "is that pattern's (self.draft_group), not the first pattern's (tp); got " f"{got}")
