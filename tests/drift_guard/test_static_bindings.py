"""How static mode binds the names a module defines (docs/drift.md, *The production surface*,
``--static``: ``from a.b import X``, module aliases, ``try/except ImportError`` with the branch
taken noted; a module missing inside a package under the roots is an unresolvable base, an
error naming the import statements tried). Every binding form a base can come through is
pinned: ``import a.b``, ``import a.b as c``, a ``with`` block, an annotated alias, a ``try``
inside an ``if``; and the error's trail of statements with their lines. Gaps mutmut found in
static/_static.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.drift_guard import clear_cache
from deskcheck.errors import SourceResolutionError
from deskcheck.static._static import class_key
from deskcheck.static._surface import build_model

BASE = """\
class Base:
    def run(self):
        return self.base_field
"""

SHOP = '''\
import contextlib
import dcs.base
import dcs.base as pb

with contextlib.suppress(Exception):
    from dcs.base import Base as WithBase
Alias: type = pb.Base
if True:
    try:
        from dcs.base import Base as TryBase
    except ImportError:
        TryBase = None


class A(dcs.base.Base):
    pass


class B(pb.Base):
    pass


class C(WithBase):
    pass


class D(Alias):
    pass


class E(TryBase):
    pass


from dcs.gone import Missing  # noqa: E402
Again = Missing


class F(Again):
    pass


import dcs.nowhere as nw  # noqa: E402


class G(nw.Thing):
    pass
'''


@pytest.fixture
def root(tmp_path: Path):
    clear_cache()
    (tmp_path / "dcs").mkdir()
    (tmp_path / "dcs" / "__init__.py").write_text("")
    (tmp_path / "dcs" / "base.py").write_text(BASE)
    (tmp_path / "dcs" / "shop.py").write_text(SHOP)
    yield tmp_path
    clear_cache()


@pytest.mark.parametrize(("name", "how"), [
    ("A", "import dcs.base, then dcs.base.Base"),
    ("B", "import dcs.base as pb, then pb.Base"),
    ("C", "from dcs.base import Base as WithBase inside a with block"),
    ("D", "Alias: type = pb.Base (an annotated alias)"),
    ("E", "from dcs.base import Base as TryBase in a try inside an if"),
])
def test_a_base_is_resolved_through_every_binding_form(root, name, how):
    model = build_model(f"dcs.shop:{name}", roots=[root], mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro == [f"dcs.shop:{name}", "dcs.base:Base", "builtins.object"], (
        f"class {name} derives from dcs.base.Base through {how}; its MRO is {mro}")


def test_the_branch_a_try_inside_an_if_took_is_noted(root):
    model = build_model("dcs.shop:E", roots=[root], mode="static")
    shop = root.resolve() / "dcs" / "shop.py"
    assert model.notes == [f"{shop}:9: try/except ImportError took the try branch"], (
        f"a base bound in try/except ImportError (here inside an if) must note the branch "
        f"taken at the try's line: {model.notes}")
    for name in ("A", "B", "C", "D"):
        notes = build_model(f"dcs.shop:{name}", roots=[root], mode="static").notes
        assert notes == [], f"{name} is bound outside any try: no note is due, got {notes}"


@pytest.mark.parametrize(("name", "line", "base", "trail"), [
    ("F", 39, "Again", "{shop}:36: Again = Missing; {shop}:35: from dcs.gone import Missing"),
    ("G", 46, "nw.Thing", "{shop}:43: import dcs.nowhere as nw"),
])
def test_an_unresolvable_base_names_every_statement_tried(root, name, line, base, trail):
    shop = root.resolve() / "dcs" / "shop.py"
    with pytest.raises(SourceResolutionError) as info:
        build_model(f"dcs.shop:{name}", roots=[root], mode="static")
    expected = (f"{shop}:{line}",
                f"cannot resolve base {base!r} of class {name} (tried: {trail.format(shop=shop)})",
                "add the folder holding that module with --root, or use --runtime")
    got = (info.value.location, info.value.message, info.value.fix)
    assert got == expected, (
        "a base whose module is missing inside a package under the roots must be named at "
        f"the class line with each statement tried, at its own line: {got}")
