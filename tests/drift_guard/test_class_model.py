"""How a production class becomes deskcheck's model (docs/drift.md, *The production surface*):
``--static`` resolves it from source under the roots (an installed top-level package is added
as a root, with a note), ``--runtime`` walks the imported class's real ``__mro__`` (bases with
no source are leaves, noted unless builtins). Targets are ``MODULE:Class[.method]``; a bad one,
a missing class or a root that is not a method or property is an error naming where and the
fix (*Errors*). Gaps mutmut found in static/_model.py."""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

from deskcheck.drift_guard import clear_cache
from deskcheck.errors import SourceResolutionError, UnknownTargetError
from deskcheck.static._model import default_roots, import_class, split_spec
from deskcheck.static._static import External
from deskcheck.static._surface import build_model

SHOP = '''\
import functools
import sys


class Outer:
    class Inner(dict):
        def m(self):
            return self.inner_field


def make():
    class Local:
        def m(self):
            return self.local_field
    return Local


def make_renamed():
    class Hidden:
        def m(self):
            return self.hidden_field
    Hidden.__qualname__ = "Hidden"  # as some frameworks do: no <locals> left in it
    return Hidden


def first():
    @functools.total_ordering
    class Twin:
        def __lt__(self, other):
            return self.first_twin
    return Twin


@functools.total_ordering
class Twin:
    def __lt__(self, other):
        return self.second_twin


if sys.version_info >= (3,):
    class Guarded:
        def m(self):
            return self.guarded_field
else:
    class Guarded:
        def m(self):
            return self.old_field


class Shop:
    DEFAULT = 1
    limit: int

    def run(self):
        return self.run_field + self.shared.part

    def rung(self):
        return 0

    def runs(self):
        return 0

    def runner(self):
        return 0

    @property
    def running(self):
        return self.prop_field

    @staticmethod
    def helper(shop):
        return shop.not_self
'''


@pytest.fixture
def shop_module(tmp_path: Path):
    """dc_model.shop, importable (runtime mode) and readable as source (static mode)."""
    clear_cache()
    package = tmp_path / "dc_model"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shop.py").write_text(SHOP)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("dc_model.shop"), tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "dc_model" or n.startswith("dc_model.")]:
            del sys.modules[name]
        clear_cache()


def _reads(model) -> dict[str, str]:
    return {name: Path(where).name for name, where in model.instance_attributes().items()}


def test_runtime_mode_finds_a_nested_class_by_its_qualified_name(shop_module):
    shop, _ = shop_module
    model = build_model(shop.Outer.Inner, mode="runtime")
    head = model.mro[0]
    assert (head.module, head.qualname, head.node.name, Path(head.file).name) == (
        "dc_model.shop", "Outer.Inner", "Inner", "shop.py"), (
        f"Outer.Inner was read from the wrong place: {head.qualname} in {head.file}")
    assert model.qualname == "dc_model.shop:Outer.Inner" and model.name == "Inner", (
        f"the model is named wrongly: {model.qualname}, {model.name}")
    assert "inner_field" in _reads(model), f"Inner's body was not read: {_reads(model)}"
    assert [k.qualname for k in model.mro[1:]] == ["builtins.dict", "builtins.object"], (
        f"builtin bases must be leaves named by module and qualname: {model.mro[1:]}")
    assert all(isinstance(k, External) and k.where == "builtins" for k in model.mro[1:]), (
        f"a builtin base is not an external leaf of module 'builtins': {model.mro[1:]}")
    assert model.notes == [], (
        f"builtins (dict, object) have no source by nature: no note is due, got {model.notes}")


def test_runtime_mode_finds_a_class_defined_under_a_module_level_if(shop_module):
    shop, _ = shop_module
    reads = _reads(build_model(shop.Guarded, mode="runtime"))
    assert "guarded_field" in reads and "old_field" not in reads, (
        f"Guarded is the class of the branch taken (the first, by line): {reads}")


def test_runtime_mode_finds_a_class_defined_inside_a_function(shop_module):
    shop, _ = shop_module
    model = build_model(shop.make(), mode="runtime")
    assert model.mro[0].node.name == "Local" and "local_field" in _reads(model), (
        f"a class defined in a function body was not found in source: {model.mro[0]}")


