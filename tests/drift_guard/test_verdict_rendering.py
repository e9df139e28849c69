"""The drift verdict as a person and a program read it (docs/drift.md, *Verdicts* and the JSON
of ``deskcheck drift``): a forward finding lists each site with its kind, file:line and call
path, flags a site inside a ``try`` whose handler would swallow the AttributeError (also when
the handler names it through a module, ``except builtins.AttributeError``), names every root,
and the JSON carries the same findings. Gaps mutmut found in the verdict's rendering."""

from __future__ import annotations

import sys
import textwrap

import pytest

from deskcheck.drift_guard import clear_cache, guard
from deskcheck.harness import Harness, bind

SOURCE = '''
import builtins


class Shop:
    def run(self):
        try:
            value = self.risky_field
        except builtins.AttributeError:
            value = None
        return value + self.step()

    def step(self):
        return self.helper()

    def helper(self):
        return self.plain_field
'''


@pytest.fixture
def verdict(tmp_path, monkeypatch):
    (tmp_path / "dc_report_shop.py").write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "dc_report_shop", raising=False)  # this test's copy
    clear_cache()
    import dc_report_shop

    class Behind(Harness, model=dc_report_shop.Shop, roots=["run", "step"], register=False):
        run = bind(dc_report_shop.Shop.run)
        step = bind(dc_report_shop.Shop.step)
        helper = bind(dc_report_shop.Shop.helper)

    yield guard(Behind)
    clear_cache()


def _site_lines(message: str, name: str) -> list[str]:
    lines = message.splitlines()
    start = lines.index(f"  {name}:")
    return [ln for ln in lines[start + 1:] if ln.startswith("    ")][:1]


def test_the_message_names_every_root_and_each_finding_on_its_own_line(verdict):
    lines = verdict.message().splitlines()
    assert lines[0] == ("Behind has drifted behind Shop.run, Shop.step: "
                        "['plain_field', 'risky_field']"), (
        f"the headline must name the harness, every root as Model.root joined by ', ', and the "
        f"sorted missing names; it is {lines[0]!r}")
    assert "  plain_field:" in lines and "  risky_field:" in lines, (
        f"each missing name must head its own line ('  name:'); the message is {lines}")
    assert lines[-1].startswith("  fix: bind the real function"), (
        f"the forward finding must end with its fix; the last line is {lines[-1]!r}")


def test_a_site_a_module_qualified_handler_would_swallow_is_flagged(verdict):
    message = verdict.message()
    [risky] = _site_lines(message, "risky_field")
    assert risky.endswith("(path: Shop.run) [inside try/except that would swallow the "
                          "AttributeError]"), (
        f"self.risky_field is read inside try/except builtins.AttributeError: its site must "
        f"be flagged as swallowed; it reads {risky!r}")
    [plain] = _site_lines(message, "plain_field")
    assert plain.endswith("(path: Shop.step -> Shop.helper)") and "[inside" not in plain, (
        f"self.plain_field is read in helper, called from the root step, outside any try: its "
        f"site must show the call path 'Shop.step -> Shop.helper' and no swallow flag; it "
        f"reads {plain!r}")
    assert plain.lstrip().startswith("read at ") and "dc_report_shop.py:" in plain, (
        f"a site must say its kind and file:line; it reads {plain!r}")


def test_the_json_carries_the_same_findings(verdict):
    data = verdict.to_json()
    assert (data["subject"], data["model"], data["roots"], data["ok"]) == (
        "Behind", "Shop", ["run", "step"], False), (
        f"the JSON's subject/model/roots/ok are {data['subject']!r}, {data['model']!r}, "
        f"{data['roots']!r}, {data['ok']!r}, not 'Behind', 'Shop', ['run', 'step'], False")
    forward = [(f["name"], f["detail"], [s["kind"] for s in f["sites"]])
               for f in data["forward"]]
    assert [f[0] for f in forward] == ["plain_field", "risky_field"], (
        f"the JSON's forward findings must be the sorted missing names; got {forward}")
    assert all(kinds == ["read"] for _, _, kinds in forward), (
        f"each forward finding must carry its read site; got {forward}")
    assert data["reverse"] == data["signature"] == data["stale_allow"] == [], (
        f"only forward drift exists here; the JSON says reverse {data['reverse']}, signature "
        f"{data['signature']}, stale_allow {data['stale_allow']}")
    assert data["surface"]["methods"] == 3 and data["surface"]["names"] >= 2, (
        f"the JSON's surface must count the 3 methods reached and the names they use; got "
        f"{data['surface']}")
    assert data["message"] == verdict.message(), (
        "the JSON's message differs from the verdict's message")
    assert isinstance(data["location"], str) and data["location"], (
        f"the JSON must say where the harness is declared; location is {data['location']!r}")
