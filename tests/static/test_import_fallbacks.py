"""A base bound inside ``try/except ImportError`` (docs/drift.md, *The production surface*,
``--static``): the except branch is taken when an import of the try does not resolve, the
try branch when every import does, with a note naming the branch; a try that catches no
ImportError binds its body without a note; a base bound by a ``def`` (in a fallback or
plainly) is named as a function, with the branch that bound it."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.drift_guard import clear_cache, surface
from deskcheck.errors import SourceResolutionError
from deskcheck.static._static import class_key
from deskcheck.static._surface import build_model

EXCEPT_NOTE = ("{file}:6: try/except ImportError took the except branch "
               "(`from dcs.fast_missing import Base as Chosen` does not resolve)")


@pytest.mark.parametrize(("name", "how"), [
    ("A1", "a with block"), ("A2", "the body of an if"), ("A3", "the else of an if"),
    ("A4", "a try/finally"), ("A5", "an import statement"),
    ("A6", "an alias (of a name bound outside the try)"),
    ("A7", "a class defined there (its own base is bound outside the try)"),
])
def test_a_base_bound_anywhere_in_the_except_branch_carries_its_note(root, name, how):
    file = (root / "dcs" / "fallbacks.py").resolve()
    model = build_model(f"dcs.fallbacks:{name}", roots=[root], mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro[-2:] == ["dcs.base:Base", "builtins.object"], (
        f"{name}'s base is bound in the except branch through {how}: it must resolve to "
        f"dcs.base:Base; the MRO is {mro}")
    assert model.notes == [EXCEPT_NOTE.format(file=file)], (
        f"{name}'s base is bound through {how} inside the except branch of a try/except "
        f"ImportError whose try does not resolve: the branch taken must be noted, once; "
        f"notes: {model.notes}")


@pytest.mark.parametrize(("name", "line", "statement"), [
    ("MissingName", 3, "from dcs.base import NotThere"),
    ("MissingModule", 8, "import dcs.fast_missing as impl"),
    ("TupleHandler", 13, "from dcs.fast_missing import Base as TupleChosen"),
    ("BareHandler", 18, "from dcs.fast_missing import Base as BareChosen"),
])
def test_the_except_branch_is_taken_when_an_import_of_the_try_does_not_resolve(
        root, name, line, statement):
    file = (root / "dcs" / "tries.py").resolve()
    model = build_model(f"dcs.tries:{name}", roots=[root], mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro == [f"dcs.tries:{name}", "dcs.base:Base", "builtins.object"], (
        f"`{statement}` cannot be imported, so Python runs the except branch, which binds "
        f"dcs.base.Base; the MRO is {mro}")
    expected = (f"{file}:{line}: try/except ImportError took the except branch "
                f"(`{statement}` does not resolve)")
    assert model.notes == [expected], (
        f"the note must name the try's line and the import that does not resolve; "
        f"notes: {model.notes}")


def test_the_try_branch_is_taken_when_every_import_resolves(root):
    file = (root / "dcs" / "tries.py").resolve()
    model = build_model("dcs.tries:AllResolve", roots=[root], mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro == ["dcs.tries:AllResolve", "dcs.base:Base", "builtins.object"], (
        f"every import of the try resolves (a star import, a name a star re-exports from its "
        f"own import, a "
        f"submodule, os.path, a relative import): the try binds ViaStar; the MRO is {mro}")
    assert model.notes == [f"{file}:30: try/except ImportError took the try branch"], (
        f"the try branch must be noted as taken; notes: {model.notes}")


@pytest.mark.parametrize(("name", "how"), [
    ("NotAnImportGuard", "the body of a try whose handler catches json.JSONDecodeError"),
    ("ElseOfAGuard", "the else of that try"),
])
def test_a_try_that_catches_no_import_error_binds_its_body_and_else_without_a_note(
        root, name, how):
    model = build_model(f"dcs.tries:{name}", roots=[root], mode="static")
    mro = [class_key(k) for k in model.mro]
    assert mro == [f"dcs.tries:{name}", "dcs.base:Base", "builtins.object"], (
        f"{name}'s base is bound in {how}: Python binds it, so it must resolve to "
        f"dcs.base:Base; the MRO is {mro}")
    assert model.notes == [], (
        f"a try that catches no ImportError is no import guard: no branch note is due; "
        f"notes: {model.notes}")


def test_a_package_that_imports_its_own_submodule_in_a_try_is_read_once(root):
    model = build_model("dcs:Base", roots=[root], mode="static")
    assert [class_key(k) for k in model.mro] == ["dcs.base:Base", "builtins.object"], (
        f"dcs/__init__.py re-exports Base and imports its own submodule in a try "
        f"(`from . import accel`): dcs:Base must resolve; got {model.mro}")
    assert model.notes == [], (
        f"Base is bound outside that try: no branch note is due; notes: {model.notes}")


def _package(tmp_path, name: str, source: str):
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shop.py").write_text(textwrap.dedent(source))
    return tmp_path


def test_a_base_bound_by_a_def_in_an_import_fallback_is_named_as_a_function(tmp_path):
    root = _package(tmp_path, "dc_def_base", '''
        try:
            from not_installed_fastpath import Base
        except ImportError:
            def Base():
                return object


        class Shop(Base):
            def run(self):
                return self.size
    ''')
    clear_cache()
    try:
        with pytest.raises(SourceResolutionError) as info:
            surface("dc_def_base.shop:Shop.run", roots=[root])
    finally:
        clear_cache()
    message = str(info.value)
    assert "shop.py:5: 'Base' is a function, not a class" in message, (
        "the base Shop names is bound by `def Base()` at shop.py:5; the error must say so "
        f"instead of claiming no binding:\n{message}")
    assert "try/except ImportError took the except branch" in message, (
        "the def was bound by the except branch of a try/except ImportError; the error must "
        f"say which branch bound it:\n{message}")


def test_a_base_bound_by_a_plain_def_is_named_as_a_function_with_nothing_added(tmp_path):
    root = _package(tmp_path, "dc_plain_def_base", '''
        def Base():
            return object


        class Shop(Base):
            def run(self):
                return self.size
    ''')
    clear_cache()
    try:
        with pytest.raises(SourceResolutionError) as info:
            surface("dc_plain_def_base.shop:Shop.run", roots=[root])
    finally:
        clear_cache()
    message = str(info.value)
    assert "shop.py:2: 'Base' is a function, not a class)" in message, (
        "a def bound outside any try/except ImportError is named as a function with no branch "
        f"note after it:\n{message}")
