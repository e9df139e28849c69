"""The production surface: static (no import) and runtime modes over the dg_shop fixture."""

from __future__ import annotations

import ast

import pytest

from deskcheck.drift_guard import surface
from deskcheck.errors import SourceResolutionError, UnknownTargetError
from deskcheck.static import _sources

SPEC = "dg_shop.scheduler:Scheduler.run_once"


@pytest.fixture
def static(shop_root):
    return surface(SPEC, roots=[shop_root])


def test_static_mode_resolves_every_mixin_across_modules_without_importing(static, shop_root):
    import sys

    assert [k.split(":")[-1] for k in static.to_json()["mro"]] == [
        "Scheduler", "BudgetMixin", "BatchMixin", "BaseMixin", "FastMixin", "builtins.object"], (
        "static mode must resolve every mixin across modules, in Python's MRO order; the MRO is "
        f"{static.to_json()['mro']}"
    )
    # re-export through mixins/__init__, relative `from ..base`, `fast.FastMixin` via a module
    assert "dg_shop.base:BaseMixin" in static.to_json()["mro"], (
        "BaseMixin, re-exported through mixins/__init__ and a relative import, must be in the MRO "
        f"{static.to_json()['mro']}"
    )
    assert static.model.mode == "static", (
        "a surface of a 'module:Class.method' spec must be built in static mode; it is "
        f"{static.model.mode!r}"
    )
    assert "dg_shop._native" not in sys.modules, (
        "static mode must never import production code, yet dg_shop._native was imported"
    )


def test_static_mode_never_imports_production_code(tmp_path):
    pkg = tmp_path / "dg_boom"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise SystemExit('dg_boom was imported')\n")
    (pkg / "mixin.py").write_text("import torch_that_is_not_installed\n\n"
                                  "class M:\n    def helper(self):\n        return self.deep\n")
    (pkg / "sched.py").write_text("from .mixin import M\n\n\nclass S(M):\n"
                                  "    def run(self):\n        return self.helper()\n")
    result = surface("dg_boom.sched:S.run", roots=[tmp_path])
    assert result.names["deep"].sites[0].path == ("S.run", "M.helper"), (
        "static mode must follow S.run into M.helper without importing; the site path of deep is "
        f"{result.names['deep'].sites[0].path}"
    )


def test_try_except_import_error_reports_the_branch_taken(static):
    (note,) = static.model.notes
    assert "fast.py:1" in note and "except branch" in note and "dg_shop._native" in note, (
        "a try/except ImportError must be noted with its place (fast.py:1), the except branch "
        f"taken and the module dg_shop._native; the note is {note!r}"
    )


def test_reads_writes_and_kinds(static):
    kinds = {name: use.kinds for name, use in static.names.items()}
    assert kinds["streak"] == ["rmw"], (
        f"self.streak += ... must be recorded as rmw; its kinds are {kinds['streak']}"
    )
    assert kinds["last_floor"] == ["write"], (
        "a plain assignment to self.last_floor must be recorded as write; its kinds are "
        f"{kinds['last_floor']}"
    )
    assert kinds["trace_enabled"] == ["guarded"], (
        "a getattr/hasattr read of trace_enabled must be recorded as guarded; its kinds are "
        f"{kinds['trace_enabled']}"
    )
    assert static.names["trace_enabled"].guarded, (
        f"trace_enabled's use must be marked guarded; it is {static.names['trace_enabled']}"
    )
    assert "guarded" in kinds["debug_hook"] and "call" in kinds["debug_hook"], (
        "debug_hook, read guarded and then called, must be recorded as guarded and call; its "
        f"kinds are {kinds['debug_hook']}"
    )
    assert kinds["update_budget"] == ["call"], (
        f"self.update_budget() must be recorded as a call; its kinds are {kinds['update_budget']}"
    )
    assert set(static.reads) >= {"ps", "ps.tp_rank", "ps.max_size", "budget"}, (
        "the reads must include ps, ps.tp_rank, ps.max_size and budget; they are "
        f"{sorted(static.reads)}"
    )
    assert set(static.writes) == {"streak", "last_floor"}, (
        f"the writes must be exactly streak and last_floor; they are {sorted(static.writes)}"
    )


