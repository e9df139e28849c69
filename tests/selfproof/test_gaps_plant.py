"""The can-fail arm's plant (deskcheck/drift_guard/_plant.py): ``self.<canary>`` goes in as the
first statement of the root's body (after a docstring only), read through the method's first
parameter (``self`` when it has none), into a property's setter when it has no getter, and a
one-line body is refused with the class and method named."""

from __future__ import annotations

import locale
from pathlib import Path

import pytest

from deskcheck.drift_guard._plant import plant_read
from deskcheck.static._surface import build_model

SOURCE = '''\
class Shop:
    def labelled(self):
        label = "fast"
        return label

    def only_doc(self):
        """Nothing but a docstring."""

    @staticmethod
    def no_params():
        value = 1
        return value

    def _set_level(self, value):
        self._level = value

    level = property(fset=_set_level)

    def one_line(self): return 1

    def café(self):
        x = 1
        return x
'''


@pytest.fixture
def model(tmp_path: Path):
    (tmp_path / "dc_gap_plant").mkdir()
    (tmp_path / "dc_gap_plant" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "dc_gap_plant" / "shop.py").write_text(SOURCE, encoding="utf-8")
    return build_model("dc_gap_plant.shop:Shop", roots=[tmp_path], mode="static")


def _planted(model, root: str) -> tuple[str, list[str]]:
    canary, overlay = plant_read(model, root)
    (text,) = overlay.values()
    return canary, text.splitlines()


@pytest.mark.parametrize("root, after, reader", [
    ("labelled", "    def labelled(self):", "self"),   # a string assignment is no docstring
    ("only_doc", "    def only_doc(self):", "self"),   # a body that is only a docstring
    ("no_params", "    def no_params():", "self"),       # no parameter: `self`
    ("level", "    def _set_level(self, value):", "self"),  # property(fset=...): its setter
])
def test_the_canary_is_the_first_statement_of_the_roots_body(model, root, after, reader):
    canary, lines = _planted(model, root)
    index = lines.index(after)
    assert lines[index + 1] == f"        {reader}.{canary}", (
        f"planting into {root}: the line after {after.strip()!r} must read "
        f"{reader}.{canary}; got {lines[index + 1]!r}")


def test_a_one_line_body_is_refused_with_the_method_named(model):
    with pytest.raises(ValueError) as caught:
        plant_read(model, "one_line")
    assert str(caught.value) == "cannot plant into the one-line body of Shop.one_line", (
        f"the refusal must name the class and method; got {caught.value}")


def test_the_source_is_read_as_utf8_whatever_the_locale(model):
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")  # an ASCII locale
    try:
        canary, lines = _planted(model, "labelled")
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert "    def café(self):" in lines, (
        "the production file is UTF-8 whatever the locale: its text must come back unchanged "
        "around the plant")
