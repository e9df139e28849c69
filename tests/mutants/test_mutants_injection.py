"""In-memory injection: every kind of function, restore, real file:line, no file written."""

from __future__ import annotations

import hashlib
import traceback
from pathlib import Path

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.injection import inject
from deskcheck.mutants.mutation import build_mutation

from .conftest import FIXTURE


@pytest.fixture(autouse=True)
def fixture_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))


def apply(target: str, operator: str, **params):
    return inject(build_mutation(Mutant(id="t", title="t", target=target, operator=operator,
                                        params=params)))


def tree_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((FIXTURE / "fixpkg").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _set_label(shapes):
    shape = shapes.Shape()
    shape.label = "aB"
    return shape.label


CASES = [
    ("fixpkg.shapes:Shape.greet", "replace", {"old": '"-shape"', "new": '"-x"'},
     lambda s: s.Shape().greet(), "base-shape", "base-x"),  # super() / __class__ cell
    ("fixpkg.shapes:Shape.scaled", "offset", {"expression": "self.__scale", "by": 1},
     lambda s: s.Shape().scaled(5), 10, 15),  # name mangling
    ("fixpkg.shapes:Shape.area", "offset", {"expression": "3 * 4", "by": 1},
     lambda s: s.Shape().area, 12, 13),  # property getter
    ("fixpkg.shapes:Shape.label.fset", "replace", {"old": "upper", "new": "lower"},
     _set_label, "AB", "ab"),  # property setter, told apart from the getter of that name
    ("fixpkg.shapes:Shape.smaller", "swap", {"old": "min", "new": "max"},
     lambda s: s.Shape.smaller(1, 2), 1, 2),  # staticmethod
    ("fixpkg.shapes:Shape.kind", "return", {"value": '"other"'},
     lambda s: s.Shape.kind(), "shape", "other"),  # classmethod
    ("fixpkg.shapes:Shape.outer.inner", "force-branch", {"condition": "y > 2", "to": False},
     lambda s: s.Shape().outer(5), 50, 5),  # nested def
    ("fixpkg.shapes:add_three", "swap", {"old": "+", "new": "-"},
     lambda s: s.add_three(10), 13, 7),  # closure (free variable k)
    ("fixpkg.shapes:add_three", "return", {"value": "value"},
     lambda s: s.add_three(10), 13, 10),  # closure whose mutant drops the free variable
    ("fixpkg.shapes:cached_double", "offset", {"expression": "n * 2", "by": 100},
     lambda s: s.cached_double.__wrapped__(1), 2, 102),  # functools wrapper followed
]


RULES = {
    "replace": "`old` becomes `new` (an exact snippet)",
    "swap": "the operator token or expression `old` becomes `new`",
    "offset": "`expression` becomes `(expression + by)`, the sign of `by` kept",
    "return": "the body becomes `return <value>`",
    "force-branch": "the condition is forced to `to`",
}


@pytest.mark.parametrize("target,operator,params,call,clean,mutated", CASES,
                         ids=[c[0].split(":")[1] + "-" + c[1] for c in CASES])
def test_inject_and_restore(target, operator, params, call, clean, mutated):
    from fixpkg import shapes

    before = tree_digest()
    assert call(shapes) == clean, (
        f"{target} must give {clean!r} on clean code before the mutant is injected; it gave "
        f"{call(shapes)!r}"
    )
    injection = apply(target, operator, **params)
    try:
        got = call(shapes)
    finally:
        injection.restore()
    assert got == mutated, (
        f"`{operator}` {params} in {target} gave {got!r}, expected {mutated!r}: "
        f"{RULES[operator]} (docs/mutants.md, Operators)")
    assert call(shapes) == clean, f"{target} was not restored after the `{operator}` mutant"
    assert tree_digest() == before, "injection must never write a file"


def test_traceback_points_at_the_real_file_and_line():
    from fixpkg import shapes

    injection = apply("fixpkg.shapes:crashes", "replace", old="total = 0", new="total = None")
    try:
        with pytest.raises(TypeError) as info:
            shapes.crashes([1])
    finally:
        injection.restore()
    frame = traceback.extract_tb(info.tb)[-1]
    source = Path(shapes.__file__).read_text().splitlines()
    assert frame.filename == shapes.__file__, (
        f"a traceback through an injected mutant must point at the real file {shapes.__file__}; it "
        f"points at {frame.filename}"
    )
    assert source[frame.lineno - 1].strip() == "total += value", (
        "a traceback through an injected mutant must point at the real line 'total += value'; "
        f"line {frame.lineno} is {source[frame.lineno - 1].strip()!r}"
    )
