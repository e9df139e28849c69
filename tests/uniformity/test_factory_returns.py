"""A component built by a factory is the class the factory returns (docs/uniformity.md
"Inputs": components ... factories): ``return Cls(...)``, ``cls(...)``, and also what the
factory's return annotation names (``-> Union[A, B]``, ``-> Optional[A]``, ``-> "A"``) and
an Enum classmethod returning one of its members (``cls.NONE``, ``cls[name]``), as
SGLang's ``SpeculativeAlgorithm.from_string`` does. An unresolved receiver stays UNKNOWN."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

FACTORIES = {
    "a return annotation naming the class": """
    class Algo:
        def is_none(self):
            return True

    def make_algo(name) -> "Algo":
        return REGISTRY[name]
""",
    "a Union return annotation": """
    class Algo:
        def is_none(self):
            return True

    class Custom:
        def is_none(self):
            return False

    def make_algo(name) -> Union[Algo, Custom]:
        return REGISTRY[name]
""",
    "an Enum classmethod returning a member": """
    class Algo(Enum):
        NONE = auto()
        EAGLE = auto()

        @classmethod
        def from_string(cls, name):
            if name is None:
                return cls.NONE
            return cls[name.upper()]

        def is_none(self):
            return self == Algo.NONE

    def make_algo(name):
        return Algo.from_string(name)
""",
    "an Enum classmethod looking a member up by name": """
    class Algo(Enum):
        NONE = auto()
        EAGLE = auto()

        @classmethod
        def from_string(cls, name):
            return cls[name.upper()]

        def is_none(self):
            return self == Algo.NONE

    def make_algo(name):
        return Algo.from_string(name)
""",
    "an Enum mixed with str (class Algo(str, Enum))": """
    class Algo(str, Enum):
        NONE = "none"

        @classmethod
        def from_string(cls, name):
            return cls.NONE

        def is_none(self):
            return self == Algo.NONE

    def make_algo(name):
        return Algo.from_string(name)
""",
    "a factory returning a local bound to a constructor": """
    class Algo:
        def is_none(self):
            return True

    def make_algo(name):
        algo = Algo()
        return algo
""",
}

STEP = """
    class S:
        def __init__(self):
            self.algo = make_algo(self.server_args.algo)

        def step(self):
            if self.algo.is_none():
                dist.barrier(group=self.tp_cpu_group)
"""


@pytest.mark.parametrize("shape", sorted(FACTORIES))
def test_a_component_a_factory_returns_is_resolved(make_pkg, shape):
    report = audit("pkg.s:S", root=make_pkg({"s.py": FACTORIES[shape] + STEP}, ROOTS))
    found = [d for d in report.decisions if "is_none" in d.condition]
    assert found, f"{shape}: no decision on self.algo.is_none() in {report.decisions}"
    assert found[0].verdict is not Verdict.UNKNOWN, (
        f"{shape}: self.algo is built by make_algo, whose {shape} says which class it returns: "
        f"the receiver must resolve, not stay UNKNOWN ({found[0].why})")


def test_a_factory_that_names_no_class_stays_unknown(make_pkg):
    src = """
    def make_algo(name):
        return REGISTRY[name]
""" + STEP
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = [d for d in report.decisions if "is_none" in d.condition]
    assert found and found[0].verdict is Verdict.UNKNOWN and "self.algo" in found[0].why, (
        "a factory that neither builds nor annotates a class leaves self.algo unresolved: the "
        f"decision must stay UNKNOWN naming self.algo; got {found}")


def test_every_class_of_a_union_annotation_is_read(make_pkg):
    src = """
    import time

    class Algo:
        def is_none(self):
            return True

    class Custom:
        def is_none(self):
            return time.monotonic() > 0

    def make_algo(name) -> Union[Algo, Custom]:
        return REGISTRY[name]
""" + STEP
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = [d for d in report.decisions if "is_none" in d.condition]
    assert found and found[0].verdict is Verdict.RANK_LOCAL and "monotonic" in found[0].why, (
        "make_algo may return an Algo or a Custom (-> Union[Algo, Custom]); Custom.is_none "
        "reads a clock, so the decision must be RANK-LOCAL naming time.monotonic, whichever "
        f"class comes first in the Union; got {found}")

