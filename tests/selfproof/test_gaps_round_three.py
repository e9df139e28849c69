"""The last test gaps mutmut found in the drift guard (issue 17), each from docs/drift.md:

- a property is followed into its getter whatever decorator form makes it one, a decorator
  called with arguments (``@cached_property(ttl=60)``) included (*The surface*);
- a base class the static index cannot resolve names what it found instead: a name bound by a
  ``def`` is a function, not a class, and which branch of a ``try/except ImportError`` bound it;
- a bare ``:LINE`` reuses the last cited file only after a space, ``(``, a backtick, ``[`` or
  ``,``, or at the start of a line (*Citations*)."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.drift_guard import clear_cache, surface
from deskcheck.drift_guard.pointers import find_citations
from deskcheck.errors import SourceResolutionError


def _package(tmp_path, name: str, source: str):
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shop.py").write_text(textwrap.dedent(source))
    return tmp_path


def test_a_property_made_by_a_called_decorator_is_followed_into_its_getter(tmp_path):
    root = _package(tmp_path, "dc_called_prop", '''
        from cachetools_like import cached_property

        class Shop:
            @cached_property(ttl=60)
            def total(self):
                return self.items_size

            def run(self):
                return self.total
    ''')
    clear_cache()
    try:
        found = surface("dc_called_prop.shop:Shop.run", roots=[root]).to_json()
    finally:
        clear_cache()
    roles = {m["name"]: m["role"] for m in found["methods"]}
    assert roles.get("Shop.total") == "get", (
        "self.total is a property made by @cached_property(ttl=60): reading it runs its getter "
        f"(role 'get'), yet the methods followed are {roles}")
    assert "items_size" in found["reads"], (
        "the getter of self.total reads self.items_size, yet the surface reads only "
        f"{sorted(found['reads'])}")


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


@pytest.mark.parametrize("second_line", ["=:9", "-:9", '":9'])
def test_a_bare_line_after_another_character_at_the_start_is_not_a_citation(tmp_path,
                                                                             second_line):
    doc = tmp_path / "notes.md"
    doc.write_text(f"see fallbacks.py:5\n{second_line}\n")
    cited = [c.target for c in find_citations(doc)]
    assert cited == ["fallbacks.py:5"], (
        f"{second_line!r}: a bare :LINE right after {second_line[0]!r} is not a citation (only a "
        f"space, '(', a backtick, '[' or ',' before it, or the line's start, reuse the last "
        f"file), yet the citations found were {cited}")


def test_a_bare_line_at_the_start_of_a_line_reuses_the_last_file(tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("see fallbacks.py:5\n:9 and (:12)\n")
    cited = [c.target for c in find_citations(doc)]
    assert cited == ["fallbacks.py:5", "fallbacks.py:9", "fallbacks.py:12"], (
        f"a bare :LINE at a line's start or after '(' cites the last file; found {cited}")


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
