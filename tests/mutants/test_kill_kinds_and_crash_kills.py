"""What a kill proves (docs/mutants.md, *What a kill proves*) and the ``[sweep] crash_kills``
setting that acts on it, as pure rules: a flipped uniformity audit is an assertion, an
``...AssertionError`` subclass or a bare ``assert`` message is an assertion, a message with no
exception is an error named 'failure', a rank error whose text holds a crash (and no
assertion) is that crash; ``crash_kills`` is read from the catalog ("hold" or "fall-short",
anything else named at its line), and "fall-short" moves the crash-only killers to
``wrong_owners``."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog
from deskcheck.mutants.verdicts import ItemResult, crash_kills_rule, decide, kill_kind
from tests.owner_files import write_placeholder_owners

WRONG = ("ImportError", "ModuleNotFoundError")


def failed(nodeid: str, message: str, text: str = "") -> ItemResult:
    return ItemResult(nodeid=nodeid, outcome="failed", message=message, text=text)


@pytest.mark.parametrize(("result", "kind"), [
    (failed("uniformity:tp.sched:decide", "RuntimeError: claim broken"),
     ("assertion", "uniformity audit")),
    (failed("t::a", ""), ("error", "failure")),
    (failed("t::a", "pkg.errors.BudgetAssertionError: over"),
     ("assertion", "BudgetAssertionError")),
    (failed("t::a", "assert 1 == 2"), ("assertion", "failure")),
    (failed("t::a", "RuntimeError: assertion of the budget"), ("error", "RuntimeError")),
    (failed("t::a", "RankError: rank 1 failed", "rank 1: TypeError: bad operand"),
     ("crash", "TypeError")),
    (failed("t::a", "RankError: rank 1 failed",
            "rank 1: TypeError: bad operand\nrank 0: AssertionError: diverged"),
     ("error", "RankError")),
    (failed("t::a", "RankError: rank 1 failed", "rank 1: RuntimeError: gone"),
     ("error", "RankError")),
])
def test_what_a_kill_proves(result: ItemResult, kind: tuple[str, str]) -> None:
    got = kill_kind(result, None)
    assert got == kind, (
        f"a kill by {result.nodeid} with {result.message!r} (text {result.text!r}) proves "
        f"{kind}; it was read as {got}")


def test_an_expected_failure_is_an_assertion_kill() -> None:
    verdict = decide(["t::a"], [failed("t::a", "TypeError: budget 3 over")], "budget", WRONG)
    assert (verdict.verdict, verdict.kill_kind, verdict.kill_reason) == (
        "KILLED", "assertion", "expect"), (
        f"a kill that matches the mutant's expect is the assertion it names, even by a "
        f"TypeError: got {verdict.verdict}, {verdict.kill_kind}, {verdict.kill_reason}")


def test_fall_short_moves_the_crash_only_killers_to_the_wrong_owners() -> None:
    verdict = decide(["t::a", "t::b"], [failed("t::a", "TypeError: bad"),
                                        failed("t::b", "AttributeError: gone")], None, WRONG)
    ruled = crash_kills_rule(verdict, "fall-short")
    assert (ruled.killed_by, ruled.wrong_owners) == ([], ["t::a", "t::b"]), (
        f"under crash_kills = \"fall-short\" a crash-only kill has no killer left and its "
        f"crashing owners are the wrong owners: killed_by {ruled.killed_by}, wrong_owners "
        f"{ruled.wrong_owners}")


CATALOG = '''\
[sweep]
tests = ["tests"]
{line}
[[mutant]]
id = "m"
title = "t"
target = "pkg.mod:func"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y"]
'''


@pytest.mark.parametrize(("line", "value"), [("", "hold"), ('crash_kills = "hold"', "hold"),
                                             ('crash_kills = "fall-short"', "fall-short")])
def test_crash_kills_is_read_from_the_catalog(tmp_path: Path, line: str, value: str) -> None:
    (tmp_path / "mutants.toml").write_text(CATALOG.format(line=line), encoding="utf-8")
    write_placeholder_owners(tmp_path)
    got = load_catalog(tmp_path / "mutants.toml").settings.crash_kills
    assert got == value, f"[sweep] {line or '(no crash_kills)'} was read as {got!r}"


def test_a_crash_kills_value_other_than_hold_or_fall_short_is_named_at_its_line(
        tmp_path: Path) -> None:
    path = tmp_path / "mutants.toml"
    path.write_text(CATALOG.format(line='crash_kills = "never"'), encoding="utf-8")
    write_placeholder_owners(tmp_path)
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    got = [(str(e.location).rpartition(":")[2], e.message, e.fix) for e in caught.value.errors]
    assert got == [("3", "[sweep] crash_kills = 'never': must be \"hold\" or \"fall-short\"",
                    'crash_kills = "fall-short" (a kill only by a TypeError/AttributeError/'
                    'NameError then falls short)')], (
        f"a crash_kills value that is neither 'hold' nor 'fall-short' must be the one problem, "
        f"at its line (3) with the fix; got {got}")


def test_a_catalog_that_is_not_utf8_is_a_catalog_error(tmp_path: Path) -> None:
    path = tmp_path / "mutants.toml"
    path.write_bytes(b'[sweep]\ntests = "t\xff"\n')
    with pytest.raises(CatalogError):
        load_catalog(path)


@pytest.mark.parametrize(("message", "kind"), [
    ("TypeError: 'NoneType' object is not subscriptable", ("crash", "TypeError")),
    ("AttributeError: 'NoneType' object has no attribute 'rid'", ("crash", "AttributeError")),
    ("NameError: name 'floor' is not defined", ("crash", "NameError")),
    ("UnboundLocalError: cannot access local variable 'admit'", ("crash", "UnboundLocalError")),
    ("ValueError: too many values to unpack", ("error", "ValueError")),
    ("KeyError: 'rid-3'", ("error", "KeyError")),
])
def test_only_the_four_documented_crash_types_make_a_crash_kill(message: str,
                                                                 kind: tuple[str, str]) -> None:
    got = kill_kind(failed("t::a", message), None)
    assert got == kind, (
        "docs/mutants.md: a kill 'only by a crash' is a TypeError, AttributeError, NameError or "
        f"UnboundLocalError, any other exception 'an error the code raised'; {message!r} was "
        f"read as {got}, not {kind}")


def test_with_an_expect_every_kill_proves_the_same_and_the_first_is_shown() -> None:
    verdict = decide(["t::a", "t::b"], [failed("t::a", "RuntimeError: budget 3 over"),
                                        failed("t::b", "AssertionError: budget 3 over")],
                     "budget", WRONG)
    assert verdict.excerpt.startswith("t::a: RuntimeError"), (
        "with an expect, every owner failure that matches it is the expected assertion: no "
        "kill is stronger than another, so the first kill (t::a) is the one shown; the "
        f"excerpt shows {verdict.excerpt.splitlines()[0]!r}")
