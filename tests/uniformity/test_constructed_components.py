"""A component's own fields set where it is built (docs/uniformity.md "Inputs": component
fields, constructor keywords): a class built as another class's component
(``self.receiver = Receiver(skipper=self.skipper, limit=...)``) reads, in its own methods, what
that construction passes — by keyword, by a dataclass field's position, or through an
``__init__`` parameter it stores — both to resolve a call on the field and to walk its value.
Also: a field holding a builtin value (``{...}``, ``deque()``) is no unresolved component; a
class passed in as an argument (``self._process(reqs, Waiting)``) and then called is read as
that class; a local bound to a declared field (``alloc = self.pool.sub``) is read through the
declaration. SGLang's ``SchedulerRequestReceiver`` (a frozen dataclass built with
``recv_skipper=self.recv_skipper``) and ``GrammarManager(self)`` are the shapes."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SKIPPER = """
    from dataclasses import dataclass
    from typing import Any

    class Skipper:
        @classmethod
        def maybe_create(cls):
            return cls()

        def handle(self):
            return {handle}
"""

DATACLASS_KEYWORD = SKIPPER + """
    @dataclass(kw_only=True, frozen=True)
    class Receiver:
        skipper: Any
        size: int

        def recv(self):
            if not self.skipper.handle():
                dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.skipper = Skipper.maybe_create()
            self.receiver = Receiver(skipper=self.skipper, size=3)

        def step(self):
            self.receiver.recv()
"""

DATACLASS_POSITION = SKIPPER + """
    @dataclass
    class Receiver:
        size: int
        skipper: Any

        def recv(self):
            if not self.skipper.handle():
                dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.receiver = Receiver(3, Skipper())

        def step(self):
            self.receiver.recv()
"""

INIT_PARAMETER = SKIPPER + """
    class Receiver:
        def __init__(self, owner, skipper):
            self.size = owner.pp_size
            self.skipper = skipper

        def recv(self):
            if self.skipper.handle():
                dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.pp_size = 4
            self.receiver = Receiver(self, Skipper())

        def step(self):
            self.receiver.recv()
"""

SHAPES = {"a dataclass field given by keyword": DATACLASS_KEYWORD,
          "a dataclass field given by position": DATACLASS_POSITION,
          "an __init__ parameter stored into the field": INIT_PARAMETER}


def _decision(report, text):
    found = [d for d in report.decisions if text in d.condition]
    assert found, f"no decision on {text!r} among {[d.condition for d in report.decisions]}"
    return found[0]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_component_field_set_at_construction_resolves_its_calls(make_pkg, shape):
    clock = audit("pkg.s:S", root=make_pkg(
        {"s.py": SHAPES[shape].replace("{handle}", "time.monotonic() > 5")}, ROOTS))
    found = _decision(clock, "handle")
    assert found.verdict is Verdict.RANK_LOCAL and "monotonic" in found.why, (
        f"{shape}: Receiver.skipper is the Skipper its owner passes when it builds the "
        f"Receiver, and Skipper.handle reads a clock: the decision must be RANK-LOCAL naming "
        f"time.monotonic, not left UNKNOWN as an unresolved receiver; got {found.verdict} "
        f"({found.why})")
    fixed = audit("pkg.s:S", root=make_pkg(
        {"s.py": SHAPES[shape].replace("{handle}", "True")}, ROOTS))
    found = _decision(fixed, "handle")
    assert found.verdict is Verdict.UNIFORM, (
        f"{shape}: Skipper.handle returns a constant: the decision through the constructed "
        f"field must be UNIFORM; got {found.verdict} ({found.why})")


def test_a_construction_that_passes_no_class_stays_unknown(make_pkg):
    src = DATACLASS_KEYWORD.replace("{handle}", "True").replace(
        "skipper=self.skipper,", "skipper=REGISTRY[self.mode],")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = _decision(report, "handle")
    assert found.verdict is Verdict.UNKNOWN and "self.skipper" in found.why, (
        "the owner passes REGISTRY[self.mode], which names no class: self.skipper.handle() "
        f"must stay UNKNOWN naming self.skipper; got {found.verdict} ({found.why})")


VALUE = """
    from dataclasses import dataclass

    @dataclass
    class Receiver:
        limit: float

        def recv(self):
            if self.limit > 3:
                dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.receiver = Receiver({given})

        def step(self):
            self.receiver.recv()
