"""docs/auto.md, *Verdicts*: with auto's default ``auto_wrong_failure_types`` (none) any owner
failure is a kill, a TypeError from an argument turned into None included; a test process
that dies is still WRONG_FAILURE; ``auto_wrong_failure_types = ["TypeError"]`` restores the
named-mutant strictness. Pure: the engine's ``decide`` with auto's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.mutants.auto.settings import AutoSettings
from deskcheck.mutants.verdicts import ItemResult, decide

OWNER = "tests/test_x.py::test_a"
AUTO_DEFAULT = AutoSettings(root=Path("."),
                            changed_since="main").wrong_failure_types


def failed(message: str, text: str = "", when: str = "call") -> ItemResult:
    return ItemResult(nodeid=OWNER, outcome="failed", message=message, text=text, when=when)


@pytest.mark.parametrize("result", [
    failed("TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'"),
    failed("AttributeError: 'NoneType' object has no attribute 'rid'"),
    failed("ImportError: cannot import name 'x'"),
    failed("deskcheck.errors.RankError: rank 1 failed", "rank 1: TypeError: bad operand"),
    failed("ValueError: fixture blew up", when="setup"),
], ids=["TypeError", "AttributeError", "ImportError", "RankError-TypeError", "setup"])
def test_any_owner_failure_kills_an_auto_mutant(result: ItemResult):
    verdict = decide([OWNER], [result], None, AUTO_DEFAULT)
    assert verdict.verdict == "KILLED", (
        "docs/auto.md: with auto_wrong_failure_types unset any owner failure counts as KILLED; "
        f"{result.message!r} ({result.when}) was judged {verdict.verdict}")


def test_a_dead_test_process_is_still_a_wrong_failure():
    verdict = decide([OWNER], [failed("ProcessCrash: the test process died")], None,
                     AUTO_DEFAULT)
    assert verdict.verdict == "WRONG_FAILURE", (
        "docs/auto.md: a test process that dies is still WRONG_FAILURE under auto; it was "
        f"judged {verdict.verdict}")


def test_auto_wrong_failure_types_restores_the_strictness():
    verdict = decide([OWNER], [failed("TypeError: bad operand")], None, ("TypeError",))
    assert verdict.verdict == "WRONG_FAILURE", (
        "docs/auto.md: auto_wrong_failure_types = ['TypeError'] makes a TypeError a wrong "
        f"failure again; it was judged {verdict.verdict}")
