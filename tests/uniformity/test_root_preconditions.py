"""Root preconditions (docs/uniformity.md, "What a root's dispatcher proves"): a root that
every call in the code read starts only where a group has one rank (the else of
``pp_size > 1`` in a dispatcher) passes that on to every function reached only from such
roots: a collective there over that group is TRIVIAL, and a rank id of that group read there
is the same on every rank.

Each fixture has a twin that must stay RANK-LOCAL: a second call without the proof, no
dispatcher, a function also reached from another root, a write on another root's path."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.uniformity import Verdict, audit
from deskcheck.uniformity.cache import AuditCache

CFG = """
[tool.deskcheck.uniformity]
roots = ["loop_*"]
"""

# a pp rank id gating a pp collective in a function only the pp=1 loop reaches
_LOOPS = """
class S:
    def loop_pp(self):
        self.shared()

    def loop_normal(self):
        self.only_normal()
        self.shared()

    def only_normal(self):
        if self.pp_group.is_last_rank:
            dist.broadcast(self.x, src=0, group=self.pp_group)

    def shared(self):
        if self.pp_group.is_first_rank:
            dist.broadcast(self.y, src=0, group=self.pp_group)
"""

_DISPATCH = """

def dispatch(s: S):
    if s.disagg:
        s.loop_other()
    elif s.pp_size > 1:
        s.loop_pp()
    else:
        s.loop_normal()
"""


def _audit(root):
    return audit("pkg.s:S", root=root)


def _find(report, condition):
    found = [d for d in report.decisions if d.condition == condition]
    assert found, f"no decision `{condition}`; found: " + ", ".join(
        f"`{d.condition}`" for d in report.decisions)
    return found[0]


def _write(folder, files: dict[str, str], config: str = CFG):
    """A project under ``folder``: package ``pkg`` with ``files``, and its pyproject."""
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    for name, text in files.items():
        (folder / "pkg" / name).write_text(
            "import time\nimport torch.distributed as dist\n" + textwrap.dedent(text))
    (folder / "pyproject.toml").write_text(config)
    return folder


def test_a_pp_collective_reached_only_from_the_pp1_loop_is_trivial(make_pkg):
    root = make_pkg({"s.py": _LOOPS + _DISPATCH}, CFG)
    report = _audit(root)
    only = _find(report, "self.pp_group.is_last_rank")
    assert only.verdict is Verdict.TRIVIAL, (
        f"`loop_normal` is called only in the else of `pp_size > 1`, so the pp broadcast in "
        f"`only_normal` (reached from it alone) runs where the pp group has one rank; got "
        f"{only.verdict.value}: {only.why}")
    assert "reached only from roots started where the pp group has one rank" in only.why, (
        f"the verdict does not say it comes from the roots' dispatcher: {only.why}")
    notes = [n for n in report.notes if "runs only where" in n]
    assert any(n.startswith("S.loop_normal runs only where the pp group has one rank")
               and "s.py:" in n for n in notes), (
        f"the report's notes do not name loop_normal's precondition and its call: {notes}")
    assert not any("loop_pp" in n for n in notes), (
        f"`loop_pp` is called where pp_size > 1: it has no precondition, yet {notes}")
    shared = _find(report, "self.pp_group.is_first_rank")
    assert shared.verdict is Verdict.RANK_LOCAL, (
        f"`shared` is reached from `loop_pp` too (pp_size > 1 there): its pp rank test must "
        f"stay RANK-LOCAL; got {shared.verdict.value}: {shared.why}")


def test_no_dispatcher_or_one_call_without_proof_proves_nothing(make_pkg, tmp_path):
    cases = {
        "no call of the root": _LOOPS,
        "a second call with no condition": _LOOPS + _DISPATCH
        + "\n\ndef launch(s: S):\n    s.loop_normal()\n",
        "a call in module-level code": _LOOPS + _DISPATCH + "\n\nS().loop_normal()\n",
        "a call under a condition of another group": _LOOPS
        + "\n\ndef dispatch(s: S):\n    if s.tp_size == 1:\n        s.loop_normal()\n",
    }
    for name, text in cases.items():
        folder = _write(tmp_path / name.replace(" ", "_"), {"s.py": text})
        only = _find(_audit(folder), "self.pp_group.is_last_rank")
        assert only.verdict is Verdict.RANK_LOCAL, (
            f"{name}: nothing proves the pp group has one rank on `loop_normal`, yet "
            f"{only.verdict.value}: {only.why}")


def test_a_root_another_root_starts_inside_the_walk_keeps_the_dispatchers_proof(
        make_pkg):
    # loop_overlap (pp=1 by the dispatcher) hands over to loop_normal itself: that call is
    # part of the walk, not a dispatcher's, so loop_normal keeps its own proof
    text = _LOOPS.replace("    def loop_normal(self):", """    def loop_overlap(self):
        self.loop_normal()

    def loop_normal(self):""") + _DISPATCH.replace("    else:\n        s.loop_normal()", """    elif s.overlap:
        s.loop_overlap()
    else:
        s.loop_normal()""")
    assert "s.loop_overlap()" in text and "self.loop_normal()" in text
    only = _find(_audit(make_pkg({"s.py": text}, CFG)), "self.pp_group.is_last_rank")
    assert only.verdict is Verdict.TRIVIAL, (
        f"`loop_normal` is started only where pp_size <= 1, by the dispatcher or by "
        f"`loop_overlap` (itself pp=1 only): its call inside the walk is no call without a "
        f"proof; got {only.verdict.value}: {only.why}")


_FIELD = """
class S:
    def loop_pp(self):
        {pp_write}
        self.shared()

    def loop_normal(self):
        self.flag = self.pp_group.is_last_rank
        self.shared()

    def shared(self):
        if self.flag:
            dist.all_reduce(self.x, group=self.world_group)
