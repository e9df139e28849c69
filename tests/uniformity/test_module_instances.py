"""A module-level instance of a class under the roots (``g_ctx = Context()``, a process-wide
singleton, used here or imported) holds what its methods write: ``g_ctx.t`` reads the class's
writes of ``t`` in the methods the roots reach, and ``g_ctx.tick()`` enters ``Context.tick``
(docs/uniformity.md "Inputs"). Found on lightllm's TP backend, whose requests live in
``g_infer_context``: the read was taken for a module constant, so `if decode_reqs:` (built
from each rank's radix-cache match) was UNIFORM with no input at all (a silent miss).
A class answering reads through ``__getattr__`` answers with it (SGLang's ParallelContext).
Twins: a field written only from configuration, a local of the same name, a module-level
value that is no instance of ours."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

STATE = """
    import time


    class Context:
        def __init__(self):
            self.ids = []
            self.t = 0.0
            self.limit = CONFIG_LIMIT

        def add(self, x):
            if x > 5:
                self.ids.append(x)

        def tick(self):
            self.t = time.monotonic()

        def last(self):
            return self.t


    g_ctx = Context()
    CONFIG_LIMIT = 4
    PLAIN = {"t": 0}
"""

# (import line, body of step before the barrier's test, the test, verdict)
SHAPES = {
    "a field a reached method stores a clock in": (
        "from pkg.state import g_ctx", "g_ctx.tick()", "g_ctx.t > 5", Verdict.RANK_LOCAL),
    "the instance's method returning that field": (
        "from pkg.state import g_ctx", "g_ctx.tick()", "g_ctx.last() > 5", Verdict.RANK_LOCAL),
    "a list field filled under a clock's test": (
        "from pkg.state import g_ctx", "g_ctx.add(time.time())", "len(g_ctx.ids) > 1",
        Verdict.RANK_LOCAL),
    "the instance imported under another name": (
        "from pkg.state import g_ctx as ctx", "ctx.tick()", "ctx.t > 5", Verdict.RANK_LOCAL),
    "the instance held in a local first": (
        "from pkg.state import g_ctx", "g_ctx.tick()\n            c = g_ctx", "c.t > 5",
        Verdict.RANK_LOCAL),
    "a field set from configuration only": (
        "from pkg.state import g_ctx", "g_ctx.tick()", "g_ctx.limit > 5", Verdict.UNIFORM),
    "a parameter of the same name shadows the instance": (
        "from pkg.state import g_ctx", "g_ctx = Other()\n            g_ctx.tick()",
        "g_ctx.t > 5", Verdict.UNIFORM),
    "a module-level dict, no instance of ours": (
        "from pkg.state import PLAIN", "pass", "PLAIN['t'] > 5", Verdict.UNIFORM),
}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_a_module_level_instance_holds_what_its_methods_write(make_pkg, shape):
    imports, body, test, verdict = SHAPES[shape]
    src = f"""
    import time
    {imports}


    class Other:
        def __init__(self):
            self.t = 0

        def tick(self):
            self.t = 1


    class S:
        def step(self):
            {body}
            if {test}:
                dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src, "state.py": STATE}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"{shape}: `if {test}` after `{body.strip()}` must be {verdict.value} "
        + ("(g_ctx is a module-level Context instance: its field holds what Context's "
           "methods store, a clock)" if verdict is Verdict.RANK_LOCAL else
           "(what is read is configuration, a value of another class, or no instance of a "
           "class under the roots)")
        + f"; got {d.verdict.value}: {d.why}")


def test_the_instance_s_methods_are_entered(make_pkg):
    src = """
    from pkg.state import g_ctx


    class S:
        def step(self):
            g_ctx.add(1)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src, "state.py": STATE}, ROOTS))
    assert report.functions >= 2, (
        "g_ctx.add(1) on a module-level Context instance must enter Context.add (a "
        f"collective inside it would be unseen); functions walked: {report.functions}")


GETATTR = """
    import time


    class Dynamic:
        def __init__(self):
            self._store = {}

        def __getattr__(self, name):
            return self._store[name]

        def stamp(self):
            self._store["t"] = SOURCE


    _P = Dynamic()


    def get_p():
        return _P


    class S:
        def step(self):
            get_p().stamp()
            if get_p().t > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("source, verdict", [("time.monotonic()", Verdict.RANK_LOCAL),
                                             ("4", Verdict.UNIFORM)])
