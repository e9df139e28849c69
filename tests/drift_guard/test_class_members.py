"""What static mode reads off a class body (docs/drift.md, *The production surface*: nothing is
imported; methods, properties, static/class methods and class-level defaults come from
source). Every form a class body uses to define a name is pinned with its kind, its line and
the accessor functions it brings, so a member read wrongly is named by the failure: the
``property(...)`` call form (positional and keyword), ``@x.getter/.setter/.deleter``,
aliases (``x = other_def``), annotated-only fields, nested classes, defs inside ``if``/``try``
blocks, and the per-node cache. Gaps mutmut found in static/_members.py."""

from __future__ import annotations

import ast
import textwrap

import pytest

from deskcheck.drift_guard import clear_cache, surface
from deskcheck.errors import UnknownTargetError
from deskcheck.static._members import ClassSource, Member, class_members

BODY = '''\
class Shop:
    timeout = DEFAULT_TIMEOUT
    limit: int
    ratio: float = 0.5
    _table = {}
    _table["k"] = shared_default = 3

    def _get_x(self):
        return self.x_get_field

    def _set_x(self, value):
        self.x_set_field = value

    def _del_x(self):
        del self.x_del_field

    x = property(_get_x, _set_x, _del_x, "the x of the shop")
    kw = property(fdel=_del_x, fget=_get_x, fset=_set_x)
    ro = property(_get_x)
    made = make_default()
    anon = property(lambda self: 1)

    def _impl(self):
        return self.impl_field

    run = go = _impl

    @staticmethod
    def helper(shop):
        return shop

    @classmethod
    def build(cls):
        return cls()

    @property
    def p(self):
        return self.p_field

    @p.getter
    def p(self):
        return self.p_new_field

    @p.deleter
    def p(self):
        del self.p_field

    def _impl(self):
        return 0

    _impl: object

    class Inner:
        pass
'''


@pytest.fixture(autouse=True)
def _cold_caches():
    clear_cache()
    yield
    clear_cache()


def _members(text: str = BODY) -> tuple[dict[str, Member], ast.ClassDef]:
    node = ast.parse(textwrap.dedent(text)).body[0]
    return class_members(node), node


def _def(node: ast.ClassDef, name: str, nth: int = 0) -> ast.FunctionDef:
    return [s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == name][nth]


def test_each_member_has_the_kind_its_definition_gives_it():
    members, _ = _members()
    kinds = {name: m.kind for name, m in members.items()}
    expected = {
        "timeout": "attribute", "limit": "annotation", "ratio": "attribute",
        "_table": "attribute", "shared_default": "attribute",
        "_get_x": "method", "_set_x": "method", "_del_x": "method",
        "x": "property", "kw": "property", "ro": "property", "made": "attribute",
        "anon": "property", "_impl": "method", "run": "method", "go": "method",
        "helper": "staticmethod", "build": "classmethod", "p": "property",
        "Inner": "attribute",
    }
    assert kinds == expected, (
        "a class-body definition got the wrong kind (a default read as an annotation, an "
        "annotated-only field as a default, property(...) as a plain default, an alias as a "
        "default, a classmethod as a plain method, a nested class lost, or a name under a "
        f"subscripted target dropped): {kinds}")


def test_each_member_carries_its_own_name_and_the_line_that_defines_it():
    members, _ = _members()
    lines = {name: (m.name, m.line) for name, m in members.items()}
    expected = {"timeout": 2, "limit": 3, "ratio": 4, "_table": 5, "shared_default": 6,
                "_get_x": 8, "_set_x": 11, "_del_x": 14, "x": 17, "kw": 18, "ro": 19,
                "made": 20, "anon": 21, "helper": 29, "build": 33, "p": 37, "Inner": 53,
                "_impl": 48}
    aliases = {name: lines.pop(name)[0] for name in ("run", "go")}
    assert aliases == {"run": "run", "go": "go"}, (
        f"an alias must be filed under its own name, not its target's: {aliases}")
    assert lines == {n: (n, line) for n, line in expected.items()}, (
        "a member is filed under a name other than its own, or with the wrong line (a def's "
        "line, an assignment's line, a property "
        f"redefined by @p.getter keeps the first def's line): {lines}")


def test_the_property_call_form_takes_getter_setter_deleter_from_the_body():
    members, node = _members()
    get_x, set_x, del_x = _def(node, "_get_x"), _def(node, "_set_x"), _def(node, "_del_x")
    for name in ("x", "kw"):
        member = members[name]
        assert (member.fget, member.fset, member.fdel) == (get_x, set_x, del_x), (
            f"{name} = property(...) must take its getter, setter and deleter from the defs "
            f"it names (positionally or as fget=/fset=/fdel=); got "
            f"{[getattr(f, 'name', None) for f in (member.fget, member.fset, member.fdel)]}")
        assert member.functions() == [("get", get_x), ("set", set_x), ("delete", del_x)], (
            f"the accessors of {name} are listed with the wrong roles: {member.functions()}")
    ro = members["ro"]
    assert (ro.fget, ro.fset, ro.fdel) == (get_x, None, None), (
        "property(_get_x) alone is a read-only property: a getter, no setter, no deleter")
    assert ro.functions() == [("get", get_x)], f"read-only accessors wrong: {ro.functions()}"
    assert members["anon"].functions() == [], (
        "property(lambda ...) names no def of the body: it has no accessor to follow")