"""


def test_a_pp_rank_written_only_on_pp1_roots_is_the_same_on_every_rank(make_pkg, tmp_path):
    root = make_pkg({"s.py": _FIELD.format(pp_write="pass") + _DISPATCH}, CFG)
    decision = _find(_audit(root), "self.flag")
    ranks = [i for i in decision.inputs if i.name.endswith("is_last_rank")]
    assert decision.verdict is Verdict.UNIFORM and ranks and all(
        i.klass.value == "CONFIG" for i in ranks), (
        f"`self.flag` is written only in `loop_normal` (pp=1): the pp rank it holds is 0 on "
        f"every rank; got {decision.verdict.value}: "
        f"{[(i.name, i.klass.value, i.reason) for i in decision.inputs]}")
    other = _write(tmp_path / "twin", {"s.py": _FIELD.replace(
        "{pp_write}", "self.flag = self.pp_group.is_last_rank") + _DISPATCH})
    twin = _find(_audit(other), "self.flag")
    assert twin.verdict is Verdict.RANK_LOCAL, (
        f"`loop_pp` (pp_size > 1) writes the pp rank too: the decision must stay RANK-LOCAL; "
        f"got {twin.verdict.value}: {twin.why}")


_UNDER = {
    "a field": """
class S:
    def loop_a(self):
        if self.{size} == {n}:
            self.flag = {value}
        if self.flag:
            dist.all_reduce(self.x, group=self.{group})
""",
    "a local": """
class S:
    def loop_a(self):
        flag = False
        if self.{size} == {n}:
            flag = {value}
        if flag:
            dist.all_reduce(self.x, group=self.{group})
