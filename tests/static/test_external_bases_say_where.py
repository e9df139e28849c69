"""A base outside the roots is a leaf of the static model that names its module
(docs/drift.md, *The static layer*: stdlib, third-party and builtin bases are terminal,
named by module and qualname): a builtin base and the implicit ``object`` are of module
``builtins``, an imported class of the module it was imported from, a class reached through
an imported module's attribute of the module its name was bound to (``import
collections.abc`` binds ``collections``); the model does not follow an external base further
(its own bases are not listed). Gaps mutmut found in static/_static.py
(``resolve_expr``, ``_outside``, ``_bases``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.static import External
from deskcheck.static._surface import build_model

SHOP = '''
import collections
import collections.abc
from json import JSONDecoder


class Plain:
    pass


class Counted(dict):
    pass


class Decoded(JSONDecoder):
    pass


class Mapped(collections.abc.Mapping):
    pass
'''


def _externals(root: Path, name: str) -> list[tuple[str, str]]:
    model = build_model(f"dc_ext_shop:{name}", roots=[root], mode="static")
    return [(k.qualname, k.where) for k in model.mro if isinstance(k, External)]


def test_each_external_base_names_its_module(tmp_path):
    (tmp_path / "dc_ext_shop.py").write_text(textwrap.dedent(SHOP), encoding="utf-8")
    cases = {
        "Plain": [("builtins.object", "builtins")],
        "Counted": [("builtins.dict", "builtins")],
        "Decoded": [("json.JSONDecoder", "json")],
        "Mapped": [("collections.abc.Mapping", "collections")],
    }
    got = {name: _externals(tmp_path, name) for name in cases}
    assert got == cases, (
        "every base outside the roots must be a leaf (not followed further) named by qualname "
        "and the module it comes from (the implicit object and builtins: 'builtins'); expected {cases}, got {got}")
