"""Static class resolution from source alone (docs/drift.md, *The production surface*,
``--static``; *Errors*): the forms a class and its bases come through (nested classes,
re-exports, relative imports, namespace packages, builtins, installed and missing external
packages), and the errors for a module, class or base that does not resolve, a class that
inherits from itself and bases no MRO can order. The tree read is tests/static/class_tree.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deskcheck.drift_guard import surface
from deskcheck.errors import UnknownTargetError
from deskcheck.static._static import class_key
from deskcheck.static._surface import build_model
from tests.static.class_tree import error as _error
from tests.static.class_tree import mro as _mro
from tests.static.class_tree import notes as _notes


@pytest.mark.parametrize(("spec", "expected", "how"), [
    ("dcs:Base", ["dcs.base:Base", "builtins.object"],
     "a class named through the package that re-exports it (from dcs.base import Base)"),
    ("dcs.shop:Nested", ["dcs.shop:Nested", "dcs.base:Outer.Inner", "builtins.object"],
     "a base written Outer.Inner (a class nested in an imported class)"),
    ("dcs.shop:BuiltinBase", ["dcs.shop:BuiltinBase", "builtins.Exception"],
     "a builtin base (Exception), a leaf"),
    ("dcs.shop:ExternalAttr", ["dcs.shop:ExternalAttr", "collections.abc.Mapping"],
     "from collections import abc, then abc.Mapping: a stdlib leaf"),
    ("dcs.shop:ExternalModule", ["dcs.shop:ExternalModule", "collections.abc.Sequence"],
     "import collections.abc as cabc, then cabc.Sequence: a stdlib leaf"),
    ("dcs.shop:InstalledModule", ["dcs.shop:InstalledModule", "libcst.CSTNode"],
     "import libcst (installed, not under the roots), then libcst.CSTNode"),
    ("dcs.shop:InstalledName", ["dcs.shop:InstalledName", "libcst.CSTNode"],
     "from libcst import CSTNode (installed, not under the roots)"),
    ("dcs.shop:Namespace", ["dcs.shop:Namespace", "ns.mod:NsBase", "builtins.object"],
     "import ns.mod where ns is a namespace package (a folder without __init__.py)"),
    ("dcs.shop:NestedNamespace", ["dcs.shop:NestedNamespace", "ns.sub.deep:DeepBase",
                                  "builtins.object"],
     "from ns import sub (a namespace package inside a namespace package), then sub.deep"),
    ("dcs.sub.pkg.mod:TwoUp", ["dcs.sub.pkg.mod:TwoUp", "dcs.sub.base_rel:RelBase",
                               "builtins.object"],
     "from ..base_rel import RelBase (two levels up from a module of dcs.sub.pkg)"),
    ("dcs.sub.pkg.mod:ViaDotImport", ["dcs.sub.pkg.mod:ViaDotImport", "dcs.sibling:SibBase",
                                      "builtins.object"],
     "from ... import sibling (a module imported by a bare relative import), then "
     "sibling.SibBase"),
    ("dcs.sub.pkg.mod:FromOwnPackage", ["dcs.sub.pkg.mod:FromOwnPackage", "dcs.base:Base",
                                        "builtins.object"],
     "from . import PkgBase, which the package's __init__ re-exports from ...base"),
])
def test_a_class_and_its_bases_are_found_through_each_form(root, spec, expected, how):
    mro = _mro(root, spec)
    assert mro == expected, f"{spec}: {how}; the MRO must be {expected}, got {mro}"


def counted(fn):
    def wrapper(self, *args):
        self.calls = self.calls + 1
        return fn(self, *args)

    return wrapper


class Holder:
    """A nested class of this module, for static models of class objects."""

    class Inner:
        @counted
        def step(self):
            return self.inner_field  # Holder.Inner's read


def test_a_nested_class_object_is_modelled_statically_by_its_qualname():
    model = build_model(Holder.Inner, mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro == [f"{__name__}:Holder.Inner", "builtins.object"], (
        f"Holder.Inner (a class nested in a class) must be found in this file's source by "
        f"its qualname; the MRO is {mro}")
    found = surface(Holder.Inner, "step", mode="static")
    here = str(Path(__file__).resolve())
    sites = {name: sorted({(s.file, s.line) for s in use.sites})
             for name, use in found.names.items()}
    line = next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if text.endswith("# Holder.Inner's read"))
    wrapper = counted.__code__.co_firstlineno + 2
    assert sites == {"inner_field": [(here, line)], "calls": [(here, wrapper)]}, (
        f"Holder.Inner.step reads self.inner_field (line {line} of this file) and its "
        f"decorator's wrapper reads and writes self.calls (line {wrapper}): both must be "
        f"found in this file through the nested class; got {sites}")
    for qualname in ("Holder.Ghost", "Holder.Ghost.Deeper", "counted.Inner"):
        ghost = type("Ghost", (), {"__module__": __name__, "__qualname__": qualname})
        with pytest.raises(UnknownTargetError) as caught:
            build_model(ghost, mode="static")
        got = (caught.value.message, caught.value.location, caught.value.fix)
        assert got == (f"no class {qualname!r} in module {__name__}",
                       str(Path(__file__).resolve()),
                       "check the class name (MODULE:Class.method)"), (
            f"a class object whose qualname {qualname} names no class in its module's source "
            f"(Holder has no Ghost; counted is a function) must be refused at that file with "
            f"the fix; got {got}")


def test_installed_packages_and_the_stdlib_are_leaves_without_a_note(root):
    for name in ("InstalledModule", "InstalledName", "ExternalAttr", "ExternalModule"):
        notes = _notes(root, f"dcs.shop:{name}")
        assert notes == [], (
            f"dcs.shop:{name} derives from a class of the stdlib or of a package installed "
            f"here (libcst): no 'not installed' note is due, got {notes}")


@pytest.mark.parametrize(("name", "how"), [
    ("MissingByFrom", "from notinstalled_dc import Thing"),
    ("MissingByImport", "import notinstalled_dc as ni, then ni.Thing"),
])
def test_a_base_from_a_package_not_installed_here_is_a_leaf_with_a_note(root, name, how):
    model = build_model(f"dcs.shop:{name}", roots=[root], mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro == [f"dcs.shop:{name}", "notinstalled_dc.Thing"], (
        f"a base from a package that is neither under the roots nor installed ({how}) is "
        f"an external leaf, as docs/drift.md says; the MRO is {mro}")
    assert model.notes == [
        "notinstalled_dc is not under the roots and not installed here: notinstalled_dc.Thing "
        "is treated as an external base, not followed"], (
        f"such a leaf must be reported with a note ({how}); notes: {model.notes}")


def test_the_working_directory_is_never_searched_for_installed_packages(
        root, tmp_path_factory, monkeypatch):
    elsewhere = tmp_path_factory.mktemp("cwd")
    (elsewhere / "notinstalled_dc").mkdir()
    (elsewhere / "notinstalled_dc" / "__init__.py").write_text("class Thing:\n    pass\n")
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    notes = _notes(root, "dcs.shop:MissingByFrom")
    assert len(notes) == 1 and "not installed here" in notes[0], (
        "a static model never reads the working directory (docs/drift.md): with '' on "
        "sys.path and notinstalled_dc in the working directory, the package must still be "
        f"reported as not installed; notes: {notes}")


def test_the_surface_of_a_method_inherited_from_a_nested_base_names_its_file(root):
    found = surface("dcs.shop:Nested", "step", roots=[root], mode="static")
    base = str((root / "dcs" / "base.py").resolve())
    deco = str((root / "dcs" / "deco.py").resolve())
    sites = {name: [(s.file, s.line) for s in use.sites] for name, use in found.names.items()}
    assert sites == {"stage_calls": [(deco, 7)], "touched": [(base, 13)],
                     "inner_field": [(base, 14)]}, (
        "Nested.step is Outer.Inner.step, in dcs/base.py, decorated with @stage imported from "
        "dcs/deco.py: its write of touched (line 13), its read of inner_field (line 14) and "
        f"the wrapper's self.stage_calls += 1 (deco.py:7) must be found; got {sites}")


def test_a_module_not_under_the_roots_is_refused_with_the_fix(root):
    error = _error(root, "dcs.nothere:K", UnknownTargetError)
    got = (error.message, error.location, error.fix)
    assert got == (f"module 'dcs.nothere' not found under the roots {[str(root.resolve())]}",
                   "dcs.nothere",
                   "pass the folder that holds the top-level package with --root"), (
        f"a module missing under the roots must be named with the roots searched and the "
        f"--root fix; got {got}")


@pytest.mark.parametrize(("qualname", "why"), [
    ("Nope", "no such class"), ("helper", "a function, not a class"),
    ("Nope.method", "an unknown class, with a method"),
])
def test_an_unknown_class_is_refused_at_its_module_with_the_fix(root, qualname, why):
    error = _error(root, f"dcs.base:{qualname}", UnknownTargetError)
    got = (error.message, error.location, error.fix)
    klass = qualname.split(".")[0]
    assert got == (f"no class {klass!r} in module dcs.base",
                   str((root / "dcs" / "base.py").resolve()),
                   "check the class name (MODULE:Class.method)"), (
        f"dcs.base:{qualname} ({why}) must be refused at dcs/base.py with the fix; got {got}")


@pytest.mark.parametrize(("name", "line", "base", "tried"), [
    ("Undefined", 59, "NoSuchName", "no binding for 'NoSuchName' in dcs.shop"),
    ("GoneFromNamespace", 55, "Vanished",
     "{shop}:10: from ns.gone import Vanished"),
    ("NoSuchInner", 63, "Outer.Missing", "{shop}:12: from dcs.base import Outer"),
])
def test_a_base_that_does_not_resolve_is_named_with_what_was_tried(root, name, line, base,
                                                                   tried):
    shop = (root / "dcs" / "shop.py").resolve()
    error = _error(root, f"dcs.shop:{name}")
    got = (error.message, error.location, error.fix)
    expected = (f"cannot resolve base {base!r} of class {name} "
                f"(tried: {tried.format(shop=shop)})", f"{shop}:{line}",
                "add the folder holding that module with --root, or use --runtime")
    assert got == expected, (
        f"{name}'s base {base} does not resolve (a name bound nowhere, a module missing from "
        f"a namespace package under the roots, a nested class its owner lacks): the error "
        f"must name it at the class line with what was tried; got {got}")


def test_a_class_that_inherits_from_itself_is_refused(root):
    shop = (root / "dcs" / "shop.py").resolve()
    error = _error(root, "dcs.shop:Loop")
    got = (error.message, error.location, error.fix)
    assert got == ("class Loop inherits from itself", f"{shop}:67",
                   "break the inheritance cycle"), (
        f"Loop(Loop2) and Loop2(Loop) form a cycle: it must be refused at Loop's line with "
        f"the fix; got {got}")


def test_bases_in_an_order_no_mro_can_keep_are_refused(root):
    shop = (root / "dcs" / "shop.py").resolve()
    error = _error(root, "dcs.shop:BadOrder")
    got = (error.message, error.location, error.fix)
    assert got == ("cannot create a consistent MRO for BadOrder", f"{shop}:83",
                   "reorder the base classes"), (
        f"BadOrder(X, Y) with Y(X) has no C3 linearisation (Python refuses it too): it must "
        f"be refused at BadOrder's line with the fix; got {got}")
    assert _mro(root, "dcs.shop:Y") == ["dcs.shop:Y", "dcs.shop:X", "builtins.object"], (
        "Y(X) alone has a plain MRO")
