"""A production class as deskcheck sees it (deskcheck/static/_model.py): a nested class is
found by its qualified name even where an overlay has shifted its lines, an overlay applies to
an installed package too, and the errors of naming a class say what to do."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from deskcheck.errors import UnknownTargetError
from deskcheck.static._model import build_runtime, build_static, import_class
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
