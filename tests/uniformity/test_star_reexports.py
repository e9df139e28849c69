"""A function re-exported by a star import is entered (docs/uniformity.md "Collective
sites"): ``from pkg.serialize import save`` where ``pkg/serialize/__init__.py`` holds only
``from pkg.serialize.main import *``. Found on nanotron (``serialize/__init__.py``): its
``save()`` was never entered, so the world barrier and the tied optimizer-state broadcasts in
it were no sites and the checkpoint decision gating them was missing. Twins: a star import
of a module that defines no such function, and a name the star module keeps private
(``__all__``), resolve to nothing."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

TRAINER = """
    from pkg.serialize import save


    class S:
        def __init__(self):
            self.last = 0.0

        def step(self):
            if time.monotonic() - self.last > 600:
                save(self.world_group)
"""

@pytest.mark.parametrize("init", [
    "from pkg.serialize.main import *",
    "from .main import *",
    "from pkg.serialize.main import *\nfrom pkg.serialize.other import *"],
    ids=["absolute", "relative", "two_stars"])
def test_a_function_re_exported_by_a_star_import_is_entered(make_pkg, init):
    root = make_pkg({"s.py": TRAINER}, ROOTS)
    (root / "pkg" / "serialize").mkdir()
    (root / "pkg" / "serialize" / "__init__.py").write_text(init + "\n")
    (root / "pkg" / "serialize" / "main.py").write_text(
        "import torch.distributed as dist\n\n\ndef save(group):\n"
        "    dist.barrier(group=group)\n")
    (root / "pkg" / "serialize" / "other.py").write_text("X = 1\n")
    report = audit("pkg.s:S", root=root)
    assert any(s.call == "dist.barrier" for s in report.sites), (
        f"`save` re-exported by `{init}` holds a barrier: it must be a collective site; "
        f"sites: {[s.call for s in report.sites]}")
    d = [d for d in report.decisions if "monotonic" in d.condition]
    assert d and d[0].verdict is Verdict.RANK_LOCAL, (
        f"a clock deciding whether the re-exported save() (a barrier) runs must be "
        f"RANK-LOCAL; got {[(x.condition, x.verdict.value) for x in report.decisions]}")


@pytest.mark.parametrize("main", [
    "import torch.distributed as dist\n\n\ndef other(group):\n    dist.barrier(group=group)\n",
    "import torch.distributed as dist\n__all__ = ['other']\n\n\ndef save(group):\n"
    "    dist.barrier(group=group)\n\n\ndef other():\n    pass\n"],
    ids=["no_such_function", "private_by_all"])
def test_a_star_import_without_the_name_resolves_nothing(make_pkg, main):
    root = make_pkg({"s.py": TRAINER}, ROOTS)
    (root / "pkg" / "serialize").mkdir()
    (root / "pkg" / "serialize" / "__init__.py").write_text("from pkg.serialize.main import *\n")
    (root / "pkg" / "serialize" / "main.py").write_text(main)
    report = audit("pkg.s:S", root=root)
    assert not any(s.call == "dist.barrier" for s in report.sites), (
        f"a star import that does not export `save` must not resolve it: sites "
        f"{[s.call for s in report.sites]}")
