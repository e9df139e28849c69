"""docs/gate.md: every process records each imported production module's ``__file__``; if
any is outside the side's tree the gate stops with a ``GateError`` naming the module and file
instead of reporting a verdict. Pure checks of the audit on hand-made side results."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import GateError
from deskcheck.gate.runner import SideResult, SideSpec, _assert_isolated


def _spec(tmp_path: Path) -> SideSpec:
    return SideSpec(side="base", label="base", code_root=tmp_path / "base",
                    tests_root=tmp_path, modules={"calc": str(tmp_path / "base")}, paths=[])


def _audit(violations: dict[str, str], finder_active: bool = True) -> dict:
    return {"process": 101, "finder_active": finder_active, "purged": [],
            "loaded": {"calc.ops": "/base/calc/ops.py"}, "violations": violations}


def _stopped(spec: SideSpec, result: SideResult) -> str:
    """What the audit's GateError says; "(not stopped)" when the side passed the audit."""
    try:
        _assert_isolated(spec, result)
    except GateError as error:
        return error.render()
    return "(not stopped)"


def test_a_module_from_the_other_tree_stops_the_gate_naming_module_and_file(tmp_path):
    result = SideResult("base", 0, {}, [], None,
                        audits=[_audit({}), _audit({"calc.ops": "/branch/calc/ops.py"})])
    said = _stopped(_spec(tmp_path), result)
    assert "calc.ops: /branch/calc/ops.py" in said, (
        f"docs/gate.md: a production module imported from outside the side's tree stops the "
        f"gate with a GateError naming the module and file; it said {said!r}")


def test_a_side_whose_every_module_came_from_its_tree_passes_the_audit(tmp_path):
    result = SideResult("base", 0, {}, [], None, audits=[_audit({}), _audit({})])
    said = _stopped(_spec(tmp_path), result)
    assert said == "(not stopped)", (
        f"a side whose every production module came from its own tree must be judged; the "
        f"audit stopped it: {said!r}")


@pytest.mark.parametrize("audits", [[], [_audit({}, finder_active=False)]],
                         ids=["no process reported", "redirect not installed"])
def test_a_side_with_no_audit_or_no_redirect_is_never_judged(tmp_path, audits):
    result = SideResult("base", 0, {}, [], None, audits=audits)
    said = _stopped(_spec(tmp_path), result)
    assert "did not run the base commit's code" in said, (
        f"a side that cannot prove where its code came from must not be judged; it said "
        f"{said!r}")