def test_closures_lambdas_comprehensions_and_chains_are_followed(static):
    assert "group.size" in static.names, (
        "a read inside the closure publish() (group.size) must be followed; names: "
        f"{sorted(static.names)}"
    )  # closure publish()
    assert "prio_weight" in static.names, (
        "a read inside a lambda sort key (prio_weight) must be followed; names: "
        f"{sorted(static.names)}"
    )  # lambda sort key
    assert "_fits" in static.names and "ps.max_size" in static.names, (
        "a comprehension calling self._fits must be followed into it (ps.max_size); names: "
        f"{sorted(static.names)}"
    )  # comprehension -> method


def test_super_follows_the_mro_and_sites_carry_their_call_path(static):
    (site,) = static.names["base_reserved"].sites
    assert site.path == ("Scheduler.run_once", "BatchMixin.get_new_batch", "BatchMixin.admit",
                         "BaseMixin.admit"), (
        "super().admit() must be followed along the MRO, and the site must carry its call path; "
        f"it is {site.path}"
    )
    assert site.file.endswith("dg_shop/base.py") and site.line == 5, (
        f"the site of base_reserved must be dg_shop/base.py:5; it is {site.file}:{site.line}"
    )
    assert "BaseMixin.admit" in static.methods, (
        f"BaseMixin.admit, reached by super(), must be among the methods {list(static.methods)}"
    )


def test_property_getter_and_setter_are_followed(shop_root):
    result = surface("dg_shop.scheduler:Scheduler.reset_budget", roots=[shop_root])
    assert "BudgetMixin.budget (setter)" in result.methods, (
        "the setter of the budget property, BudgetMixin.budget (setter), must be followed by a "
        f"write; methods: {list(result.methods)}"
    )
    assert "reserved_tokens" in result.names and result.names["streak"].kinds == ["write"], (
        "the setter's reads (reserved_tokens) and writes (streak as write) must be recorded; "
        f"names: { {n: u.kinds for n, u in result.names.items()} }"
    )
    assert "BudgetMixin.budget" not in result.methods, (
        "a write to the budget property must not reach its getter BudgetMixin.budget; methods: "
        f"{list(result.methods)}"
    )  # the getter is not reached by a write


def test_static_and_runtime_modes_give_the_same_surface(static):
    from dg_shop.scheduler import Scheduler

    runtime = surface(Scheduler, "run_once")
    assert runtime.model.mode == "runtime", (
        f"a surface of a class object must be built in runtime mode; it is {runtime.model.mode!r}"
    )
    assert {n: u.kinds for n, u in runtime.names.items()} == \
        {n: u.kinds for n, u in static.names.items()}, (
        "static and runtime modes must give the same names with the same kinds, yet they differ"
    )
    assert list(runtime.methods) == list(static.methods), (
        "static and runtime modes must reach the same methods in the same order; runtime "
        f"{list(runtime.methods)}, static {list(static.methods)}"
    )


def test_static_c3_mro_matches_pythons_on_a_diamond(shop_root):
    from dg_shop.diamond import Bottom

    result = surface("dg_shop.diamond:Bottom.run", roots=[shop_root])
    assert [k.split(":")[-1] for k in result.to_json()["mro"][:-1]] == \
        [k.__name__ for k in Bottom.__mro__[:-1]], (
        f"the static C3 MRO of the diamond must match Python's; static {result.to_json()['mro']}, "
        f"Python {[k.__name__ for k in Bottom.__mro__]}"
    )
    # super() inside Left.ping goes to Right.ping (next in Bottom's MRO), not Root.ping
    assert result.names["right_field"].sites[0].path == (
        "Bottom.run", "Left.ping", "Right.ping"), (
        "super() in Left.ping must go to Right.ping, next in Bottom's MRO; the path of "
        f"right_field is {result.names['right_field'].sites[0].path}"
    )


def test_json_has_the_documented_keys(static):
    data = static.to_json()
    assert {"class", "roots", "methods", "reads", "writes", "elapsed_s"} <= set(data), (
        "the surface JSON must have the documented keys class, roots, methods, reads, writes, "
        f"elapsed_s; it has {sorted(data)}"
    )
    assert data["class"] == "dg_shop.scheduler:Scheduler", (
        f"the JSON's class must be dg_shop.scheduler:Scheduler; it is {data['class']!r}"
    )
    assert data["reads"]["ps.tp_rank"][0]["path"][0] == "Scheduler.run_once", (
        "a read's path must start at the root method Scheduler.run_once; ps.tp_rank's first site "
        f"is {data['reads']['ps.tp_rank'][0]}"
    )


