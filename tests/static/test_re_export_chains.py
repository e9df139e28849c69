"""Chains of re-exports (docs/drift.md, *The production surface*, ``--static``): a base or a
class reached through ``from`` imports, star imports, aliases or module attributes is
followed to the documented depth; one step deeper, or a cycle, is an unresolvable base
with what was tried, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import SourceResolutionError, UnknownTargetError
from deskcheck.static._surface import build_model
from tests.static.class_tree import error as _error
from tests.static.class_tree import mro as _mro


def _chain(root: Path, form: str, steps: int) -> str:
    """A package ``chain_<form>_<steps>`` in which the base of ``user.User`` is reached
    through ``steps`` modules (or aliases) of ``form``; returns the spec of User."""
    package = root / f"chain_{form}_{steps}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    name = package.name
    if form == "from":  # m0: from <pkg>.m1 import Deep ... m{steps} defines Deep
        for i in range(steps):
            (package / f"m{i}.py").write_text(f"from {name}.m{i + 1} import Deep\n")
        (package / f"m{steps}.py").write_text("class Deep:\n    pass\n")
        user = f"from {name}.m0 import Deep as Start\n"
    elif form == "star":
        for i in range(steps):
            (package / f"m{i}.py").write_text(f"from {name}.m{i + 1} import *\n")
        (package / f"m{steps}.py").write_text("class Deep:\n    pass\n")
        user = f"from {name}.m0 import Deep as Start\n"
    elif form == "alias":  # A0 = A1, A1 = A2, ..., A{steps} = Deep
        lines = ["class Deep:\n    pass\n"]
        lines += [f"A{i} = A{i + 1}\n" for i in range(steps)]
        lines.append(f"A{steps} = Deep\n")
        (package / "aliases.py").write_text("".join(lines))
        user = f"from {name}.aliases import A0 as Start\n"
    else:  # attribute: m_i: import name.m{i+1} as nxt; Deep = nxt.Deep (two steps each)
        for i in range(steps):
            (package / f"m{i}.py").write_text(f"import {name}.m{i + 1} as nxt\nDeep = nxt.Deep\n")
        (package / f"m{steps}.py").write_text("class Deep:\n    pass\n")
        user = f"from {name}.m0 import Deep as Start\n"
    (package / "user.py").write_text(user + "\n\nclass User(Start):\n    pass\n")
    return f"{name}.user:User"


# how many of each form reach the deepest step followed (40) and, plus one, one step too far:
# the import in user.py is one step; a from or star import, an alias is one; an alias through
# a module attribute (Deep = nxt.Deep) is two, so 19 of those reach 39 and 20 reach 41
LIMITS = [("from", 39), ("star", 39), ("alias", 38), ("attribute", 19)]


@pytest.mark.parametrize(("form", "steps"), LIMITS)
def test_a_chain_of_re_exports_is_followed_to_its_documented_depth(root, form, steps):
    spec = _chain(root, form, steps)
    mro = _mro(root, spec)
    assert mro[1:] == [f"chain_{form}_{steps}.{'aliases' if form == 'alias' else f'm{steps}'}"
                       ":Deep", "builtins.object"], (
        f"User's base is reached through a chain of {form} steps at most 40 deep: docs/drift.md "
        f"promises chains are followed up to 40 steps; the MRO is {mro}")


@pytest.mark.parametrize(("form", "steps"), [(f, s + 1) for f, s in LIMITS])
def test_a_chain_deeper_than_the_limit_is_an_unresolvable_base(root, form, steps):
    spec = _chain(root, form, steps)
    with pytest.raises(SourceResolutionError) as caught:
        build_model(spec, roots=[root], mode="static")
    assert "cannot resolve base 'Start' of class User" in caught.value.message, (
        f"a chain of {form} steps deeper than 40 must stop with an unresolvable base, "
        f"not be followed: {caught.value.message[:300]}")


@pytest.mark.parametrize(("steps", "found"), [(40, True), (41, False)])
def test_a_class_named_through_a_chain_of_re_exports_is_found_to_the_same_depth(
        root, steps, found):
    _chain(root, "from", steps)
    spec = f"chain_from_{steps}.m0:Deep"  # m0 re-exports from m1 ... m{steps} defines Deep
    if found:
        mro = _mro(root, spec)
        assert mro == [f"chain_from_{steps}.m{steps}:Deep", "builtins.object"], (
            f"{spec} is defined 40 re-exports away: it must be found; the MRO is {mro}")
    else:
        error = _error(root, spec, UnknownTargetError)
        assert error.message == f"no class 'Deep' in module chain_from_{steps}.m0", (
            f"{spec} is 41 re-exports away, one past the documented depth: it must be "
            f"refused as no class; got {error.message}")


CYCLES = {
    "from": ({"cyc_a.py": "from cyc.cyc_b import Loop\n", "cyc_b.py": "from cyc.cyc_a import Loop\n"},
             "from cyc.cyc_a import Loop as Start"),
    "star": ({"cyc_a.py": "from cyc.cyc_b import *\n", "cyc_b.py": "from cyc.cyc_a import *\n"},
             "from cyc.cyc_a import Loop as Start"),
    "alias": ({"cyc_a.py": "A = B\nB = A\n"}, "from cyc.cyc_a import A as Start"),
    "subscript": ({"cyc_a.py": "G1 = G2[int]\nG2 = G1[int]\n"}, "from cyc.cyc_a import G1 as Start"),
    "attribute": ({"cyc_a.py": "X1 = X2.attr\nX2 = X1.attr\n"}, "from cyc.cyc_a import X1 as Start"),
    "module attribute": ({"cyc_a.py": "import cyc.cyc_a as me\nAgain = me.Again\n"},
                         "from cyc.cyc_a import Again as Start"),
}


@pytest.mark.parametrize("form", sorted(CYCLES))
def test_a_cycle_of_re_exports_is_an_unresolvable_base_not_a_crash(root, form):
    files, start = CYCLES[form]
    (root / "cyc").mkdir()
    (root / "cyc" / "__init__.py").write_text("")
    for name, text in files.items():
        (root / "cyc" / name).write_text(text)
    (root / "cyc" / "user.py").write_text(f"{start}\n\n\nclass User(Start):\n    pass\n")
    user = (root / "cyc" / "user.py").resolve()
    try:
        error = _error(root, "cyc.user:User")
    except RecursionError:  # pragma: no cover - the failure this test exists for
        pytest.fail(f"a {form} cycle made the static resolver recurse without end")
    assert (error.location, error.message.split(" (tried")[0]) == (
        f"{user}:4", "cannot resolve base 'Start' of class User"), (
        f"a {form} cycle never reaches a class: it must be an unresolvable base named at "
        f"User's line; got {error.location}: {error.message[:300]}")
