"""Every declaration is checked (docs/uniformity.md "Declaring a source"): an ``agreed`` field
none of whose writes comes from *its* collective is unproven, and a ``replica`` whose arm (the
test function, not only its file) does not exist is claimed, not enforced."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.uniformity import audit

SOURCE = """
import torch
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def _all_reduce_min(self, t):
        dist.all_reduce(t, op=dist.ReduceOp.MIN, group=self.tp_group)
        return t

    def step(self):
        t = torch.tensor([len(self.waiting)])
        self.budget = self._all_reduce_min(t)[0]
        m = torch.tensor([1])
        dist.all_gather_into_tensor(m, m, group=self.tp_group)
        self.gathered = m[0]
        self.waiting = []
        if self.budget > 0 and self.gathered > 0:
            dist.barrier(group=self.tp_group)
        if self.waiting:
            dist.barrier(group=self.tp_group)
"""

PYPROJECT = """
[tool.deskcheck.uniformity]
collectives = ["self._all_reduce_min"]

[[tool.deskcheck.uniformity.agreed]]
field = "self.budget"
collective = "self._all_reduce_min"
why = "MIN over the TP group"

[[tool.deskcheck.uniformity.agreed]]
field = "self.gathered"
collective = "self._all_reduce_min"
why = "wrong: its write comes from an all_gather, not from _all_reduce_min"

[[tool.deskcheck.uniformity.replica]]
field = "self.waiting"
arm = "tests/test_arms.py::test_{arm}"
"""


def _findings(tmp_path: Path, arm: str) -> dict[str, str]:
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(SOURCE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_arms.py").write_text("def test_waiting_congruent():\n    pass\n")
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT.replace("{arm}", arm)))
    report = audit("mini.sched:Scheduler", root=tmp_path)
    return {f.subject: f.status for f in report.declarations}


def test_an_agreed_field_written_by_another_collective_is_unproven(tmp_path: Path) -> None:
    found = _findings(tmp_path, "waiting_congruent")
    assert "self.budget" not in found, (
        f"self.budget, written from self._all_reduce_min, was reported {found.get('self.budget')}")
    assert found.get("self.gathered") == "unproven", (
        "self.gathered is declared agreed by self._all_reduce_min but written from an "
        f"all_gather; expected 'unproven', got {found.get('self.gathered')!r}: the declared "
        "collective was not checked")


def test_a_replica_naming_a_missing_test_in_an_existing_file_is_not_enforced(
        tmp_path: Path) -> None:
    found = _findings(tmp_path, "no_such_arm")
    assert found.get("self.waiting") == "claimed, not enforced", (
        "a replica naming tests/test_arms.py::test_no_such_arm (the file exists, the test "
        f"does not) was reported {found.get('self.waiting')!r}, expected 'claimed, not enforced'")


def test_a_replica_naming_an_existing_test_holds(tmp_path: Path) -> None:
    found = _findings(tmp_path, "waiting_congruent")
    assert "self.waiting" not in found, (
        f"a replica naming an existing test was reported {found.get('self.waiting')!r}")


def test_a_replica_arm_named_by_a_parametrized_or_class_node_id_holds(tmp_path: Path) -> None:
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "__init__.py").write_text("")
    (tmp_path / "mini" / "sched.py").write_text(SOURCE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_arms.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [2])\ndef test_waiting_congruent(n):\n"
        "    pass\n\nclass TestArms:\n    def test_held(self):\n        pass\n")
    got = {}
    for arm in ("tests/test_arms.py::test_waiting_congruent[2]",
                "tests/test_arms.py::TestArms::test_held"):
        (tmp_path / "pyproject.toml").write_text(textwrap.dedent(
            PYPROJECT.replace("tests/test_arms.py::test_{arm}", arm)))
        report = audit("mini.sched:Scheduler", root=tmp_path)
        got[arm] = {f.subject: f.status for f in report.declarations}.get("self.waiting")
    assert got == dict.fromkeys(got), (
        "docs/uniformity.md: a replica's arm is a pytest node id, checked to exist; a "
        "parametrized id (test[2]) and a class method (Class::test) name existing tests, yet "
        f"the self.waiting replica was reported {got}")
