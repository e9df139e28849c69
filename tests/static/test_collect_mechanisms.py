"""More mechanisms of the surface collector (docs/drift.md, *The surface*): ``setattr`` is a
write, ``delattr`` a delete, ``hasattr`` a guarded read; the name argument of ``getattr`` is an
expression that reads too; ``del self.x`` is a delete; a nested function whose parameters
(``*args``/``**kwargs`` included) rebind ``self`` reads nothing of the instance. Gaps mutmut
found in static/_collect.py."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.drift_guard import clear_cache, surface

SOURCE = '''
class Shop:
    def run(self):
        setattr(self, "set_field", 1)
        delattr(self, "del_field")
        probe = hasattr(self, "has_field")
        value = getattr(self, self.key_field)
        del self.gone_field

        def positional(self, *rest):
            return self.shadow_positional

        def star(*self):
            return self.shadow_star

        def keywords(**self):
            return self.shadow_keywords

        return probe, value, positional, star, keywords
'''


@pytest.fixture
def kinds(tmp_path):
    """Computed per test (not module-scoped): mutmut credits a fixture's calls to the first
    test that used it only."""
    root = tmp_path
    (root / "dc_collect").mkdir()
    (root / "dc_collect" / "__init__.py").write_text("")
    (root / "dc_collect" / "shop.py").write_text(textwrap.dedent(SOURCE))
    clear_cache()
    try:
        result = surface("dc_collect.shop:Shop.run", roots=[root])
    finally:
        clear_cache()
    return {name: [s.kind for s in use.sites] for name, use in result.names.items()}


@pytest.mark.parametrize(("name", "expected", "why"), [
    ("set_field", ["write"], "setattr(self, 'x', v) writes x"),
    ("del_field", ["delete"], "delattr(self, 'x') deletes x"),
    ("has_field", ["guarded"], "hasattr(self, 'x') is a guarded read of x"),
    ("key_field", ["read"], "getattr(self, self.key) reads self.key to compute the name"),
    ("gone_field", ["delete"], "del self.x deletes x"),
])
def test_each_mechanism_records_its_kind(kinds, name, expected, why):
    assert kinds.get(name) == expected, (
        f"self.{name} must be recorded as {expected} ({why}); the surface has "
        f"{kinds.get(name)}")


@pytest.mark.parametrize("name", ["shadow_positional", "shadow_star", "shadow_keywords"])
def test_a_nested_function_that_rebinds_self_reads_nothing_of_the_instance(kinds, name):
    assert name not in kinds, (
        f"a nested function whose own parameter is named self (positional, *self or **self) "
        f"reads {name} from that parameter, not from the instance; the surface recorded it as "
        f"{kinds.get(name)}")
