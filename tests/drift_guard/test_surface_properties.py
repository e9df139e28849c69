"""A property reached by every kind of access (docs/drift.md, *The surface*: properties are
followed into their getter, setter and deleter, whatever decorator form makes them one):
reading it, calling what it returns, a guarded ``getattr``, ``+=``, assigning and deleting
it each reach exactly the accessor(s) that access runs; a property named as a root is traced
through all three; ``@cached_property(ttl=60)`` is followed into its getter."""

from __future__ import annotations

import textwrap

import pytest

from deskcheck.drift_guard import clear_cache, surface

SOURCE = '''
class Shop:
    @property
    def {name}(self):
        return self.{name}_get_field

    @{name}.setter
    def {name}(self, value):
        self.{name}_set_field = value + self.{name}_set_input

    @{name}.deleter
    def {name}(self):
        del self.{name}_del_field
        self.{name}_del_input.clear()

    def run(self):
        {access}
'''


ACCESSES = {
    "read": ("value = self.p", ["get"]),
    "call": ("value = self.p()", ["get"]),
    "guarded": ('value = getattr(self, "p", None)', ["get"]),
    "rmw": ("self.p += 1", ["get", "set"]),
    "write": ("self.p = 1", ["set"]),
    "delete": ("del self.p", ["delete"]),
}


GROUP = {"get": "get", "set": "set", "delete": "del"}  # p_<group>_... names each accessor uses


LABEL = {"get": "Shop.p", "set": "Shop.p (setter)", "delete": "Shop.p (deleter)"}


def _surface(tmp_path, access: str, roots: tuple[str, ...] = ("run",)):
    clear_cache()
    package = tmp_path / "dc_props"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "shop.py").write_text(textwrap.dedent(SOURCE.format(name="p", access=access)))
    try:
        return surface("dc_props.shop:Shop", *roots, roots=[tmp_path])
    finally:
        clear_cache()


@pytest.mark.parametrize("kind", list(ACCESSES))
def test_each_access_of_a_property_reaches_exactly_its_accessors(tmp_path, kind):
    access, roles = ACCESSES[kind]
    result = _surface(tmp_path, access)
    reached = sorted({n.split("_")[1] for n in result.names if n.startswith("p_")})
    expected = sorted(GROUP[r] for r in roles)
    assert reached == expected, (
        f"'{access}' runs the property's {' and '.join(roles)} accessor(s): the surface must "
        f"hold the names of exactly those (p_{{{', '.join(expected)}}}_*), and holds those of "
        f"{reached}")
    labels = sorted(m for m in result.methods if m.startswith("Shop.p"))
    assert labels == sorted(LABEL[r] for r in roles), (
        f"'{access}' must list the accessors it reaches as "
        f"{sorted(LABEL[r] for r in roles)}; the surface lists {labels}")


def test_a_property_root_is_traced_through_getter_setter_and_deleter(tmp_path):
    result = _surface(tmp_path, "pass", roots=("p",))
    reached = sorted({n.split("_")[1] for n in result.names if n.startswith("p_")})
    assert reached == ["del", "get", "set"], (
        f"a property named as a root must be traced through its getter, setter and deleter; "
        f"the surface holds the names of {reached} only")


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
