"""The terminal block of a stand-in says how much of it was judged: "judged on DECIDED of
NEEDED needed names; K undecided: NAMES", the undecided ones being those behind a condition
no constant decides."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.drift_guard.standins.helpers import discover_in, standin

PUMP = '''
class Pump:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def run(self, n):
        self.count += 1
        if n:
            self.extra += 1
'''


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pumpcore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pumpcore" / "__init__.py").write_text("")
    (root / "pumpcore" / "pump.py").write_text(PUMP)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_pump.py").write_text(textwrap.dedent('''
        from types import SimpleNamespace
        from pumpcore.pump import Pump

        def test_run():
            ns = SimpleNamespace()
            Pump.run(ns, compute_n())
    '''))
    return root


def test_judged_on_says_decided_of_needed_and_names_the_undecided(tmp_path):
    from deskcheck.drift_guard.standins.render import render

    found = discover_in(_project(tmp_path))
    report = standin(found, "tests/test_pump.py:6")
    assert (report.needed, report.decided, report.undecided) == (2, 1, ["extra"]), (
        "count is read on every path (decided), extra only behind `if n` with n computed "
        f"(undecided): needed={report.needed} decided={report.decided} "
        f"undecided={report.undecided}")
    text = render(found, width=80)
    assert "judged on 1 of 2 needed names; 1 undecided: extra" in text, (
        "the terminal must say 'judged on 1 of 2 needed names; 1 undecided: extra' "
        f"(decided of needed), got:\n{text}")
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, f"every line fits 80 columns: {wide}"