"""


@pytest.mark.parametrize("given, verdict, word", [
    ("limit=time.monotonic()", Verdict.RANK_LOCAL, "monotonic"),
    ("time.monotonic()", Verdict.RANK_LOCAL, "monotonic"),
    ("limit=self.server_args.limit", Verdict.UNIFORM, ""),
])
def test_a_dataclass_field_reads_what_its_construction_passes(make_pkg, given, verdict, word):
    report = audit("pkg.s:S", root=make_pkg({"s.py": VALUE.replace("{given}", given)}, ROOTS))
    found = _decision(report, "self.limit")
    assert found.verdict is verdict and word in found.why, (
        f"Receiver({given}) sets the dataclass field limit that Receiver.recv reads: the "
        f"decision must be {verdict.value} (a field no code writes is what its construction "
        f"passes, not 'no write of self.limit'); got {found.verdict} ({found.why})")
    if word:
        hops = [h for i in found.inputs for h in i.witness]
        assert any("Receiver(limit=...)" in h for h in hops), (
            f"the witness must show the construction hop Receiver(limit=...); got {hops}")


def test_a_dataclass_field_no_construction_passes_stays_unknown(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": VALUE.replace("{given}", "")}, ROOTS))
    found = _decision(report, "self.limit")
    assert found.verdict is Verdict.UNKNOWN and "self.limit" in found.why, (
        "Receiver() passes nothing for limit and no code writes it: the decision must stay "
        f"UNKNOWN naming self.limit; got {found.verdict} ({found.why})")


OWNER_PARAMETER = """
    class Manager:
        def __init__(self, scheduler):
            self.size = scheduler.{field}

        def sync(self):
            if self.size <= 1:
                return
            dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.pp_size = self.server_args.pp_size
            self.started = time.monotonic()
            self.manager = Manager(self)

        def step(self):
            self.manager.sync()
"""


@pytest.mark.parametrize("field, verdict", [("pp_size", Verdict.UNIFORM),
                                            ("started", Verdict.RANK_LOCAL)])
def test_a_constructor_parameter_is_what_the_owner_passes(make_pkg, field, verdict):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": OWNER_PARAMETER.replace("{field}", field)}, ROOTS))
    found = _decision(report, "self.size")
    assert found.verdict is verdict, (
        f"Manager(self) is built by S, so Manager.__init__'s scheduler is that S and "
        f"self.size is S.{field}: the decision must be {verdict.value}, not UNKNOWN with 'no "
        f"construction site found'; got {found.verdict} ({found.why})")


BUILTIN_FIELD = """
    class Skipper:
        def __init__(self):
            self._weights = {value}

        def handle(self, mode):
            return self._weights.get(mode, 1) > 0

    class S:
        def __init__(self):
            self.skipper = Skipper()

        def step(self):
            if self.skipper.handle(self.server_args.mode):
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("value", ['{"decode": 2, None: 1}', "dict(decode=2)",
                                   "defaultdict(int)", "[w for w in (1, 2)]"])
def test_a_method_of_a_builtin_field_is_the_values_own(make_pkg, value):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": BUILTIN_FIELD.replace("{value}", value)}, ROOTS))
    found = _decision(report, "handle")
    assert found.verdict is Verdict.UNIFORM, (
        f"self._weights = {value} is a builtin value: self._weights.get(...) is its own method "
        f"over configured entries, not a call on an unresolved component; the decision must be "
        f"UNIFORM; got {found.verdict} ({found.why})")