def test_a_read_answered_by_getattr_reads_what_getattr_returns(make_pkg, source, verdict):
    report = audit("pkg.s:S", root=make_pkg(
        {"s.py": GETATTR.replace("SOURCE", source)}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict and d.verdict is not Verdict.UNKNOWN, (
        f"Dynamic has no attribute t: its __getattr__ answers `get_p().t` from _store, "
        f"where stamp() puts {source}; the decision must be {verdict.value} (not UNKNOWN "
        f"'no write of self.t'); got {d.verdict.value}: {d.why}")


RECORD = """
    import json
    import os
    from types import SimpleNamespace
    from easydict import EasyDict


    def start_args():
        return SOURCE


    class S:
        def step(self):
            if start_args().tp > 1:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("source, verdict", [
    ('EasyDict(json.loads(os.environ["ARGS"]))', Verdict.UNIFORM),
    ("EasyDict({'tp': time.time()})", Verdict.RANK_LOCAL),
    ("SimpleNamespace(tp=time.time())", Verdict.RANK_LOCAL),
    ("SimpleNamespace(tp=CONFIG_TP)", Verdict.UNIFORM)])
def test_a_record_class_attribute_reads_the_mapping_it_was_built_from(make_pkg, source,
                                                                      verdict):
    src = "\n    CONFIG_TP = 2\n" + RECORD.replace("SOURCE", source)
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"{source}.tp is a key of the mapping (or a keyword) it views: the decision must be "
        f"{verdict.value} (not UNKNOWN 'a class not found under the roots'); got "
        f"{d.verdict.value}: {d.why}")


BUILT = """
    import time


    class Manager:
        def __init__(self):
            self.t = 0.0

        def stamp(self):
            self.t = SOURCE

        def last(self):
            return self.t


    def get_manager():
        return Manager()


    class S:
        def step(self):
            get_manager().stamp()
            if get_manager().last() > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("source, verdict", [("time.monotonic()", Verdict.RANK_LOCAL),
                                             ("4", Verdict.UNIFORM)])
def test_a_getter_returning_a_construction_resolves_calls_on_its_result(make_pkg, source,
                                                                         verdict):
    report = audit("pkg.s:S", root=make_pkg({"s.py": BUILT.replace("SOURCE", source)}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"get_manager() returns Manager() (lmdeploy's get_dist_manager() of a singleton "
        f"class): get_manager().stamp() enters Manager.stamp, which stores {source}, and "
        f"get_manager().last() returns that field, so the decision must be {verdict.value}; "
        f"got {d.verdict.value}: {d.why}")


ANNOTATED = """
    import time
    from typing import Optional


    class Coordinator:
        def __init__(self, ranks):
            self.ranks = ranks

        def reading(self):
            return SOURCE


    _PP: Optional[Coordinator] = None


    def make_group(ranks):
        return Coordinator(ranks)


    def initialize(ranks):
        global _PP
        _PP = make_group(ranks)


    def get_pp_group() -> RETURNS:
        assert _PP is not None
        return _PP


    class S:
        def step(self):
            if get_pp_group().reading() > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("source, returns, verdict", [
    ("time.monotonic()", "Coordinator", Verdict.RANK_LOCAL),
    ("4", "Coordinator", Verdict.UNIFORM),
    ("time.monotonic()", "Optional[Coordinator]", Verdict.RANK_LOCAL),
], ids=["clock", "constant", "optional"])
def test_a_getter_annotated_with_its_class_resolves_calls_on_its_result(make_pkg, source,
                                                                        returns, verdict):
    text = ANNOTATED.replace("SOURCE", source).replace("RETURNS", returns)
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    d = [d for d in report.decisions if d.kind == "if"][0]
    assert d.verdict is verdict, (
        f"get_pp_group() -> {returns} returns a module-level group set inside a function "
        "(vLLM's `_PP = init_model_parallel_group(...)`): get_pp_group().reading() must enter "
        f"Coordinator.reading, which returns {source}, so the decision is {verdict.value} (not "
        f"the getter's receiver read as data); got {d.verdict.value}: {d.why} "
        f"{[(i.name, i.reason) for i in d.inputs]}")


PREFERRED = """
    import time
    from typing import Union


    class Base:
        def run(self):
            pass


    class Impl(Base):
        def run(self):
            if time.monotonic() > 5:
                dist.barrier(group=self.tp_cpu_group)


    class Other:
        def run(self):
            pass


    _CTX = Impl()
    _EP = None


    def initialize():
        global _EP
        _EP = Impl()


    def get_ctx() -> Base:
        return _CTX


    def get_ep() -> Union[Impl, Other]:
        return _EP


    class S:
        def step(self):
            CALL
"""


def test_a_module_level_construction_wins_over_the_getter_s_annotation(make_pkg):
    text = PREFERRED.replace("CALL", "get_ctx().run()")
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    found = [d for d in report.decisions if d.function == "Impl.run"]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        "get_ctx() -> Base returns _CTX = Impl(), built at module level: the construction "
        "says which class the object is (the annotation only where nothing binds it at module "
        "level), so get_ctx().run() enters Impl.run and its clock decision gating the barrier "
        f"must be reported RANK-LOCAL; got {[(d.function, d.verdict.value) for d in report.decisions]}")


def test_a_getter_annotated_with_several_classes_names_no_one_class(make_pkg):
    text = PREFERRED.replace("CALL", "get_ep().run()")
    report = audit("pkg.s:S", root=make_pkg({"s.py": text}, ROOTS))
    entered = [d.function for d in report.decisions]
    assert "Impl.run" not in entered, (
        "get_ep() -> Union[Impl, Other] returns _EP, bound inside an init function: the "
        "annotation names no one class, so get_ep().run() must not be taken for the first "
        f"class's method (Impl.run); got decisions in {entered}")