""",
}


def _verdict_of(tmp_path, name, text, condition):
    folder = _write(tmp_path / name, {"s.py": text}, CFG.replace("loop_*", "loop_a"))
    return _find(audit("pkg.s:S", root=folder), condition)


@pytest.mark.parametrize("form", sorted(_UNDER))
def test_a_rank_id_written_under_its_own_groups_single_rank_test_is_config(tmp_path, form):
    condition = "self.flag" if form == "a field" else "flag"
    got = {size: _verdict_of(tmp_path, size, _UNDER[form].format(
        size=size, n=1, value="self.pp_group.is_last_rank", group="world_group"), condition)
        for size in ("pp_size", "tp_size")}
    assert got["pp_size"].verdict is Verdict.UNIFORM, (
        f"{form} holds the pp rank only where `pp_size == 1`: it is 0 on every rank there, "
        f"yet {got['pp_size'].verdict.value}: {got['pp_size'].why}")
    assert got["tp_size"].verdict is Verdict.RANK_LOCAL, (
        f"`tp_size == 1` says nothing of the pp rank: {form} must stay RANK-LOCAL, got "
        f"{got['tp_size'].verdict.value}")


def test_a_field_written_only_where_its_group_has_one_rank_is_trivial(tmp_path):
    got = {n: _verdict_of(tmp_path, f"n{n}", _UNDER["a field"].format(
        size="tp_size", n=n, value="time.time() > 5", group="tp_group"), "self.flag")
        for n in (1, 2)}
    assert got[1].verdict is Verdict.TRIVIAL, (
        f"the clock is stored only where `tp_size == 1`: a tp collective it gates cannot "
        f"hang; got {got[1].verdict.value}: {got[1].why}")
    assert got[2].verdict is Verdict.RANK_LOCAL, (
        f"`tp_size == 2` leaves two tp ranks with their own clocks: must be RANK-LOCAL, got "
        f"{got[2].verdict.value}")


def test_a_new_call_of_a_root_makes_the_cached_audit_stale(make_pkg, tmp_path):
    # a body of two lines: hollowed, and never parsed by the walk
    root = make_pkg({"s.py": _LOOPS + _DISPATCH
                     + "\n\ndef unrelated():\n    x = 1\n    return x\n"}, CFG)
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    first = audit("pkg.s:S", root=root, cache=cache)
    assert _find(first, "self.pp_group.is_last_rank").verdict is Verdict.TRIVIAL
    path = root / "pkg" / "s.py"
    text = path.read_text()
    # one line for one: no line moves, so only the new call can tell the texts apart
    path.write_text(text.replace("    return x\n", "    S().loop_normal()\n"))
    again = audit("pkg.s:S", root=root, cache=cache)
    verdict = _find(again, "self.pp_group.is_last_rank").verdict
    assert cache.hits == 0 and verdict is Verdict.RANK_LOCAL, (
        f"a body the walk never entered now calls `loop_normal` without a proof, yet the "
        f"audit was answered from the cache ({cache.hits} hit(s)) as {verdict.value}")
    path.write_text(text.replace("    x = 1\n", "    x = 2\n"))
    audit("pkg.s:S", root=root, cache=cache)
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits >= 1, "an edit that adds no call of a root was never read from the cache"


def test_an_early_exit_dispatcher_proves_the_root_after_it(tmp_path):
    text = _LOOPS + """

def dispatch(s: S):
    if s.pp_size > 1:
        s.loop_pp()
        return
    s.loop_normal()
"""
    report = _audit(_write(tmp_path / "exit", {"s.py": text}))
    only = _find(report, "self.pp_group.is_last_rank")
    assert only.verdict is Verdict.TRIVIAL, (
        f"past `if pp_size > 1: ...; return` the dispatcher calls `loop_normal` only where the "
        f"pp group has one rank (an early exit's condition proves it as an `else` does); got "
        f"{only.verdict.value}: {only.why}; notes {report.notes}")


def test_the_target_classs_module_is_searched_for_roots_a_base_class_defines(tmp_path):
    base = _LOOPS.replace("class S:", "class Base:")
    target = """
from pkg.base import Base


class S(Base):
    pass
""" + _DISPATCH
    report = _audit(_write(tmp_path / "base", {"base.py": base, "s.py": target}))
    only = _find(report, "self.pp_group.is_last_rank")
    assert only.verdict is Verdict.TRIVIAL and any(
        n.startswith("Base.loop_normal runs only where") for n in report.notes), (
        f"the roots live on `Base` (pkg/base.py), the dispatcher beside the target class "
        f"(pkg/s.py): the target's module must be searched too; got {only.verdict.value}, "
        f"notes {report.notes}")


_STAMP = """
class S:
    def __init__(self, tp_size):
        if tp_size == 1:
            self.stamp = time.monotonic()
        else:
            self.stamp = 0.0

    def loop_pp(self):
        pass

    def loop_normal(self):
        self.step_normal()

    def step_normal(self):
        if self.stamp > 5.0:
            dist.all_reduce(self.x, group=self.tp_group)
