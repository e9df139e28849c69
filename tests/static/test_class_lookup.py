"""A production class as deskcheck finds it (deskcheck/static/_model.py; docs/drift.md,
*Errors*): a nested class by its qualified name even where an overlay shifted its lines, an
overlay on an installed package, the installed root of a package, and unknown classes or
modules named with a fix."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from deskcheck.errors import DeskcheckError, UnknownTargetError
from deskcheck.static._model import build_runtime, build_static, import_class, installed_root
from deskcheck.static._sources import Sources

NESTED = '''\
class B:
    class Inner:
        def m(self):
            return self.b_only


class A:
    class Inner:
        def m(self):
            return self.a_only


try:
    import json
except ImportError:
    json = None
'''


@pytest.fixture
def nested(tmp_path, monkeypatch):
    (tmp_path / "dc_gap_nested.py").write_text(NESTED, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield importlib.import_module("dc_gap_nested"), tmp_path / "dc_gap_nested.py"
    finally:
        sys.modules.pop("dc_gap_nested", None)


def test_a_nested_class_is_found_by_its_qualified_name_when_lines_have_shifted(nested):
    module, path = nested
    shifted = "# two lines the overlay added\n\n" + NESTED
    model = build_runtime(module.A.Inner, Sources({str(path.resolve()): shifted}))
    head = model.sources[0]
    body = head.node.body[0].body[0].value.attr
    assert (head.qualname, head.node.lineno, body) == ("A.Inner", 10, "a_only"), (
        "A.Inner is found by walking A then Inner in the overlay's text (line 10 there); "
        f"another class named Inner (B.Inner, reading b_only) must not be taken: got "
        f"{head.qualname} at line {head.node.lineno}, reading {body}")


def test_an_overlay_applies_to_an_installed_package_found_outside_the_roots(tmp_path):
    import _pytest.pathlib

    installed = str(Path(_pytest.pathlib.__file__).resolve())
    text = "class DcGapOverlayOnly:\n    def m(self):\n        return self.planted\n"
    model = build_static("_pytest.pathlib", "DcGapOverlayOnly", [tmp_path],
                         Sources({installed: text}))
    assert model.sources[0].node.name == "DcGapOverlayOnly", (
        "a module found installed (added as a root) is read through the same Sources, so its "
        "overlay (the can-fail arm's plant) is seen")
    assert any("found installed" in note for note in model.notes), model.notes


@pytest.mark.parametrize("module, qualname, fix", [
    ("dc_gap_no_such_module", "C", "install the package, or use --static with --root"),
    ("json", "NoSuchClass", "check the class name (MODULE:Class.method)"),
    ("json", "dumps", "name a class (MODULE:Class.method)"),
])
def test_naming_a_class_that_cannot_be_had_says_what_to_do(module, qualname, fix):
    with pytest.raises(UnknownTargetError) as caught:
        import_class(module, qualname)
    assert caught.value.fix == fix, (
        f"{module}:{qualname}: the fix must read {fix!r}; got {caught.value.fix!r}")


def test_an_unknown_class_or_module_is_named_with_a_fix():
    import json

    cases = [("json", "NoSuchClass", "no class 'NoSuchClass' in module json", json.__file__,
              "check the class name"),
             ("json", "JSONDecoder.NoSuch", "no class 'JSONDecoder.NoSuch' in module json",
              json.__file__, "check the class name"),
             ("json", "dumps", "json:dumps is not a class", "json", "name a class"),
             ("no_such_module_dc", "X", "cannot import 'no_such_module_dc'",
              "no_such_module_dc", "install the package")]
    for module, qualname, words, location, fix in cases:
        with pytest.raises(DeskcheckError) as caught:
            import_class(module, qualname)
        error = caught.value
        assert words in str(error) and error.location == location and fix in (error.fix or ""), (
            f"{module}:{qualname} must be refused saying {words!r} at {location} with the fix "
            f"{fix!r}; got {error} at {error.location} (fix {error.fix!r})")
    got = import_class("json.decoder", "JSONDecoder")
    assert got.__name__ == "JSONDecoder", f"json.decoder:JSONDecoder resolved to {got}"


def test_the_installed_root_of_a_package_is_the_folder_holding_it():
    import pytest as installed

    root = installed_root("pytest.something")
    assert root == Path(installed.__file__).resolve().parent.parent, (
        f"the installed root of pytest must be the folder holding the pytest package "
        f"({Path(installed.__file__).resolve().parent.parent}); got {root}")
    assert installed_root("no_such_top_level_dc") is None, (
        "a top-level name no finder knows must have no installed root")
    assert installed_root("sys") is None, (
        "a built-in module has no location, so no installed root")
