"""The production surface's details, site by site (gaps mutmut found in the collector and the
tracer): every mechanism that reaches a ``self.X`` is pinned with its kind, line, method and
call path, so a collector that drops or mislabels one is named by the failure."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.drift_guard import clear_cache, surface

SOURCE = '''
class Base:
    @property
    def limit(self):
        return self.base_limit


class Shop(Base):
    def run(this):
        this.count += this.step_size
        total = super().limit
        this.cache.entry = 1

        def inner(x=this.default_size):
            return x

        @this.decorate
        def wrapped():
            return 0

        try:
            value = this.risky_field
        except (KeyError, AttributeError):
            value = None
        try:
            other = this.checked_field
        except KeyError:
            other = None
        try:
            try:
                deep = this.nested_field
            except Exception:
                deep = None
            after = this.after_nested
        except AttributeError:
            after = None
        try:
            bare = this.bare_field
        except:  # noqa: E722
            bare = None
        name = "dyn"
        extra = getattr(this, name)
        self_alias = this
        alias_read = self_alias.alias_field
        this.ro_prop = 3
        klass = type(this).class_field
        shared = this.__class__.shared_field
        fallback = getattr(this, "opt_field", this.fallback_field)
        plain = getattr(this, "plain_field")
        has = hasattr(this, "probe_field")
        this.total_field = this.total_field + 1
        this.again()
        return (this.helper(total), inner, wrapped, value, other, deep, after, bare, extra,
                alias_read, klass, shared, fallback, plain, has)

    @property
    def ro_prop(this):
        return this.ro_base

    def again(this):
        return this.again()

    @staticmethod
    def helper(shop):
        return shop.not_self_field

    def plant_target(this):
        """A docstring the canary must go after."""
        return this.count
'''


@pytest.fixture
def shop(tmp_path: Path):
    clear_cache()
    (tmp_path / "sp_detail").mkdir()
    (tmp_path / "sp_detail" / "__init__.py").write_text("")
    (tmp_path / "sp_detail" / "shop.py").write_text(textwrap.dedent(SOURCE))
    yield surface("sp_detail.shop:Shop.run", roots=[tmp_path]), tmp_path
    clear_cache()


def _sites(result, name: str) -> list[tuple[int, str, bool]]:
    use = result.names.get(name)
    return [(s.line, s.kind, s.swallowed) for s in use.sites] if use else []


def test_each_mechanism_is_recorded_with_its_kind_and_line(shop):
    result, _ = shop
    expected = {
        "count": [(10, "rmw", False)],
        "step_size": [(10, "read", False)],
        "default_size": [(14, "read", False)],
        "decorate": [(17, "read", False)],
        "cache": [(12, "read", False)],
        "cache.entry": [(12, "write", False)],
        "alias_field": [(44, "read", False)],
        "class_field": [(46, "read", False)],
        "shared_field": [(47, "read", False)],
        "opt_field": [(48, "guarded", False)],
        "fallback_field": [(48, "read", False)],
        "plain_field": [(49, "read", False)],
        "probe_field": [(50, "guarded", False)],
        "total_field": [(51, "write", False), (51, "read", False)],
        "ro_prop": [(45, "write", False)],
    }
    got = {name: _sites(result, name) for name in expected}
    assert got == expected, (
        "the collector lost or mislabelled a self.X site (augmented assignment, default "
        f"argument, decorator, chained write, alias): {got}")
    assert result.names["total_field"].needed, (
        "a read on the same line as its write (x = x + 1) was taken for a read after the write")
    assert all(s.method == "Shop.run" for s in result.names["count"].sites), (
        f"a site names the wrong method: {result.names['count'].sites}")
    assert "Shop.again" in result.methods and "Shop.helper" in result.methods, (
        f"tracing stopped early (a write to a read-only property, or recursion): "
        f"{list(result.methods)}")
    assert "ro_base" not in result.names, "writing a read-only property entered its getter"
    assert 0 <= result.elapsed_s < 60, f"surface timing is wrong: {result.elapsed_s}"


def test_a_property_read_through_super_is_followed(shop):
    result, _ = shop
    assert "Base.limit" in result.methods, (
        f"super().limit (a property read, not a call) was not followed: {list(result.methods)}")
    (site,) = result.names["base_limit"].sites
    assert site.path == ("Shop.run", "Base.limit"), f"wrong call path {site.path}"


def test_reads_inside_a_try_that_swallows_attribute_errors_are_marked(shop):
    result, _ = shop
    swallowed = {name: [s.swallowed for s in use.sites] for name, use in result.names.items()
                 if name in ("risky_field", "checked_field", "nested_field", "after_nested",
                             "bare_field", "step_size")}
    assert swallowed == {"risky_field": [True], "checked_field": [False],
                         "nested_field": [True], "after_nested": [True],
                         "bare_field": [True], "step_size": [False]}, (
        f"reads inside try/except AttributeError (or bare except) are marked wrongly: "
        f"{swallowed}")


def test_a_dynamic_getattr_site_is_reported_where_it_is(shop):
    result, root = shop
    (site,) = result.dynamic
    assert (Path(site.file).name, site.line, site.kind, site.method, site.path) == (
        "shop.py", 42, "dynamic", "Shop.run", ("Shop.run",)), (
        f"the dynamic getattr site is reported wrongly: {site}")


def test_reached_methods_and_stops_are_reported(shop):
    _, root = shop
    result = surface("sp_detail.shop:Shop.run", roots=[root], stop_at=["helper"])
    method = result.methods["Shop.run"]
    assert (method.name, method.role, Path(method.file).name, method.line, method.path) == (
        "Shop.run", "call", "shop.py", 9, ("Shop.run",)), f"wrong root method {method}"
    assert result.stopped_at == ("helper",), f"stop_at lost: {result.stopped_at}"
    assert "Shop.helper" not in result.methods, "a stopped name was entered"


def test_a_staticmethod_argument_is_not_self(shop):
    result, _ = shop
    assert "Shop.helper" in result.methods, f"this.helper() was not followed: {result.methods}"
    assert "not_self_field" not in result.names, (
        "the first argument of a staticmethod was taken for self")


def test_the_canary_is_planted_after_the_docstring_into_a_non_self_method(shop):
    from deskcheck.drift_guard._plant import plant_read
    from deskcheck.static._surface import build_model

    _, root = shop
    model = build_model("sp_detail.shop:Shop", roots=[root])
    canary, overlay = plant_read(model, "plant_target")
    (text,) = overlay.values()
    lines = text.splitlines()
    index = next(i for i, ln in enumerate(lines) if "def plant_target" in ln)
    assert lines[index + 2].strip() == f"this.{canary}", (
        "the can-fail canary is not the first statement after the docstring of "
        f"plant_target, read through its own first parameter: {lines[index:index + 4]}")


def test_the_json_of_a_surface_keeps_its_documented_keys_and_values(shop):
    result, _ = shop
    data = result.to_json()
    assert set(data) == {"class", "mode", "roots", "mro", "methods", "reads", "writes",
                         "guarded", "dynamic", "context", "notes", "counts",
                         "elapsed_s"}, sorted(data)
    assert (data["class"], data["mode"], data["roots"]) == (
        "sp_detail.shop:Shop", "static", ["run"]), "the surface JSON names the wrong target"
    assert data["mro"] == ["sp_detail.shop:Shop", "sp_detail.shop:Base", "builtins.object"], (
        f"the surface JSON's mro must be Shop, Base, builtins.object; it is {data['mro']}"
    )
    run = next(m for m in data["methods"] if m["name"] == "Shop.run")
    assert run == {"name": "Shop.run", "role": "call", "file": run["file"], "line": 9,
                   "path": ["Shop.run"]} and run["file"].endswith("shop.py"), run
    (count,) = data["reads"]["step_size"]
    assert count == {"file": count["file"], "line": 10, "kind": "read", "method": "Shop.run",
                     "path": ["Shop.run"], "after_write": False, "swallowed": False}, count
    assert data["writes"]["count"][0]["kind"] == "rmw" and "ro_prop" in data["writes"], (
        "count += 1 must be a write of kind rmw, and a property setter's write ro_prop must be "
        f"listed; writes: {data['writes']}"
    )
    assert "step_size" not in data["writes"] and "cache.entry" not in data["reads"], (
        "reads must not be listed as writes (step_size), nor writes as reads (cache.entry); "
        f"writes {sorted(data['writes'])}, reads {sorted(data['reads'])}"
    )
    assert data["guarded"] == ["opt_field", "probe_field"], data["guarded"]
    assert data["dynamic"][0]["kind"] == "dynamic" and data["dynamic"][0]["line"] == 42, (
        "a dynamic getattr must be listed with kind 'dynamic' at line 42; dynamic: "
        f"{data['dynamic']}"
    )
    assert data["counts"] == {"methods": len(result.methods), "names": len(result.names),
                              "reads": len(result.reads), "writes": len(result.writes),
                              "classes": len(result.model.sources)}, data["counts"]
    assert isinstance(data["elapsed_s"], float) and data["elapsed_s"] == round(
        result.elapsed_s, 4), "elapsed_s is not the timing rounded to 0.1 ms"
