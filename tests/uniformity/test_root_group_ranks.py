"""A rank id in a group that only a root's caller knows (``dist.get_rank(pg)`` with ``pg`` a
parameter of a root method, whose callers are outside the code read) is UNKNOWN, naming the
parameter and how to declare it, not a rank of the world (docs/uniformity.md
"Relative to the collective's group"). Found on nanotron: its pipeline engine audited alone
(root ``train_batch_iter(model, pg, ...)``, ``pg`` the PP group) reported the warm-up count
``range(pg.size() - dist.get_rank(pg) - 1)`` RANK-LOCAL over the model's TP collectives, a
false positive; the trainer's audit, which reads the caller, resolves ``pg`` to the PP group.
Twins: a declared group, a group a caller in the code read passes, the world's own rank and a
collective over the very same parameter keep their verdicts."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["train_batch_iter"]\n'

SOURCE = """
    class Engine:
        def __init__(self, tp_ranks):
            self.tp_group = dist.new_group(tp_ranks)

        def train_batch_iter(self, model, pg, batch):
            WARMUP

        def helper(self, group, x):
            if dist.get_rank(group) == 0:
                dist.all_reduce(x, group=self.tp_group)
"""


def _decision(report, condition):
    found = [d for d in report.decisions if d.condition == condition]
    assert found, (f"`{condition}` is not a gating decision of the fixture; decisions: "
                   f"{[d.condition for d in report.decisions]}")
    return found[0]


def _describe(d) -> str:
    return f"{d.verdict.value}: {d.why} {[(i.name, i.klass.value, i.reason) for i in d.inputs]}"


def _warmup(make_pkg, warmup: str, condition: str, pyproject: str = ROOTS,
            source: str = SOURCE):
    """The decision ``condition`` of Engine with ``warmup`` as its root's body."""
    root = make_pkg({"s.py": source.replace("WARMUP", warmup)}, pyproject)
    return _decision(audit("pkg.s:Engine", root=root), condition)


@pytest.mark.parametrize("query", ["dist.get_rank(pg)", "dist.get_rank(group=pg)",
                                   "pg.rank_in_group"])