def test_decorated_accessors_replace_or_add_to_the_property():
    members, node = _members()
    p = members["p"]
    assert p.fget is _def(node, "p", 1) and p.fset is None and p.fdel is _def(node, "p", 2), (
        "@p.getter must replace the getter and @p.deleter add the deleter of property p; got "
        f"fget line {getattr(p.fget, 'lineno', None)}, fset {p.fset}, "
        f"fdel line {getattr(p.fdel, 'lineno', None)}")
    assert [role for role, _ in p.functions()] == ["get", "delete"], (
        f"the roles of p's accessors are wrong: {p.functions()}")


def test_an_alias_is_the_function_it_names_and_a_later_annotation_hides_nothing():
    members, node = _members()
    first_impl = _def(node, "_impl", 0)
    for alias in ("run", "go"):
        assert members[alias].fget is first_impl, (
            f"{alias} = _impl names the _impl defined before it; the alias must call that def "
            f"(got line {getattr(members[alias].fget, 'lineno', None)})")
        assert members[alias].functions() == [("call", first_impl)], (
            f"an alias of a method is called like one: {members[alias].functions()}")
    assert members["_impl"].fget is _def(node, "_impl", 1), (
        "_impl is defined twice: the later def is the one the class keeps, and an annotation "
        "after it (`_impl: object`) assigns nothing, so it must not replace it")


def test_a_static_method_and_a_class_method_are_functions_called_as_such():
    members, node = _members()
    for name in ("helper", "build", "run"):
        assert members[name].is_function, f"{name} must count as a function member"
        assert members[name].functions() == [("call", members[name].fget)], (
            f"a function member is reached by calling it: {members[name].functions()}")
    for name in ("x", "limit", "timeout", "Inner"):
        assert not members[name].is_function, f"{name} is not a function member"
    assert Member("m", "method", 1).functions() == [], (
        "a function member without a def has nothing to follow")


def test_defs_inside_if_and_try_blocks_are_members_too():
    members, _ = _members('''\
        class Shop:
            first = 1
            if FAST:
                def in_if(self):
                    pass
            else:
                def in_else(self):
                    pass
            try:
                def in_try(self):
                    pass
            except ImportError:
                pass
            else:
                def in_try_else(self):
                    pass
            finally:
                def in_finally(self):
                    pass
            last = 2
        ''')
    assert sorted(members) == sorted(["first", "in_if", "in_else", "in_try", "in_try_else",
                                      "in_finally", "last"]), (
        "a def inside an if/else or try/else/finally block of a class body is part of the "
        f"class, as are the statements around the block; found {sorted(members)}")


def test_members_are_cached_per_parsed_node_until_the_cache_is_cleared():
    members, node = _members()
    assert class_members(node) is members, (
        "class_members must answer a second ask for the same parsed class from its cache")
    other = ast.parse("class Shop:\n    y = 1\n").body[0]
    assert list(class_members(other)) == ["y"], "another class node got the first one's members"
    clear_cache()
    again = class_members(node)
    assert again is not members and again == members, (
        "clear_cache() must forget the cached members (and reading again gives the same)")


def test_a_class_source_without_a_parsed_file_gives_the_def_itself():
    node = ast.parse("class Shop:\n    def m(self):\n        pass\n").body[0]
    klass = ClassSource("mod", "Shop", "mod.py", node, class_members(node))
    assert klass.function(node.body[0]) is node.body[0], (
        "with no parsed file to fetch a hollowed body from, the def is already whole")
    assert (klass.name, klass.line, klass.location) == ("Shop", 1, "mod.py:1"), (
        f"the class source is placed wrongly: {klass.name}, {klass.location}")


SHOP = '''\
class Shop:
    def _get_x(self):
        return self.x_get_field

    def _set_x(self, value):
        self.x_set_field = value

    def _del_x(self):
        del self.x_del_field

    x = property(fget=_get_x, fset=_set_x, fdel=_del_x)
    y = property(_get_x, fdel=_del_x)

    def _impl(self):
        return self.impl_field

    run = _impl
    limit: int

    def use(self):
        {access}
'''


def _surface(tmp_path, access: str, *roots: str):
    package = tmp_path / "dc_members"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "shop.py").write_text(SHOP.format(access=access))
    return surface("dc_members.shop:Shop", *roots, roots=[tmp_path], mode="static")


@pytest.mark.parametrize(("access", "expected"), [
    ("return self.x", {"x_get_field"}),
    ("self.x = 1", {"x_set_field"}),
    ("del self.x", {"x_del_field"}),
    ("self.y = 1", set()),
    ("del self.y", {"x_del_field"}),
])
def test_the_surface_follows_a_keyword_property_into_the_accessor_each_access_runs(
        tmp_path, access, expected):
    result = _surface(tmp_path, access, "use")
    reached = {n for n in result.names if n.startswith("x_")}
    assert reached == expected, (
        f"'{access}' on a property built as property(fget=..., fset=..., fdel=...) runs "
        f"exactly the accessor(s) holding {sorted(expected) or 'nothing'}; the surface "
        f"followed into {sorted(reached) or 'nothing'}")


def test_an_alias_root_is_traced_through_the_def_it_names(tmp_path):
    result = _surface(tmp_path, "pass", "run")
    assert "impl_field" in result.names, (
        f"run = _impl: tracing run must enter _impl's body; names: {sorted(result.names)}")
    assert "Shop.run" in result.methods, f"the alias is not listed: {list(result.methods)}"


def test_an_annotated_only_field_is_not_a_root(tmp_path):
    with pytest.raises(UnknownTargetError, match="has no method or property 'limit'"):
        _surface(tmp_path, "pass", "limit")