def test_runtime_mode_finds_a_local_class_whose_qualified_name_was_rewritten(shop_module):
    shop, _ = shop_module
    model = build_model(shop.make_renamed(), mode="runtime")
    assert model.notes == [] and "hidden_field" in _reads(model), (
        "a class defined in a function whose __qualname__ no longer says <locals> must still "
        f"be found in its source (by name, in the full parse): notes {model.notes}, "
        f"reads {_reads(model)}")


def test_runtime_mode_notes_a_class_whose_source_file_is_gone(shop_module):
    module = types.ModuleType("dc_model_gone")
    module.__file__ = "/nonexistent/dc_model_gone.py"
    sys.modules["dc_model_gone"] = module
    try:
        exec("class Gone:\n    pass\n", module.__dict__)
        model = build_model(module.Gone, mode="runtime")
    finally:
        del sys.modules["dc_model_gone"]
    assert model.notes == ["dc_model_gone.Gone: no source, not followed"], (
        f"a class whose module file no longer exists has no source to read: {model.notes}")


def test_runtime_mode_tells_two_classes_of_one_name_apart_by_their_line(shop_module):
    shop, _ = shop_module
    decorated = build_model(shop.Twin, mode="runtime")
    assert "second_twin" in _reads(decorated) and "first_twin" not in _reads(decorated), (
        "the module-level (decorated) Twin was read from the other class named Twin: "
        f"{_reads(decorated)}")
    local = build_model(shop.first(), mode="runtime")
    assert "first_twin" in _reads(local) and "second_twin" not in _reads(local), (
        f"the Twin inside first() was read from the other class named Twin: {_reads(local)}")


def test_runtime_mode_notes_a_base_without_source(shop_module):
    module = types.ModuleType("dc_model_nosrc")
    exec("class Base:\n    pass\n", module.__dict__)  # a module without a file
    shop, _ = shop_module
    derived = type("Derived", (module.Base, shop.Shop), {"__module__": "dc_model.shop"})
    model = build_model(derived, mode="runtime")
    assert model.notes == ["dc_model.shop.Derived: no source, not followed",
                           "dc_model_nosrc.Base: no source, not followed"], (
        "a class made by type() has no class statement and Base's module has no file: both "
        f"must be noted as not followed, in MRO order: {model.notes}")
    assert [type(k).__name__ for k in model.mro] == [
        "External", "External", "ClassSource", "External"], (
        f"Derived (made by type()) and Base have no source; Shop has: {model.mro}")


def test_static_mode_adds_an_installed_package_as_a_root_with_a_note(tmp_path):
    clear_cache()
    model = build_model("json.decoder:JSONDecoder", roots=[tmp_path], mode="static")
    stdlib = Path(importlib.import_module("json").__file__).resolve().parent.parent
    assert model.notes[:1] == [f"json found installed at {stdlib} (added as a root)"], (
        f"json is not under the roots: it must be found installed and noted so: {model.notes}")
    assert (model.qualname, model.name, model.mode) == (
        "json.decoder:JSONDecoder", "JSONDecoder", "static"), (
        f"the model is named wrongly: {model.qualname}, {model.name}, {model.mode}")
    assert "parse_object" in _reads(model), f"JSONDecoder was not read: {_reads(model)}"


def test_static_mode_adds_an_installed_single_file_module_as_a_root(tmp_path):
    clear_cache()
    model = build_model("difflib:SequenceMatcher", roots=[tmp_path], mode="static")
    folder = Path(importlib.import_module("difflib").__file__).resolve().parent
    assert model.notes[:1] == [f"difflib found installed at {folder} (added as a root)"], (
        f"an installed top-level module (one file) is found in its folder: {model.notes}")


def test_the_self_names_a_class_touches_are_found_in_every_method(shop_module):
    shop, _ = shop_module
    model = build_model(shop.Shop, mode="runtime")
    found = model.instance_attributes()
    assert found["run_field"] == f"{model.mro[0].file}:55", (
        f"a self.X read is located by file:line: {found.get('run_field')}")
    assert {"run_field", "shared", "prop_field"} <= set(found), (
        f"a method's or a property's self reads are missing: {sorted(found)}")
    assert "shared.part" not in found and "not_self" not in found, (
        "only top-level self names count (no chains), and a staticmethod's first argument is "
        f"not self: {sorted(found)}")
    assert model.has_name("DEFAULT") and model.has_name("run_field"), (
        "a class-level default and a name a method sets on self both exist in production")
    assert not model.has_name("missing_field"), "a name nobody defines is not in production"