def test_a_rank_in_a_root_parameters_group_is_unknown_and_says_how_to_declare_it(make_pkg,
                                                                                 query):
    warmup = (f"current = {query}\n"
              "            for _ in range(pg.size() - current - 1):\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "for ... in range(pg.size() - current - 1)")
    assert d.verdict is Verdict.UNKNOWN, (
        f"`{query}` reads the rank in the group the root's caller passes as `pg`, which the "
        f"code read does not say; taking it for the world's rank makes a false RANK-LOCAL "
        f"(nanotron's engine audited alone). Expected UNKNOWN; got {_describe(d)}")
    unknown = [i for i in d.inputs if i.klass.value == "UNKNOWN"]
    assert any("'pg'" in i.reason and "train_batch_iter" in i.reason and "groups" in i.reason
               for i in unknown), (
        "the UNKNOWN input must name the parameter ('pg'), the root (train_batch_iter) and the "
        f"fix (declare it under groups); got {[(i.name, i.reason) for i in unknown]}")


def test_a_declared_root_group_is_that_groups_rank(make_pkg):
    warmup = ("current = dist.get_rank(pg)\n"
              "            for _ in range(pg.size() - current - 1):\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "for ... in range(pg.size() - current - 1)",
                ROOTS + 'groups = { "pg" = "pp" }\n')
    assert d.verdict is Verdict.UNIFORM, (
        "with `groups = { pg = \"pp\" }` declared, `dist.get_rank(pg)` is the PP stage, the same "
        f"on every rank of the TP group the all_reduce runs over; got {_describe(d)}")


def test_a_collective_over_the_same_root_group_keeps_its_rank_local_verdict(make_pkg):
    warmup = ("if dist.get_rank(pg) == 0:\n"
              "                dist.all_reduce(batch, group=pg)")
    d = _warmup(make_pkg, warmup, "dist.get_rank(pg) == 0")
    assert d.verdict is Verdict.RANK_LOCAL, (
        "whatever group `pg` is, the rank in it differs between the ranks of `pg` the "
        f"all_reduce over `pg` waits for: that stays RANK-LOCAL; got {_describe(d)}")


@pytest.mark.parametrize("passed, verdict, why", [
    ("self.tp_group", Verdict.RANK_LOCAL,
     "helper's `dist.get_rank(group)` gets the TP group from the call in the code read: "
     "the rank in the TP group the all_reduce waits for"),
    ("pg", Verdict.UNKNOWN,
     "helper's `group` is the root's `pg`, passed on: the group only the root's caller knows"),
], ids=["caller_in_code_read", "passed_on_root_parameter"])
def test_a_group_parameter_is_resolved_through_the_callers_it_has(make_pkg, passed, verdict,
                                                                   why):
    root = make_pkg({"s.py": SOURCE.replace("WARMUP", f"self.helper({passed}, batch)")}, ROOTS)
    d = _decision(audit("pkg.s:Engine", root=root), "dist.get_rank(group) == 0")
    assert d.verdict is verdict, f"{why}: expected {verdict.value}; got {_describe(d)}"


def test_the_worlds_own_rank_stays_rank_local(make_pkg):
    warmup = ("if dist.get_rank() == 0:\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "dist.get_rank() == 0")
    assert d.verdict is Verdict.RANK_LOCAL, (
        "`dist.get_rank()` names no group: the world's rank, which differs within the TP "
        f"group; got {_describe(d)}")


def test_a_rank_in_a_root_group_that_gates_only_transfers_is_still_a_role(make_pkg):
    warmup = ("if dist.get_rank(pg) == 0:\n"
              "                dist.send(batch, dst=1, group=self.tp_group)\n"
              "            else:\n"
              "                dist.recv(batch, src=0, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "dist.get_rank(pg) == 0")
    assert d.verdict is Verdict.ROLE, (
        "a rank id gating point-to-point transfers only is a role whichever group it is the "
        "rank in: the group left unknown must not turn the role UNKNOWN (nanotron's 1F1B "
        f"send/recv loops); got {_describe(d)}")


def test_a_local_bound_to_a_root_group_parameter_is_that_parameter(make_pkg):
    warmup = ("group = pg\n"
              "            if dist.get_rank(group) == 0:\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "dist.get_rank(group) == 0")
    assert d.verdict is Verdict.UNKNOWN, (
        "`group = pg` binds the root's group parameter once: `dist.get_rank(group)` is the rank "
        "in the group the root's caller passes, which the code read does not say. Expected "
        f"UNKNOWN; got {_describe(d)}")


TWO_ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step_*"]\n'

TWO_ROOT_SOURCE = """
    class Trainer:
        def __init__(self, tp_ranks):
            self.tp_group = dist.new_group(tp_ranks)

        def step_a(self, pg, x):
            self._sync(pg, x)

        def step_b(self, other_pg, x):
            self._sync(CALL_B, x)

        def _sync(self, group, x):
            if dist.get_rank(group) == 0:
                dist.all_reduce(x, group=self.tp_group)
"""


@pytest.mark.parametrize("call_b, verdict, named", [
    ("other_pg", Verdict.UNKNOWN, ["'pg'", "'other_pg'"]),
    ("self.tp_group", Verdict.RANK_LOCAL, []),
], ids=["two_root_groups", "one_root_group_one_known"])
def test_a_helper_called_from_two_roots_names_every_group_it_may_be(make_pkg, call_b, verdict,
                                                                     named):
    root = make_pkg({"s.py": TWO_ROOT_SOURCE.replace("CALL_B", call_b)}, TWO_ROOTS)
    d = _decision(audit("pkg.s:Trainer", root=root), "dist.get_rank(group) == 0")
    assert d.verdict is verdict, (
        f"_sync's `group` is step_a's `pg` and, from step_b, `{call_b}`: expected "
        f"{verdict.value} (a group only a root's caller knows on every path: UNKNOWN; a path "
        f"to a known TP group: the rank in it differs within the TP group); got {_describe(d)}")
    reasons = " ".join(i.reason for i in d.inputs if i.klass.value == "UNKNOWN")
    missing = [n for n in named if n not in reasons]
    assert not missing, (
        f"the UNKNOWN input must name every root parameter the group may be ({named}); "
        f"{missing} missing from: {reasons!r}")


def test_a_local_bound_to_two_root_groups_names_both(make_pkg):
    source = SOURCE.replace("def train_batch_iter(self, model, pg, batch):",
                            "def train_batch_iter(self, model, pg, pg2, batch, flag):")
    warmup = ("g = pg\n"
              "            if flag:\n"
              "                g = pg2\n"
              "            if dist.get_rank(g) == 0:\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "dist.get_rank(g) == 0", source=source)
    reasons = " ".join(i.reason for i in d.inputs if i.klass.value == "UNKNOWN")
    assert d.verdict is Verdict.UNKNOWN and "'pg'" in reasons and "'pg2'" in reasons, (
        "`g` is `pg` or, under `flag`, `pg2`, both groups only the root's caller knows: "
        f"UNKNOWN naming both expected; got {_describe(d)}")


def test_a_rank_in_one_root_group_gating_a_collective_over_another_stays_unknown(make_pkg):
    source = SOURCE.replace("def train_batch_iter(self, model, pg, batch):",
                            "def train_batch_iter(self, model, pg, pg2, batch):")
    warmup = ("if dist.get_rank(pg) == 0:\n"
              "                dist.all_reduce(batch, group=pg2)")
    d = _warmup(make_pkg, warmup, "dist.get_rank(pg) == 0", source=source)
    assert d.verdict is Verdict.UNKNOWN, (
        "the rank in `pg` gates an all_reduce over `pg2`, another group only the caller "
        "knows: nothing says the rank differs within `pg2` (UNKNOWN), only a collective over "
        f"`pg` itself makes it RANK-LOCAL; got {_describe(d)}")


@pytest.mark.parametrize("passed, verdict, why", [
    ("self.pp_group", Verdict.UNIFORM,
     "helper's `group.rank()` is the rank in the PP group the caller passes: the PP stage, "
     "the same on every rank of the TP group the all_reduce waits for"),
    ("self.tp_group", Verdict.RANK_LOCAL,
     "helper's `group.rank()` is the rank in the TP group the caller passes: it differs "
     "between the TP ranks the all_reduce waits for"),
    ("pg", Verdict.UNKNOWN,
     "helper's `group.rank()` is the rank in the root's `pg`, a group only the root's caller "
     "knows"),
], ids=["pp_group_passed", "tp_group_passed", "root_group_passed"])
def test_a_process_groups_own_rank_method_is_the_rank_in_that_group(make_pkg, passed, verdict,
                                                                     why):
    source = SOURCE.replace("self.tp_group = dist.new_group(tp_ranks)",
                            "self.tp_group = dist.new_group(tp_ranks)\n"
                            "            self.pp_group = dist.new_group(tp_ranks)")
    source = source.replace("if dist.get_rank(group) == 0:", "if group.rank() == 0:")
    root = make_pkg({"s.py": source.replace("WARMUP", f"self.helper({passed}, batch)")}, ROOTS)
    d = _decision(audit("pkg.s:Engine", root=root), "group.rank() == 0")
    assert d.verdict is verdict, (
        f"{why} (a ProcessGroup's `.rank()`, like `dist.get_rank(group)`): expected "
        f"{verdict.value}; got {_describe(d)}")


@pytest.mark.parametrize("query", ["self.rank()", "self.rank_in_group"])
def test_a_root_objects_own_rank_method_is_not_a_group_parameters_rank(make_pkg, query):
    source = SOURCE.replace("        def helper(self, group, x):",
                            "        def rank(self):\n"
                            "            return dist.get_rank()\n\n"
                            "        def helper(self, group, x):")
    source = source.replace("self.tp_group = dist.new_group(tp_ranks)",
                            "self.tp_group = dist.new_group(tp_ranks)\n"
                            "            self.rank_in_group = dist.get_rank()")
    warmup = (f"if {query} == 0:\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, f"{query} == 0", source=source)
    assert d.verdict is Verdict.RANK_LOCAL and not any("'self'" in i.reason for i in d.inputs), (
        f"`{query}` in the root is the audited object's own rank (here the world's), not "
        "the rank in a group passed as the root's `self`: RANK-LOCAL over the TP "
        f"all_reduce, never an UNKNOWN naming 'self'; got {_describe(d)}")


def test_an_objects_own_rank_method_is_not_the_rank_in_the_group_its_name_suggests(make_pkg):
    source = """
    class Worker:
        def rank(self):
            return dist.get_rank()

        def is_leader(self):
            return self.rank() == 0


    class Engine:
        def __init__(self, tp_ranks):
            self.tp_group = dist.new_group(tp_ranks)
            self.pp_worker = Worker()

        def train_batch_iter(self, model, pg, batch):
            if self.pp_worker.is_leader():
                dist.all_reduce(batch, group=self.tp_group)
"""
    root = make_pkg({"s.py": source}, ROOTS)
    d = _decision(audit("pkg.s:Engine", root=root), "self.pp_worker.is_leader()")
    assert d.verdict is Verdict.RANK_LOCAL, (
        "`self.rank()` inside Worker is the worker's own method (it returns the world's "
        "rank), not the rank in a group the object is: calling it on a field named "
        f"`pp_worker` must not make it a PP rank; RANK-LOCAL expected; got {_describe(d)}")


def test_a_root_parameters_group_is_declared_for_that_parameter_only(make_pkg):
    source = SOURCE.replace("        def helper(self, group, x):\n"
                            "            if dist.get_rank(group) == 0:",
                            "        def helper(self, pg, x):\n"
                            "            if dist.get_rank(pg) == 0:")
    warmup = ("current = dist.get_rank(pg)\n"
              "            for _ in range(pg.size() - current - 1):\n"
              "                dist.all_reduce(batch, group=self.tp_group)\n"
              "            self.helper(self.tp_group, batch)")
    declared = ROOTS + 'groups = { "Engine.train_batch_iter.pg" = "pp" }\n'
    report = audit("pkg.s:Engine", root=make_pkg({"s.py": source.replace("WARMUP", warmup)},
                                                 declared))
    d = _decision(report, "for ... in range(pg.size() - current - 1)")
    assert d.verdict is Verdict.UNIFORM, (
        "`groups = { \"Engine.train_batch_iter.pg\" = \"pp\" }` declares the root's `pg` the PP "
        "group: its rank is the PP stage, the same on every rank of the TP group; "
        f"got {_describe(d)}")
    helper = _decision(report, "dist.get_rank(pg) == 0")
    assert helper.verdict is Verdict.RANK_LOCAL, (
        "the declaration names the root's parameter only: helper's own `pg`, which its caller "
        f"fills with the TP group, stays the TP rank (RANK-LOCAL); got {_describe(helper)}")
    reason = next(i.reason for i in _decision(
        audit("pkg.s:Engine", root=make_pkg({"s.py": source.replace("WARMUP", warmup)}, ROOTS)),
        "for ... in range(pg.size() - current - 1)").inputs if i.klass.value == "UNKNOWN")
    assert '"Engine.train_batch_iter.pg"' in reason, (
        "undeclared, the UNKNOWN input must give the key that declares exactly this parameter "
        f"(\"Engine.train_batch_iter.pg\"), not a bare \"pg\" that would match every `pg`; got "
        f"{reason!r}")


def test_a_collective_over_a_declared_root_group_runs_over_that_group(make_pkg):
    warmup = ("if dist.get_rank(self.tp_group) == 0:\n"
              "                dist.all_reduce(batch, group=pg)")
    undeclared = _warmup(make_pkg, warmup, "dist.get_rank(self.tp_group) == 0")
    assert undeclared.verdict is Verdict.RANK_LOCAL, (
        "undeclared, an all_reduce over the root's `pg` is judged over the world, within "
        f"which the TP rank differs; got {_describe(undeclared)}")
    declared = _warmup(make_pkg, warmup, "dist.get_rank(self.tp_group) == 0",
                       ROOTS + 'groups = { "Engine.train_batch_iter.pg" = "pp" }\n')
    assert declared.verdict is Verdict.UNIFORM, (
        "`groups = { \"Engine.train_batch_iter.pg\" = \"pp\" }` declares the root's `pg` the PP "
        "group for its collectives too: an all_reduce over a PP group waits for ranks of one "
        f"TP rank, so the TP rank gating it is the same on all of them; got {_describe(declared)}")


def test_a_local_bound_to_a_declared_root_group_is_that_groups_rank(make_pkg):
    warmup = ("g = pg\n"
              "            current = dist.get_rank(g)\n"
              "            for _ in range(pg.size() - current - 1):\n"
              "                dist.all_reduce(batch, group=self.tp_group)")
    d = _warmup(make_pkg, warmup, "for ... in range(pg.size() - current - 1)",
                ROOTS + 'groups = { "Engine.train_batch_iter.pg" = "pp" }\n')
    assert d.verdict is Verdict.UNIFORM, (
        "`g = pg` binds the root's `pg`, declared the PP group by its key: `dist.get_rank(g)` "
        "is the PP stage, the same on every rank of the TP group; got " + _describe(d))


TWO_GROUPS = """
    class Engine:
        def __init__(self, tp_ranks):
            self.tp_group = dist.new_group(tp_ranks)

        def train_batch_iter(self, model, pg, qg, flag):
            BODY
"""

HELPER = """
        def _helper(self, model, g):
            if g.rank() == 0:
                dist.barrier(group=self.tp_group)
"""

LOCAL = ("g = pg\n"
         "            if flag:\n"
         "                g = qg\n"
         "            if dist.get_rank(g) == 0:\n"
         "                dist.barrier(group=self.tp_group)")


def _two_groups(make_pkg, body: str, declared: str, condition: str):
    source = TWO_GROUPS.replace("BODY", body)
    if "_helper" in body:
        source += HELPER
    root = make_pkg({"s.py": source}, ROOTS + (f"groups = {{ {declared} }}\n" if declared else ""))
    return _decision(audit("pkg.s:Engine", root=root), condition)


@pytest.mark.parametrize("body, condition", [
    ("self._helper(model, pg)\n            self._helper(model, qg)", "g.rank() == 0"),
    (LOCAL, "dist.get_rank(g) == 0"),
], ids=["helper_from_both", "local_bound_to_both"])
def test_one_of_two_root_groups_declared_leaves_the_other_to_declare(make_pkg, body,
                                                                     condition):
    d = _two_groups(make_pkg, body, '"Engine.train_batch_iter.pg" = "pp"', condition)
    reasons = " ".join(i.reason for i in d.inputs if i.klass.value == "UNKNOWN")
    assert d.verdict is Verdict.UNKNOWN and '"Engine.train_batch_iter.qg"' in reasons, (
        "the group is `pg` (declared the PP group) or `qg` (not declared): nothing says what "
        "`qg` is, so the rank stays UNKNOWN and the reason gives the key still to declare "
        f"(\"Engine.train_batch_iter.qg\"), not the PP rank for both; got {_describe(d)}")


@pytest.mark.parametrize("body, condition", [
    ("self._helper(model, pg)\n            self._helper(model, qg)", "g.rank() == 0"),
    (LOCAL, "dist.get_rank(g) == 0"),
], ids=["helper_from_both", "local_bound_to_both"])
def test_two_root_groups_declared_different_keep_the_hazard(make_pkg, body, condition):
    d = _two_groups(make_pkg, body,
                    '"Engine.train_batch_iter.pg" = "pp", "Engine.train_batch_iter.qg" = "tp"',
                    condition)
    assert d.verdict is Verdict.RANK_LOCAL, (
        "the group is `pg` (the PP group) or `qg` (declared the TP group): on the `qg` path "
        "the rank is the TP rank, which differs between the TP ranks the barrier waits for; "
        f"one of the two dimensions must not win; got {_describe(d)}")


@pytest.mark.parametrize("body, condition", [
    ("if dist.get_rank(pg) == 0:\n                dist.barrier(group=self.tp_group)",
     "dist.get_rank(pg) == 0"),
    ("g = pg\n            if dist.get_rank(g) == 0:\n"
     "                dist.barrier(group=self.tp_group)", "dist.get_rank(g) == 0"),
    ("if dist.get_rank(self.tp_group) == 0:\n                dist.all_reduce(model, group=pg)",
     "dist.get_rank(self.tp_group) == 0"),
], ids=["direct", "through_a_local", "collective_over_it"])
def test_a_root_group_key_may_be_a_glob(make_pkg, body, condition):
    d = _two_groups(make_pkg, body, '"*.train_batch_iter.pg" = "pp"', condition)
    assert d.verdict is Verdict.UNIFORM, (
        "groups keys are globs: `\"*.train_batch_iter.pg\" = \"pp\"` declares Engine's root "
        "`pg` the PP group, whose rank is the same on every rank of the TP group; "
        f"got {_describe(d)}")


def test_a_roots_self_passed_to_a_helper_is_not_a_group_parameter(make_pkg):
    source = """
    def _leader_sync(obj, model):
        if obj.rank_in_group == 0:
            dist.all_reduce(model, group=obj.tp_group)


    class Coord:
        def __init__(self, tp_ranks):
            self.tp_group = dist.new_group(tp_ranks)
            self.rank_in_group = dist.get_rank()

        def train_batch_iter(self, model):
            _leader_sync(self, model)
"""
    d = _decision(audit("pkg.s:Coord", root=make_pkg({"s.py": source}, ROOTS)),
                  "obj.rank_in_group == 0")
    assert d.verdict is Verdict.RANK_LOCAL and not any("'self'" in i.reason for i in d.inputs), (
        "`obj` is the root's own object passed on (`_leader_sync(self, model)`), not a group "
        "its caller chose: its `rank_in_group` is the world's rank here, RANK-LOCAL, never an "
        f"UNKNOWN naming 'self'; got {_describe(d)}")
