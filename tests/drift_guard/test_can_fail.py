"""The can-fail arm (docs/drift.md, *Can the guard fail?*): the canary is planted as the first
statement of each root's body (deskcheck/drift_guard/_plant.py) into the model, roots and
mode it is given, and a dead guard is reported as dead."""

from __future__ import annotations

import locale
from pathlib import Path

import pytest

from deskcheck.drift_guard import can_fail, guard
from deskcheck.drift_guard._plant import plant_read
from deskcheck.harness import Harness, bind
from deskcheck.static._surface import build_model
from tests.drift_guard.shop import shop_harnesses as _shop_harnesses

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


def test_can_fail_plants_into_the_roots_and_mode_it_is_given():
    from deskcheck.drift_guard import can_fail

    scheduler, complete = _shop_harnesses()
    result = can_fail(complete, scheduler, ["run_once"], mode="static")
    assert result.ok, result.message()
    assert result.subject == "Complete", f"can_fail names {result.subject!r}, not the harness"
    assert result.planted.roots == ("run_once",), (
        f"can_fail ignored the roots it was given: planted into {result.planted.roots}")
    assert result.planted.surface.model.mode == "static", (
        "can_fail ignored mode='static' and read the class at runtime")
    canary = next(f for f in result.planted.findings if f.name == result.canary)
    assert canary.sites[0].path == ("Scheduler.run_once",), (
        f"the canary was not planted into the given root: {canary.sites[0].path}")


def test_the_can_fail_arm_plants_into_the_model_it_is_given():
    scheduler, complete = _shop_harnesses()

    class Wider(scheduler):
        def run_once(self):
            return self.wider_only

    result = can_fail(complete, Wider, ["run_once"])
    assert result.planted.model == "Wider", (
        f"can_fail was given the model Wider but judged {result.planted.model}: it must plant "
        f"into and guard against the model it is given, not the harness's own")
    assert result.ok, (
        f"a planted read into Wider.run_once must be reported alone on top of the unplanted "
        f"verdict (which already misses wider_only): {result.message()}")


class _ReadsAlpha:
    def step(self):
        return self.alpha


class _ReadsBeta:
    def step(self):
        return self.beta


_RebindBase = _ReadsAlpha


class RebindChild(_RebindBase):
    """At runtime a _ReadsAlpha; read statically, its base name is bound last to _ReadsBeta."""


_RebindBase = _ReadsBeta


class RebindHarness(Harness, model=RebindChild, roots=["step"], register=False):
    step = bind(RebindChild.step)


def test_the_can_fail_arm_reads_both_verdicts_in_the_mode_it_is_given():
    runtime = guard(RebindHarness, mode="runtime").names("forward")
    static = guard(RebindHarness, mode="static").names("forward")
    assert (runtime, static) == (["alpha"], ["beta"]), (
        f"the two modes read RebindChild's base differently (runtime: the class it was built "
        f"on; static: the name's last binding); got runtime {runtime}, static {static}")
    result = can_fail(RebindHarness, mode="static")
    assert result.ok, (
        f"with mode='static' the unplanted verdict must be read statically too, so the "
        f"planted read is the only addition (beta is drift either way): {result.message()}")


def test_the_can_fail_arm_reports_a_dead_guard(monkeypatch):
    from deskcheck.drift_guard import can_fail
    from deskcheck.drift_guard import verdicts as guard_module

    _, complete = _shop_harnesses()
    real_trace = guard_module.trace

    def blind_trace(*args, **kwargs):
        surf = real_trace(*args, **kwargs)
        surf.names = {n: u for n, u in surf.names.items() if "canary" not in n}
        return surf

    monkeypatch.setattr(guard_module, "trace", blind_trace)
    result = can_fail(complete)
    assert not result.ok, (
        f"the can-fail arm called a dead guard live (it added {result.added}, the canary "
        f"{result.canary} was never reported)")


@pytest.mark.parametrize("added, live", [
    (["forward:_deskcheck_canary_ab"], True),
    ([], False),
    (["forward:_deskcheck_canary_ab", "forward:other"], False),
    (["reverse:_deskcheck_canary_ab"], False),
])
def test_the_arm_is_live_only_when_the_canary_is_the_one_name_added(added, live):
    from deskcheck.drift_guard.verdicts import CanFailResult

    result = CanFailResult("H", "_deskcheck_canary_ab", added, None)
    assert result.ok is live, (
        "can_fail passes only if the guard reports exactly that one extra name, the canary, "
        f"as forward drift (docs/drift.md:456); with {added} added it said ok={result.ok}")