def test_each_distinct_file_content_is_parsed_once(shop_root, monkeypatch):
    _sources.clear_cache()
    calls = []
    real = ast.parse
    monkeypatch.setattr(_sources.ast, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
    surface(SPEC, roots=[shop_root])
    cold = len(calls)
    surface(SPEC, roots=[shop_root])
    assert cold >= 5 and len(calls) == cold, (
        f"each file content must be parsed once: the first surface parsed {cold} files (5 or more "
        f"expected), the second added {len(calls) - cold}"
    )


def test_an_overlay_is_read_instead_of_the_file(shop_root):
    path = shop_root / "dg_shop" / "_pure.py"
    text = path.read_text().replace("self.pure_only", "self.pure_only + self.overlaid")
    result = surface(SPEC, roots=[shop_root], overlay={str(path): text})
    assert "overlaid" in result.names, (
        "an overlay's text must be read instead of the file (it reads self.overlaid); names: "
        f"{sorted(result.names)}"
    )
    assert "overlaid" not in surface(SPEC, roots=[shop_root]).names, (
        "without the overlay the file on disk must be read: overlaid must not be a name"
    )


@pytest.mark.parametrize("spec, message", [
    ("dg_shop.scheduler:Nope.run", "no class 'Nope'"),
    ("dg_shop.scheduler:Scheduler.run_ocne", "did you mean run_once"),
    ("dg_shop.nowhere:Scheduler.run", "module 'dg_shop.nowhere' not found"),
    ("no_colon_here", "MODULE:Class.method"),
])
def test_unknown_targets_are_clear_errors(shop_root, spec, message):
    with pytest.raises(UnknownTargetError) as info:
        surface(spec, roots=[shop_root])
    assert message in info.value.render(), (
        f"the target {spec!r} must be refused with {message!r}; the error says "
        f"{info.value.render()!r}"
    )


def test_an_unresolvable_base_is_named_with_the_import_tried(broken_root):
    with pytest.raises(SourceResolutionError) as info:
        surface("dg_broken.nobase:Scheduler.run", roots=[broken_root])
    text = info.value.render()
    assert "'GoneMixin'" in text and "from dg_broken.missing_mod import GoneMixin" in text, (
        "an unresolvable base must be named with the import tried (from dg_broken.missing_mod "
        f"import GoneMixin); the error says {text!r}"
    )
    assert "nobase.py:4" in text and "--root" in text, (
        "an unresolvable base must be located at nobase.py:4 and suggest --root; the error says "
        f"{text!r}"
    )


def test_a_syntax_error_names_file_and_line(tmp_path):
    pkg = tmp_path / "dg_bad"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sched.py").write_text("class S:\n    def run(self):\n        return self.x +\n")
    with pytest.raises(SourceResolutionError) as info:
        surface("dg_bad.sched:S.run", roots=[tmp_path])
    assert "sched.py:3" in info.value.render() and "syntax error" in info.value.render(), (
        "a syntax error must be named with its file and line (sched.py:3); the error says "
        f"{info.value.render()!r}"
    )


def test_dynamic_getattr_is_reported(tmp_path):
    pkg = tmp_path / "dg_dyn"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(
        "class S:\n    def run(self, key):\n        alias = self\n"
        "        return getattr(self, key) + alias.via_alias\n")
    result = surface("dg_dyn.m:S.run", roots=[tmp_path])
    assert [s.line for s in result.dynamic] == [4], (
        "getattr(self, key) must be reported as dynamic at line 4; dynamic sites at lines "
        f"{[s.line for s in result.dynamic]}"
    )
    assert "via_alias" in result.names, (
        "a read through an alias of self (alias.via_alias) must be followed; names: "
        f"{sorted(result.names)}"
    )


def test_runtime_mode_finds_a_class_defined_inside_a_function():
    def make():
        class Local:
            def run(self):
                value = self.first
                return value + self.second

        return Local

    result = surface(make(), "run")
    assert sorted(result.names) == ["first", "second"], (
        "runtime mode must find the class defined inside a function and its reads first, second; "
        f"names: {sorted(result.names)}"
    )
    assert result.names["first"].sites[0].path == ("Local.run",), (
        "the site path of first must be ('Local.run',); it is "
        f"{result.names['first'].sites[0].path}"
    )


def test_a_read_after_a_plain_write_in_the_same_method_is_not_a_need(tmp_path):
    pkg = tmp_path / "dg_aw"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(
        "class S:\n"
        "    def run(self, cond):\n"
        "        self.buf = []\n"
        "        self.buf.append(1)\n"
        "        if cond:\n"
        "            self.flag = 1\n"
        "        return self.flag\n")
    result = surface("dg_aw.m:S.run", roots=[tmp_path])
    assert [s.after_write for s in result.names["buf"].sites] == [False, True], (
        "self.buf.append after self.buf = [] must be marked after_write; buf's sites: "
        f"{[s.after_write for s in result.names['buf'].sites]}"
    )
    assert not result.names["buf"].needed, (
        "a name written first, unconditionally (buf), is not needed from outside, yet it was "
        "marked needed"
    )  # written first, unconditionally
    assert result.names["flag"].needed, (
        "a read after a conditional write (flag) still needs the name, yet it was not marked needed"
    )  # the write is conditional: the read still needs it
    assert sorted(result.needed()) == ["flag"], (
        f"only flag is needed; needed() gave {sorted(result.needed())}"
    )


def test_star_imports_module_aliases_generics_and_external_bases(tmp_path):
    pkg = tmp_path / "dg_res"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .star_src import *\n")
    (pkg / "sub" / "star_src.py").write_text(
        "class StarMixin:\n    def star(self):\n        return self.from_star\n")
    (pkg / "aliased.py").write_text(
        "class Holder:\n    class Inner:\n        def inner(self):\n            return self.from_inner\n")
    (pkg / "sched.py").write_text(
        "import abc\nfrom typing import Generic, TypeVar\n"
        "import dg_res.aliased as al\nfrom dg_res.sub import StarMixin\n"
        "T = TypeVar('T')\n\n\n"
        "class S(StarMixin, al.Holder.Inner, Generic[T], abc.ABC):\n"
        "    def run(self):\n        return self.star() + self.inner()\n")
    result = surface("dg_res.sched:S.run", roots=[tmp_path])
    mro = result.to_json()["mro"]
    assert mro[:3] == ["dg_res.sched:S", "dg_res.sub.star_src:StarMixin",
                       "dg_res.aliased:Holder.Inner"], (
        "star imports and module aliases must resolve the bases StarMixin and Holder.Inner; the "
        f"MRO is {mro}"
    )
    assert "typing.Generic" in mro and "abc.ABC" in mro, (
        f"external bases typing.Generic and abc.ABC must be leaves of the MRO {mro}"
    )
    assert {"from_star", "from_inner"} <= set(result.names), (
        "the reads of the bases from a star import and an alias (from_star, from_inner) must be "
        f"followed; names: {sorted(result.names)}"
    )


def test_a_base_from_a_package_that_is_not_here_is_an_external_leaf_with_a_note(tmp_path):
    pkg = tmp_path / "dg_ext"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text("from not_installed_anywhere.nn import Module\n\n\n"
                              "class S(Module):\n    def run(self):\n        return self.x\n")
    result = surface("dg_ext.m:S.run", roots=[tmp_path])
    assert "not_installed_anywhere.nn.Module" in result.to_json()["mro"], (
        "a base from a package not installed must be an external leaf of the MRO "
        f"{result.to_json()['mro']}"
    )
    assert any("not under the roots and not installed" in n for n in result.model.notes), (
        f"a base class found neither under the roots nor installed is not noted: "
        f"{result.model.notes}")
    assert list(result.names) == ["x"], (
        f"the class's own read x must still be recorded; names: {list(result.names)}"
    )


def test_reads_inside_a_try_that_catches_attribute_error_are_marked_swallowed(tmp_path):
    pkg = tmp_path / "dg_try"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(
        "class S:\n"
        "    def run(self):\n"
        "        try:\n"
        "            n = self.count()\n"
        "        except Exception:\n"
        "            n = self.fallback\n"
        "        try:\n"
        "            m = self.strict\n"
        "        except KeyError:\n"
        "            m = 0\n"
        "        return n + m\n")
    result = surface("dg_try.m:S.run", roots=[tmp_path])
    swallowed = {n: u.sites[0].swallowed for n, u in result.names.items()}
    assert swallowed == {"count": True, "fallback": False, "strict": False}, (
        "only a read inside a try that catches AttributeError (or a base of it) is swallowed; got "
        f"{swallowed}"
    )
