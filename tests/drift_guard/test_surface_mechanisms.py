"""Sharp arms for the drift guard's production surface: each test names the rule it guards.

A small production package is written to a temporary folder and read from source (static
mode, nothing imported) and, for the runtime arm, imported: ``Sched`` reaches every field
through exactly one mechanism, so a guard that drops a mechanism loses exactly that field.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from deskcheck.drift_guard import surface

PACKAGE = "sp_shop"
BASES = '''
class Root:
    def helper(self):
        return self.root_field


class Left(Root):
    def left_only(self):
        return self.left_field


class Right:
    def right_only(self):
        return self.right_field
'''
SCHED = '''
from .bases import Left, Right


class Sched(Left, Right):
    @property
    def budget(self):
        return self.prop_field

    def step(self):
        return self.deep_field

    def run(self):
        self.step()
        total = self.budget
        maybe = getattr(self, "maybe_field", None)
        self.left_only()
        self.right_only()
        return super().helper(), total, maybe
'''
# field -> the one mechanism through which run() reaches it
REACHED_THROUGH = {
    "deep_field": "a self.step() call",
    "prop_field": "the budget property",
    "maybe_field": 'getattr(self, "maybe_field", None)',
    "left_field": "the first base (Left) of the MRO",
    "right_field": "the second base (Right) of the MRO",
    "root_field": "super().helper() on Root",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sp_src")
    package = root / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bases.py").write_text(textwrap.dedent(BASES))
    (package / "sched.py").write_text(textwrap.dedent(SCHED))
    return root


def _surface(shop: Path, mode: str):
    if mode == "static":
        return surface(f"{PACKAGE}.sched:Sched.run", roots=[shop])
    sys.path.insert(0, str(shop))
    try:
        module = importlib.import_module(f"{PACKAGE}.sched")
        return surface(module.Sched, "run")
    finally:
        sys.path.remove(str(shop))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.mark.parametrize("mode", ["static", "runtime"])
@pytest.mark.parametrize("field", sorted(REACHED_THROUGH))
def test_every_mechanism_reaches_its_field(shop, mode, field):
    names = _surface(shop, mode).names
    assert field in names, (
        f"drift guard ({mode}) lost self.{field}, reached only through "
        f"{REACHED_THROUGH[field]}; the surface has {sorted(names)}")


def test_a_getattr_default_read_is_recorded_as_guarded(shop):
    use = _surface(shop, "static").names.get("maybe_field")
    kinds = use.kinds if use is not None else []
    assert kinds == ["guarded"], (
        f'drift guard ignores getattr(self, "maybe_field", None): kinds {kinds}, '
        "expected ['guarded']")


def test_the_static_mro_holds_every_base(shop):
    mro = [k.rsplit(":", 1)[-1] for k in _surface(shop, "static").to_json()["mro"]]
    assert mro == ["Sched", "Left", "Root", "Right", "builtins.object"], (
        f"drift guard's static MRO dropped a base: {mro}")
