"""Module-level state holds what functions write into it at run time (docs/uniformity.md
"Inputs"): ``global _LAST; _LAST = time.monotonic()``, ``_STATE["t"] = ...``,
``_QUEUE.append(...)`` — also from the module that binds the name when it is imported —
and ``setattr(self, "t", v)`` writes the field ``t``. Found probing the walk with the shapes
schedulers keep process-wide state in: each was read as replicated code (a module-level
name) or as no write at all, so a clock kept there was UNIFORM (silent misses). Twins: a
local of the same name, another field, a module-level function."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

STEP = """
    class S:
        def step(self):
            _tick()
            if READ > 5:
                dist.barrier(group=self.tp_cpu_group)
"""

# (module-level code with the writer, the read, verdict)
SHAPES = {
    "a global assigned a clock": ("""
    _LAST = 0.0

    def _tick():
        global _LAST
        _LAST = time.monotonic()
""", "_LAST", Verdict.RANK_LOCAL),
    "a module dict item": ("""
    _STATE = {}

    def _tick():
        _STATE["t"] = time.monotonic()
""", "_STATE['t']", Verdict.RANK_LOCAL),
    "a module list appended": ("""
    _SEEN = []

    def _tick():
        _SEEN.append(time.monotonic())
""", "len(_SEEN)", Verdict.RANK_LOCAL),
    "an annotated global": ("""
    _LAST: float = 0.0

    def _tick():
        global _LAST
        _LAST = time.monotonic()
""", "_LAST", Verdict.RANK_LOCAL),
    "a global declared second on its line": ("""
    _COUNT = 0
    _LAST = 0.0

    def _tick():
        global _COUNT, _LAST
        _LAST = time.monotonic()
""", "_LAST", Verdict.RANK_LOCAL),
    "a global rebound, then an item written": ("""
    _STATE = {}

    def _tick():
        global _STATE
        _STATE = {}
        _STATE["t"] = time.monotonic()
""", "_STATE['t']", Verdict.RANK_LOCAL),
    "a global assigned configuration": ("""
    _LAST = 0.0

    def _tick():
        global _LAST
        _LAST = CONFIG_DEFAULT
""", "_LAST", Verdict.UNIFORM),
    "a local of the same name (no global)": ("""
    _LAST = 0.0

    def _reset():
        global _LAST
        _LAST = CONFIG_DEFAULT

    def _tick():
        _LAST = time.monotonic()
        return _LAST
""", "_LAST", Verdict.UNIFORM),
    "a local dict of the same name": ("""
    _STATE = {}

    def _tick():
        _STATE = {}
        _STATE["t"] = time.monotonic()
""", "_STATE['t']", Verdict.UNIFORM),
}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_module_state_holds_what_functions_write(make_pkg, shape):
    module, read, verdict = SHAPES[shape]
    src = "\n    CONFIG_DEFAULT = 1.0\n" + module + STEP.replace("READ", read)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"{shape}: `if {read} > 5` after _tick() must be {verdict.value} "
        + ("(the module-level name holds what _tick() writes at run time: a clock)"
           if verdict is Verdict.RANK_LOCAL else
           "(what is written is configuration, or the clock goes to a local of the same "
           "name, not to the module's)")
        + f"; got {d.verdict.value}: {d.why}")


def test_module_state_imported_from_the_module_that_writes_it(make_pkg):
    state = """
    _LAST = 0.0

    def tick():
        global _LAST
        _LAST = time.monotonic()
    """
    src = """
    from pkg.state import _LAST as last_seen, tick

    class S:
        def step(self):
            tick()
            if last_seen > 5:
                dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src, "state.py": state}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is Verdict.RANK_LOCAL and "monotonic" in d.why, (
        "`from pkg.state import _LAST as last_seen`: pkg.state's tick() stores a clock in "
        f"_LAST (global), so `if last_seen > 5` is RANK-LOCAL naming the clock; got "
        f"{d.verdict.value}: {d.why}")


SETATTR = """
    class S:
        def __init__(self):
            self.t = 0
            self.u = 0

        def step(self):
            setattr(self, "FIELD", time.monotonic())
            if self.t > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("field, verdict", [("t", Verdict.RANK_LOCAL), ("u", Verdict.UNIFORM)])
def test_setattr_on_self_writes_that_field(make_pkg, field, verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": SETATTR.replace("FIELD", field)}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"setattr(self, {field!r}, time.monotonic()) writes self.{field}; `if self.t > 5` "
        f"must be {verdict.value}; got {d.verdict.value}: {d.why}")
