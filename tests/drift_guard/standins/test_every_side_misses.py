"""An undecided branch where every side needs a name the stand-in lacks fails whichever way
it goes: those names are drift, not unknown. Found on SGLang's test_abort_rid_targeting.py:
``_collect_inflight_batches`` reads ``running_batch``/``last_batch`` when
``get_parallel().pp_size == 1`` and ``running_mbs``/``mbs`` otherwise; deleting ``last_batch``
from the stand-in made the tests fail with AttributeError, and standins said it holds
(unknown: "computed at run time")."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.drift_guard.standins.helpers import discover_in, names, standin

BATCHES = '''
def get_pp():
    raise RuntimeError("published at run time")


class Batches:
    def inflight(self):
        if get_pp() == 1:
            batches = [self.running_batch, self.last_batch]
        else:
            batches = [*self.running_mbs, *self.mbs]
        return batches

    def guarded(self):
        if get_pp() == 1:
            return self.running_batch
        return None
'''


def _project(tmp_path: Path, test_source: str) -> Path:
    root = tmp_path / "proj"
    (root / "sidecore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "sidecore" / "__init__.py").write_text("")
    (root / "sidecore" / "batches.py").write_text(BATCHES)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_side.py").write_text(textwrap.dedent(test_source))
    return root


def test_a_name_missing_on_every_side_of_an_undecided_branch_is_drift(tmp_path):
    root = _project(tmp_path, '''
        from sidecore.batches import Batches

        def test_inflight():
            stub = Batches.__new__(Batches)
            stub.running_batch = None
            stub.inflight()
    ''')
    report = standin(discover_in(root), "tests/test_side.py:5")
    assert names(report, "drift") == {"last_batch", "mbs", "running_mbs"} and not report.holds, (
        f"`if get_pp() == 1` is undecided, but its body needs last_batch and its else "
        f"running_mbs and mbs, none set: the stand-in fails either way. "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')}")


def test_a_side_the_stand_in_fully_provides_keeps_the_other_side_unknown(tmp_path):
    root = _project(tmp_path, '''
        from sidecore.batches import Batches

        def test_inflight():
            stub = Batches.__new__(Batches)
            stub.running_batch = None
            stub.last_batch = None
            stub.inflight()
    ''')
    report = standin(discover_in(root), "tests/test_side.py:5")
    assert report.holds and names(report, "unknown") == {"mbs", "running_mbs"}, (
        f"the pp == 1 side is fully provided, so the stand-in may hold: running_mbs and mbs "
        f"stay unknown. drift={names(report, 'drift')} unknown={names(report, 'unknown')}")


def test_a_side_that_needs_nothing_keeps_the_other_side_unknown(tmp_path):
    root = _project(tmp_path, '''
        from sidecore.batches import Batches

        def test_guarded():
            stub = Batches.__new__(Batches)
            stub.guarded()
    ''')
    report = standin(discover_in(root), "tests/test_side.py:5")
    assert report.holds and names(report, "unknown") == {"running_batch"}, (
        f"past the undecided `if`, guarded() reads nothing: running_batch stays unknown. "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')}")