def test_a_root_that_is_not_a_method_or_property_is_named_with_close_matches(shop_module):
    shop, _ = shop_module
    model = build_model(shop.Shop, mode="runtime")
    for name in ("DEFAULT", "limit"):
        with pytest.raises(UnknownTargetError) as info:
            model.require_root(name)
        assert info.value.message == f"Shop has no method or property {name!r}", (
            f"a class-level {name} is not a method or property: {info.value.message}")
        assert info.value.location == f"{model.mro[0].file}:50", (
            f"the error must point at the class: {info.value.location}")
    with pytest.raises(UnknownTargetError) as info:
        model.require_root("runn")
    assert info.value.fix == "did you mean run, runner, runs?", (
        "at most three close matches, methods and properties, best first, joined by commas: "
        f"{info.value.fix}")
    with pytest.raises(UnknownTargetError) as info:
        model.require_root("runnin")
    assert info.value.fix == "did you mean running, runner, run?", (
        f"a property is a root, so it is a close match too: {info.value.fix}")
    with pytest.raises(UnknownTargetError) as info:
        model.require_root("DEFAULTS")
    assert info.value.fix == "check the method name", (
        f"a class-level default is no root: it must not be offered: {info.value.fix}")
    with pytest.raises(UnknownTargetError) as info:
        model.require_root("zzz")
    assert info.value.fix == "check the method name", f"no close match: {info.value.fix}"
    assert model.require_root("running")[1].kind == "property", "a property is a root"


def test_a_target_is_split_at_the_colon_and_its_last_dot():
    assert split_spec("pkg.mod:Outer.Inner.run") == ("pkg.mod", "Outer.Inner", "run"), (
        "MODULE:Class.method splits at the colon, the method after the last dot")
    assert split_spec("pkg.mod:Shop") == ("pkg.mod", "Shop", None), "a class alone"
    for bad in ("pkg.mod", ":Shop", "pkg.mod:", "pkg:mod:Shop"):
        with pytest.raises(UnknownTargetError) as info:
            split_spec(bad)
        assert (info.value.message, info.value.location, info.value.fix) == (
            f"bad target {bad!r}", bad, "write it as MODULE:Class or MODULE:Class.method"), (
            f"{bad!r} lacks a module or a class, or has two colons: it must be refused "
            "with the fix: "
            f"{info.value.render()}")


def test_importing_a_missing_target_names_it_with_the_fix(shop_module):
    shop, _ = shop_module
    with pytest.raises(UnknownTargetError) as info:
        import_class("dc_model.nowhere", "Shop")
    assert info.value.location == "dc_model.nowhere" and "cannot import" in info.value.message, (
        f"an unimportable module is named: {info.value.render()}")
    with pytest.raises(UnknownTargetError) as info:
        import_class("dc_model.shop", "Outer.Missing")
    assert info.value.location == shop.__file__, (
        f"a missing class is located at its module's file: {info.value.location}")
    with pytest.raises(UnknownTargetError) as info:
        import_class("dc_model.shop", "make")
    assert (info.value.message, info.value.location) == (
        "dc_model.shop:make is not a class", "dc_model.shop"), info.value.render()
    with pytest.raises(UnknownTargetError) as info:
        import_class("sys", "Missing")
    assert info.value.location == "sys", (
        f"a module without a file (built in) is named by its name: {info.value.location}")
    assert import_class("dc_model.shop", "Outer.Inner") is shop.Outer.Inner, (
        "a nested class is imported by its dotted qualified name")


def test_the_default_root_is_the_folder_above_the_top_level_package(shop_module):
    shop, root = shop_module
    assert default_roots(shop.Shop) == [root.resolve()], (
        f"dc_model is a package: its parent folder is the root: {default_roots(shop.Shop)}")
    module = types.ModuleType("dc_model_single")
    module.__file__ = str(root / "dc_model_single.py")
    sys.modules["dc_model_single"] = module
    try:
        single = type("Single", (), {"__module__": "dc_model_single"})
        assert default_roots(single) == [root.resolve()], (
            f"a top-level module's own folder is the root: {default_roots(single)}")
        del module.__file__
        with pytest.raises(SourceResolutionError) as info:
            default_roots(single)
        assert (info.value.message, info.value.location, info.value.fix) == (
            "cannot locate the source of dc_model_single", "dc_model_single",
            "pass roots explicitly"), info.value.render()
    finally:
        del sys.modules["dc_model_single"]