""" + _DISPATCH


def test_a_clock_set_in_init_under_tp_size_1_stays_marked_on_a_pp1_only_path(tmp_path):
    decision = _find(_audit(_write(tmp_path / "stamp", {"s.py": _STAMP})), "self.stamp > 5.0")
    assert decision.verdict is Verdict.TRIVIAL, (
        f"`self.stamp` holds a clock only where `tp_size == 1` (set so in __init__), and "
        f"`step_normal` adds the pp precondition to that mark, it does not replace it: the "
        f"tp collective it gates is TRIVIAL; got {decision.verdict.value}: {decision.why}")
    plain = _STAMP.replace("if tp_size == 1:", "if tp_size == 2:")
    twin = _find(_audit(_write(tmp_path / "two", {"s.py": plain})), "self.stamp > 5.0")
    assert twin.verdict is Verdict.RANK_LOCAL, (
        f"under `tp_size == 2` the clock differs between tp ranks: must be RANK-LOCAL, got "
        f"{twin.verdict.value}")


# `self.y` is written only on the pp=1 loop, from `self.m`; `self.m` is written on every loop
# from `self.y` and the pp rank: a cycle of two fields, whose edge y <- m is computed in
# `loop_normal`. `shared2` (on both loops) reads only `self.y`.
_CYCLE = """
class S:
    def loop_pp(self):
        self.shared()
        self.shared2()

    def loop_normal(self):
        {y_write}
        self.shared()
        self.shared2()

    def shared(self):
        self.m = self.y or self.pp_group.is_last_rank
        if self.m:
            dist.all_reduce(self.z, group=self.world_group)

    def shared2(self):
        if self.y:
            dist.all_reduce(self.x, group=self.world_group)
""" + _DISPATCH


@pytest.mark.parametrize("order", ["m decided first", "y decided first"])
def test_what_a_pp1_only_function_reads_through_a_cycle_edge_carries_the_mark(tmp_path, order):
    text = _CYCLE.format(y_write="self.y = self.m")
    if order == "y decided first":  # the walk meets the cycle from the other member
        shared, shared2 = text.index("    def shared(self):"), text.index("    def shared2(self):")
        end = text.index("\n\ndef dispatch")
        text = text[:shared] + text[shared2:end] + "\n\n" + text[shared:shared2] + text[end:]
    report = _audit(_write(tmp_path / "cycle", {"s.py": text}))
    decision = _find(report, "self.y")
    ranks = [i for i in decision.inputs if i.name.endswith("is_last_rank")]
    assert decision.verdict is Verdict.UNIFORM and ranks and all(
        i.klass.value == "CONFIG" for i in ranks), (
        f"({order}) `self.y` is written only in `loop_normal` (pp=1), from `self.m`, a member "
        f"of a cycle of values that holds the pp rank: what reaches `y` by that cycle edge "
        f"was computed where the pp group has one rank, so the pp rank is the same on every "
        f"rank there; got {decision.verdict.value}: "
        f"{[(i.name, i.klass.value, i.reason) for i in decision.inputs]}")
    assert _find(report, "self.m").verdict is Verdict.RANK_LOCAL, (
        f"({order}) `self.m` reads the pp rank on `loop_pp` too (pp_size > 1): it must stay "
        f"RANK-LOCAL")
    twin = _CYCLE.format(y_write="self.y = self.m").replace(
        "    def loop_pp(self):\n", "    def loop_pp(self):\n        self.y = self.m\n")
    other = _find(_audit(_write(tmp_path / "twin", {"s.py": twin})), "self.y")
    assert other.verdict is Verdict.RANK_LOCAL, (
        f"({order}) `loop_pp` (pp_size > 1) writes `self.y = self.m` too: the pp rank reaches "
        f"`self.y` unmarked there, so it must stay RANK-LOCAL; got {other.verdict.value}")