def test_a_field_from_an_unknown_call_is_still_an_unresolved_receiver(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": BUILTIN_FIELD.replace("{value}", "make_weights()")}, ROOTS))
    found = _decision(report, "handle")
    assert found.verdict is Verdict.UNKNOWN and "self._weights" in found.why, (
        "self._weights = make_weights() names no class and no builtin value: "
        f"self._weights.get(...) must stay UNKNOWN naming self._weights; got {found.verdict} "
        f"({found.why})")


PASSED_CLASS = """
    class Waiting:
        def __init__(self, req, clock):
            self.req = req
            self.clock = clock

    class S:
        def _process(self, reqs, waiting_cls):
            out = []
            for r in reqs:
                w = waiting_cls(req=r, clock=time.monotonic())
                out.append(w.req)
            return out

        def step(self):
            ready = self._process(self.server_args.reqs, {passed})
            if ready[0] > 3:
                dist.barrier(group=self.tp_cpu_group)
"""


def test_a_class_passed_as_an_argument_is_read_as_that_class(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": PASSED_CLASS.replace("{passed}", "Waiting")}, ROOTS))
    found = _decision(report, "ready[0]")
    assert found.verdict is Verdict.UNIFORM, (
        "every caller passes the class Waiting as waiting_cls, so waiting_cls(req=r, ...).req "
        "is r (a configured request), not every constructor argument (a clock): the decision "
        f"must be UNIFORM; got {found.verdict} ({found.why})")


def test_a_callable_argument_that_is_no_class_keeps_its_arguments(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": PASSED_CLASS.replace("{passed}", "self.factory")}, ROOTS))
    found = _decision(report, "ready[0]")
    assert found.verdict is Verdict.RANK_LOCAL and "monotonic" in found.why, (
        "the caller passes self.factory, which names no class: waiting_cls(...) is an "
        "unknown function of its arguments, one a clock, so the decision must stay RANK-LOCAL "
        f"naming time.monotonic; got {found.verdict} ({found.why})")


def test_a_local_holding_a_class_is_read_as_that_class(make_pkg):
    src = PASSED_CLASS.replace("{passed}", "Waiting").replace(
        "w = waiting_cls(req=r", "klass = Waiting if self.server_args.x else Waiting\n"
        "                w = klass(req=r")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = _decision(report, "ready[0]")
    assert found.verdict is Verdict.UNIFORM, (
        "klass = Waiting if ... else Waiting holds the class Waiting: klass(req=r, ...).req is "
        f"r, the decision must be UNIFORM; got {found.verdict} ({found.why})")


ALIAS = """
    class S:
        def step(self):
            alloc = self.pool.hisparse_allocator
            if alloc.available_size() > 0:
                dist.barrier(group=self.tp_cpu_group)
"""

REPLICA = ROOTS + """
[[tool.deskcheck.uniformity.replica]]
field = "self.pool"
arm = "tests/test_pools.py::test_pools_agree"
"""


def _with_replica_arm(make_pkg, src: str):
    """A package declaring self.pool a replica, with the congruence arm that checks it."""
    root = make_pkg({"s.py": src}, REPLICA)
    (root / "tests").mkdir()
    (root / "tests" / "test_pools.py").write_text("def test_pools_agree():\n    pass\n")
    return root


def test_a_local_bound_to_a_declared_field_is_read_through_the_declaration(make_pkg):
    root = _with_replica_arm(make_pkg, ALIAS)
    found = _decision(audit("pkg.s:S", root=root), "available_size")
    assert found.verdict is Verdict.SANCTIONED, (
        "alloc = self.pool.hisparse_allocator binds alloc to a read through the declared "
        "replica self.pool: alloc.available_size() is that replica's size, SANCTIONED; got "
        f"{found.verdict} ({found.why})")
    undeclared = _decision(audit("pkg.s:S", root=make_pkg({"s.py": ALIAS}, ROOTS)),
                           "available_size")
    assert undeclared.verdict is Verdict.RANK_LOCAL, (
        "without the declaration alloc.available_size() is a per-rank pool size: RANK-LOCAL; "
        f"got {undeclared.verdict} ({undeclared.why})")


FACTORY = """
    from dataclasses import dataclass

    @dataclass
    class Tracker:
        decay: float
        current: float

        @classmethod
        def from_config(cls):
            decay = {decay}
            return cls(decay=decay, current=1.0)

        def step_down(self):
            return self.current - self.decay

    class S:
        def __init__(self):
            self.tracker = Tracker.from_config()

        def step(self):
            if self.tracker.step_down() > 0:
                dist.barrier(group=self.tp_cpu_group)
"""


FACTORY_SHAPES = {
    "a classmethod calling cls(...)": "",
    "a classmethod naming its class": ("return cls(decay=decay, current=1.0)",
                                       "return Tracker(decay=decay, current=1.0)"),
    "a staticmethod naming its class": ("@classmethod\n        def from_config(cls):",
                                        "@staticmethod\n        def from_config():"),
}


@pytest.mark.parametrize("shape", sorted(FACTORY_SHAPES))
@pytest.mark.parametrize("decay, verdict", [("self.server_args.decay", Verdict.UNIFORM),
                                            ("time.monotonic()", Verdict.RANK_LOCAL)])
def test_a_field_set_by_the_classs_own_factory(make_pkg, decay, verdict, shape):
    src = FACTORY.replace("{decay}", decay)
    if FACTORY_SHAPES[shape]:
        src = src.replace(*FACTORY_SHAPES[shape])
        if "staticmethod" in shape:
            src = src.replace("return cls(decay", "return Tracker(decay")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = _decision(report, "step_down")
    assert found.verdict is verdict, (
        f"{shape}: Tracker.from_config builds the Tracker with decay={decay}: self.decay is "
        f"that value, so the decision must be {verdict.value}, not UNKNOWN with 'no write of "
        f"self.decay'; got {found.verdict} ({found.why})")


PASSED_SELF_DECLARED = """
    class Observer:
        def __init__(self, scheduler):
            self.budget = scheduler.free_tokens

        def over(self):
            return self.budget > 100

    class S:
        def __init__(self):
            self.free_tokens = self.pool.available_size()
            self.observer = Observer(self)

        def step(self):
            if self.observer.over():
                dist.barrier(group=self.tp_cpu_group)
"""


def test_a_declared_field_read_through_a_passed_self_keeps_its_declaration(make_pkg):
    declared = ROOTS + (
        '\n[[tool.deskcheck.uniformity.agreed]]\nfield = "self.free_tokens"\n'
        'collective = "dist.all_reduce"\n')
    found = _decision(audit("pkg.s:S", root=make_pkg({"s.py": PASSED_SELF_DECLARED},
                                                     declared)), "over")
    assert found.verdict is Verdict.SANCTIONED, (
        "Observer(self) reads scheduler.free_tokens, the scheduler's field declared agreed: "
        "read through the passed self it keeps its declaration (SANCTIONED), as read in the "
        f"scheduler itself; got {found.verdict} ({found.why})")
    plain = _decision(audit("pkg.s:S", root=make_pkg({"s.py": PASSED_SELF_DECLARED},
                                                     ROOTS)), "over")
    assert plain.verdict is Verdict.RANK_LOCAL and "available_size" in plain.why, (
        "undeclared, scheduler.free_tokens is the scheduler's pool size read through the "
        f"passed self: RANK-LOCAL naming available_size; got {plain.verdict} ({plain.why})")


CALLBACK_FIELD = """
    from dataclasses import dataclass
    from typing import Any, Callable

    class Skipper:
        def handle(self, last):
            return last.mode == 1

    @dataclass
    class Receiver:
        skipper: Any
        get_last: Callable

        def recv(self):
            if self.skipper.handle(self.get_last()):
                dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.receiver = Receiver(skipper=Skipper(), get_last=lambda: self.last)

        def step(self):
            self.receiver.recv()
"""


def test_a_method_call_on_self_is_no_read_of_selfs_fields(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": CALLBACK_FIELD}, ROOTS))
    found = _decision(report, "handle")
    assert "no write of self.mode" not in found.why and "Receiver's MRO" not in found.why, (
        "self.get_last() calls a callable field; what it returns is not an attribute of the "
        "Receiver itself: last.mode must not be looked up as a field of Receiver; got "
        f"{found.verdict} ({found.why})")


def test_one_caller_passing_no_class_keeps_the_arguments(make_pkg):
    src = PASSED_CLASS.replace("{passed}", "Waiting").replace(
        "        def step(self):\n", "        def step(self):\n            self.other()\n") + """
        def other(self):
            if self._process(self.server_args.reqs, self.factory):
                dist.barrier(group=self.tp_cpu_group)
"""
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = _decision(report, "ready[0]")
    assert found.verdict is Verdict.RANK_LOCAL and "monotonic" in found.why, (
        "one caller passes the class Waiting, another self.factory (no class): waiting_cls "
        "is read as a class only when every caller passes one, so the decision must stay "
        f"RANK-LOCAL naming time.monotonic; got {found.verdict} ({found.why})")


FACTORY_LOCAL = """
    class Grpc:
        def poll(self):
            return {poll}

    class Http:
        def poll(self):
            return True

    def make_receiver(mode):
        receiver_cls = Grpc if mode == "grpc" else Http
        return receiver_cls()

    class S:
        def __init__(self):
            self.receiver = make_receiver(self.server_args.mode)

        def step(self):
            if self.receiver.poll():
                dist.barrier(group=self.tp_cpu_group)
"""


def test_a_factory_building_a_class_held_in_a_local(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": FACTORY_LOCAL.replace("{poll}", "time.monotonic() > 0")}, ROOTS))
    found = _decision(report, "poll")
    assert found.verdict is Verdict.RANK_LOCAL and "monotonic" in found.why, (
        "make_receiver returns receiver_cls(), receiver_cls being Grpc or Http: both classes "
        "are read, and Grpc.poll reads a clock, so the decision must be RANK-LOCAL naming "
        f"time.monotonic, not UNKNOWN; got {found.verdict} ({found.why})")


def test_a_field_set_to_none_before_its_builtin_value_is_still_builtin(make_pkg):
    src = BUILTIN_FIELD.replace("{value}", "None").replace(
        "        def handle(self, mode):", "        def load(self):\n"
        "            self._weights = {'decode': 2}\n\n        def handle(self, mode):")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = _decision(report, "handle")
    assert found.verdict is Verdict.UNIFORM, (
        "self._weights is None until load() sets it to a dict: None is the field before it is "
        "set, the dict its builtin value, so self._weights.get(...) is the dict's own method "
        f"and the decision UNIFORM; got {found.verdict} ({found.why})")


def test_a_field_only_ever_none_holds_no_builtin_value(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": BUILTIN_FIELD.replace("{value}", "None")}, ROOTS))
    found = _decision(report, "handle")
    assert found.verdict is Verdict.UNKNOWN and "self._weights" in found.why, (
        "self._weights is only ever None: no builtin value it holds has a .get, so the call "
        "stays UNKNOWN naming self._weights (the field's real value is not in the code "
        f"read); got {found.verdict} ({found.why})")


OWNER_LENGTH = """
    class Manager:
        def __init__(self, scheduler):
            self.count = len(scheduler.reqs)

        def sync(self):
            if self.count > 0:
                dist.barrier(group=self.tp_cpu_group)

    class S:
        def __init__(self):
            self.reqs = [1] if time.monotonic() > 5 else []
            self.manager = Manager(self)

        def step(self):
            self.manager.sync()
"""


def test_a_passed_self_is_read_for_a_fields_length_too(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": OWNER_LENGTH}, ROOTS))
    found = _decision(report, "self.count")
    assert found.verdict is Verdict.RANK_LOCAL and "monotonic" in found.why, (
        "Manager(self) reads len(scheduler.reqs), and S.reqs is non-empty only when a clock "
        "says so: the length read through the passed self must be RANK-LOCAL naming "
        f"time.monotonic, not read as nothing; got {found.verdict} ({found.why})")


def test_a_class_passed_from_another_module_is_read_as_that_class(make_pkg):
    helper = """
    class Helper:
        def _process(self, reqs, waiting_cls):
            out = []
            for r in reqs:
                w = waiting_cls(req=r, clock=time.monotonic())
                out.append(w.req)
            return out
"""
    main = """
    from pkg.helper import Helper

    class Waiting:
        def __init__(self, req, clock):
            self.req = req
            self.clock = clock

    class S(Helper):
        def step(self):
            ready = self._process(self.server_args.reqs, Waiting)
            if ready[0] > 3:
                dist.barrier(group=self.tp_cpu_group)
"""
    report = audit("pkg.s:S", root=make_pkg({"helper.py": helper, "s.py": main}, ROOTS))
    found = _decision(report, "ready[0]")
    assert found.verdict is Verdict.UNIFORM, (
        "S passes Waiting (a class of its own module) to Helper._process in another module "
        "that never imports it: the argument is named in the caller's module, so "
        f"waiting_cls(req=r, ...).req is r and the decision UNIFORM; got {found.verdict} "
        f"({found.why})")


FACTORY_REBOUND = """
    class Grpc:
        def poll(self):
            return time.monotonic() > 0

    class Http:
        def poll(self):
            return True

    def make_receiver(mode):
        receiver_cls = Grpc
        if mode == "http":
            receiver_cls = Http
        return receiver_cls()

    class S:
        def __init__(self):
            self.receiver = make_receiver(self.server_args.mode)

        def step(self):
            if self.receiver.poll():
                dist.barrier(group=self.tp_cpu_group)
"""


def test_a_factory_local_bound_twice_builds_both_classes(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": FACTORY_REBOUND}, ROOTS))
    found = _decision(report, "poll")
    assert found.verdict is Verdict.RANK_LOCAL and "monotonic" in found.why, (
        "receiver_cls is Grpc, or Http when mode says so: make_receiver builds either class, "
        "and Grpc.poll reads a clock, so the decision must be RANK-LOCAL naming "
        f"time.monotonic (every binding of the local, not only the last); got "
        f"{found.verdict} ({found.why})")


def test_a_local_bound_two_ways_is_not_read_through_one_declaration(make_pkg):
    src = ALIAS.replace(
        "            alloc = self.pool.hisparse_allocator\n",
        "            alloc = self.pool.hisparse_allocator\n"
        "            if self.server_args.local:\n"
        "                alloc = self.local_pool\n")
    root = _with_replica_arm(make_pkg, src)
    found = _decision(audit("pkg.s:S", root=root), "available_size")
    assert found.verdict is Verdict.RANK_LOCAL, (
        "alloc is the declared self.pool's allocator or, when configured, the undeclared "
        "self.local_pool: alloc.available_size() is not only the replica's, so it must stay "
        f"RANK-LOCAL; got {found.verdict} ({found.why})")
