"""A namespace held in a field of a stand-in (``SimpleNamespace(req=SimpleNamespace(rid="a"))``,
or a local namespace handed to a keyword) is judged by name: the driven path's reads through
that field (``self.req.kv``, or ``req = self.req; req.kv``) need the names it holds. Names set
later through the chain or on the local count; a namespace handed on whole, or a field set
again, is not listed (its names are not judged)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.drift_guard.standins.helpers import discover_in, names, standin

POOL = '''
class Pool:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def sweep(self):
        req = self.pending
        if req is None:
            return 0
        if req.finished() or not req.kv.holds:
            self.pending = None
            return 1
        return req.rid

    def budget(self):
        return self.args.size + self.args.limit

    def deep(self):
        return self.cfg.cache.page + self.cfg.cache.pages

    def model_budget(self):
        return self.model.cfg.size + self.model.cfg.limit

    def admit(self, req):
        params = req.params
        return params.size + params.limit + len(req.rid)

    def four(self):
        return self.a.b.c.d.limit

    def five(self):
        return self.a.b.c.d.e.limit

'''


def _project(tmp_path: Path, test_source: str) -> Path:
    root = tmp_path / "proj"
    (root / "poolcore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "poolcore" / "__init__.py").write_text("")
    (root / "poolcore" / "pool.py").write_text(POOL)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_shape.py").write_text(textwrap.dedent(test_source))
    return root


def _judge(tmp_path: Path, body: str, built: str = "ns = SimpleNamespace("):
    """The verdict on the stand-in the test body builds as ``ns``."""
    source = ("from types import SimpleNamespace\nfrom unittest.mock import MagicMock\n"
              "from poolcore.pool import Pool\n\n" + body)
    root = _project(tmp_path, source)
    line = next(i for i, text in enumerate(source.splitlines(), 1)
                if text.strip().startswith(built))
    return standin(discover_in(root), f"tests/test_shape.py:{line}")


@pytest.mark.parametrize(("built", "method", "missing", "why"), [
    ("SimpleNamespace(args=SimpleNamespace(size=4))", "budget", "args.limit",
     "budget reads self.args.limit and the namespace in `args` holds only `size`"),
    ("SimpleNamespace(cfg=SimpleNamespace(cache=SimpleNamespace(page=16)))", "deep",
     "cfg.cache.pages",
     "deep reads self.cfg.cache.pages; the innermost namespace holds only `page`"),
], ids=["inline", "two-deep"])
def test_a_name_a_nested_namespace_lacks_is_drift(tmp_path, built, method, missing, why):
    report = _judge(tmp_path, textwrap.dedent(f'''
        def test_it():
            ns = {built}
            Pool.{method}(ns)
    '''))
    assert names(report, "drift") == {missing}, (
        f"{why}: that read raises AttributeError, so `{missing}` is drift; got "
        f"drift={names(report, 'drift')}")


def test_a_read_through_a_production_local_aliasing_the_field_is_judged(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_sweep():
            req = SimpleNamespace(rid="a", finished=lambda: False)
            ns = SimpleNamespace(pending=req)
            Pool.sweep(ns)
    '''))
    assert names(report, "drift") == {"pending.kv"}, (
        "sweep binds req = self.pending and reads req.kv when req.finished() is false (the "
        "lambda returns False): the local namespace handed to `pending` lacks `kv`, so "
        f"`pending.kv` is drift; got drift={names(report, 'drift')}")
    assert "pending.rid" not in names(report, "drift"), "`rid` is set on the namespace"


def test_names_set_later_through_the_chain_or_on_the_local_are_provided(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_budget():
            ns = SimpleNamespace(args=SimpleNamespace(size=4))
            ns.args.limit = 2
            Pool.budget(ns)
    '''))
    assert report.holds, (
        "the test sets ns.args.limit before driving budget: the nested namespace provides "
        f"both names it reads; got drift={names(report, 'drift')}")
    report = _judge(tmp_path / "b", textwrap.dedent('''
        def test_sweep():
            req = SimpleNamespace(rid="a", finished=lambda: False)
            ns = SimpleNamespace(pending=req)
            req.kv = SimpleNamespace(holds=True)
            Pool.sweep(ns)
    '''))
    assert "pending.kv" not in names(report, "drift"), (
        "the test sets req.kv on the local namespace after handing it to `pending`: the "
        f"same object, so `pending.kv` is provided; got drift={names(report, 'drift')}")


def test_a_namespace_handed_on_whole_or_replaced_is_not_judged_by_name(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def fill(obj):
            obj.limit = 2

        def test_budget():
            ns = SimpleNamespace(args=SimpleNamespace(size=4))
            fill(ns.args)
            Pool.budget(ns)
    '''))
    assert "args.limit" not in names(report, "drift"), (
        "ns.args is handed whole to a helper (which may set names deskcheck does not "
        f"follow): its names are not listed, so nothing under it is drift; got "
        f"drift={names(report, 'drift')}")
    report = _judge(tmp_path / "b", textwrap.dedent('''
        def make_args():
            return object()

        def test_budget():
            ns = SimpleNamespace(args=SimpleNamespace(size=4))
            ns.args = make_args()
            Pool.budget(ns)
    '''))
    assert "args.limit" not in names(report, "drift"), (
        "ns.args is set again to a value deskcheck cannot read: the first namespace's "
        f"names no longer describe it; got drift={names(report, 'drift')}")
    report = _judge(tmp_path / "c", textwrap.dedent('''
        def test_sweep():
            req = SimpleNamespace(rid="a", finished=lambda: False)
            other = req
            ns = SimpleNamespace(pending=req)
            Pool.sweep(ns)
    '''))
    assert "pending.kv" not in names(report, "drift"), (
        "the local namespace is bound to another name too (an alias deskcheck does not "
        f"track): its names are not listed; got drift={names(report, 'drift')}")


def test_the_fix_line_names_the_namespace_that_lacks_the_name(tmp_path):
    source = textwrap.dedent('''
        from types import SimpleNamespace
        from poolcore.pool import Pool

        def test_sweep():
            req = SimpleNamespace(rid="a", finished=lambda: False)
            ns = SimpleNamespace(pending=req)
            Pool.sweep(ns)
    ''')
    from deskcheck.drift_guard.standins.render import render

    text = " ".join(render(discover_in(_project(tmp_path, source))).split())
    assert "fix (drift): set `kv` on the namespace the stand-in built at " \
           "tests/test_shape.py:7 holds in `pending`" in text, (
        "the fix for a name a nested namespace lacks says to set that attribute on the "
        f"namespace in that field, not a dotted name on the stand-in: {text}")
    assert "set `pending.kv` on the stand-in" not in text, (
        f"a dotted name is not a name one sets on the stand-in itself: {text}")

    deep = " ".join(render(discover_in(_project(tmp_path / "deep", textwrap.dedent('''
        from types import SimpleNamespace
        from poolcore.pool import Pool

        def test_deep():
            ns = SimpleNamespace(cfg=SimpleNamespace(cache=SimpleNamespace(page=16)))
            Pool.deep(ns)
    ''')))).split())
    assert "set `pages` on the namespace the stand-in built at tests/test_shape.py:6 " \
           "holds in `cfg.cache`" in deep, (
        "two levels down, the fix names the innermost namespace (`cfg.cache`) and the "
        f"attribute it lacks (`pages`), not `cache.pages` on `cfg`: {deep}")


def test_an_empty_namespace_in_a_field_lacks_every_name_read_through_it(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def arm(obj):
            obj.args = SimpleNamespace()

        def test_budget():
            ns = SimpleNamespace(pending=None)
            arm(ns)
            Pool.budget(ns)
    '''))
    assert names(report, "drift") == {"args.size", "args.limit"}, (
        "a helper sets `args` to an empty SimpleNamespace(): it holds no name, so both "
        f"reads through it raise AttributeError and are drift; got drift={names(report, 'drift')}")
    assert not any(n.endswith(".") for n in report.sets), (
        f"the listing marker of a namespace field is not a name the test set: {report.sets}")


def test_namespaces_are_listed_four_levels_deep_and_no_deeper(tmp_path):
    body = textwrap.dedent('''
        def test_four():
            ns = SimpleNamespace(a=SimpleNamespace(b=SimpleNamespace(c=SimpleNamespace(
                d=SimpleNamespace(size=1, e=SimpleNamespace(size=2))))))
            Pool.four(ns)
            Pool.five(ns)
    ''')
    report = _judge(tmp_path, body)
    assert names(report, "drift") == {"a.b.c.d.limit"}, (
        "the doc lists nested namespaces down to four levels: the one in `a.b.c.d` lacks "
        "`limit`, which Pool.four reads, so `a.b.c.d.limit` is drift (a depth cut one level "
        "early misses it); the fifth level, `a.b.c.d.e`, is not listed, so its missing "
        f"`limit` is not judged; got drift={names(report, 'drift')}")


def test_a_name_set_later_on_a_namespace_a_helper_built_is_provided(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def make_req():
            return SimpleNamespace(rid="a", finished=lambda: False)

        def test_sweep():
            req = make_req()
            ns = SimpleNamespace(pending=req)
            req.kv = SimpleNamespace(holds=True)
            Pool.sweep(ns)
    '''))
    assert "pending.kv" not in names(report, "drift"), (
        "req comes from a helper and the test then sets req.kv: the names set on it after "
        "the helper returned count as much as the helper's own (a namespace from a factory "
        f"must not lose them); got drift={names(report, 'drift')}")


def test_a_name_set_two_fields_down_the_chain_is_provided(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_model_budget():
            ns = SimpleNamespace(model=SimpleNamespace(cfg=SimpleNamespace(size=1)))
            ns.model.cfg.limit = 2
            Pool.model_budget(ns)
    '''))
    assert report.holds, (
        "the test sets ns.model.cfg.limit, two fields down the chain: the namespace in "
        f"`model.cfg` provides it; got drift={names(report, 'drift')}")


def test_a_namespace_passed_by_keyword_to_a_call_is_handed_on_whole(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_sweep():
            req = SimpleNamespace(rid="a", finished=lambda: False)
            registry = dict(req=req)
            registry["req"].kv = SimpleNamespace(holds=True)
            ns = SimpleNamespace(pending=req)
            Pool.sweep(ns)
    '''))
    assert "pending.kv" not in names(report, "drift"), (
        "req is passed by keyword to dict(...) and gains kv through the dict: only a "
        "SimpleNamespace(...) keyword keeps a namespace listed, any other call's keyword "
        f"hands it on whole; got drift={names(report, 'drift')}")


def test_a_namespace_inside_a_mock_is_not_listed(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_budget():
            ns = MagicMock(spec=Pool, args=SimpleNamespace(size=4))
            ns.configure_mock(**{"args.limit": 2})
            Pool.budget(ns)
    '''), built="ns = MagicMock(")
    assert not any(n.startswith("args.") for n in names(report, "drift")), (
        "a namespace handed to MagicMock(...) is not listed (the doc: the mock's own "
        "configuration decides), so nothing under `args` is drift; got "
        f"drift={names(report, 'drift')}")


def test_a_namespace_argument_is_judged_on_the_namespaces_it_holds(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_admit():
            ns = SimpleNamespace(pending=None)
            req = SimpleNamespace(
                rid="a",
                params=SimpleNamespace(size=4))
            Pool.admit(ns, req)
    '''), built="req = SimpleNamespace(")
    assert names(report, "drift") == {"params.limit"}, (
        "the namespace passed as `req` holds a namespace in `params` with only `size`; "
        "admit reads req.params.limit (through the local `params`), so `params.limit` is "
        f"drift on the argument stand-in; got drift={names(report, 'drift')}")


def test_the_listing_marker_of_a_namespace_field_is_never_a_reverse_finding(tmp_path):
    report = _judge(tmp_path, textwrap.dedent('''
        def test_budget():
            ns = SimpleNamespace(args=SimpleNamespace(size=4, limit=1))
            Pool.budget(ns)
    '''))
    assert report.holds, f"both names budget reads are set; got drift={names(report, 'drift')}"
    assert names(report, "reverse") == set(), (
        "budget reads args.size and args.limit, every name the test set: nothing is "
        "reverse, and the marker that says `args` holds a listed namespace (`args.`) is not "
        f"a name the test set; got reverse={names(report, 'reverse')}")
