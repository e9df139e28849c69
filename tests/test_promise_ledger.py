"""The promise ledger (tests/promises.toml) names a real test for every option of every
``deskcheck ... --help``, every ``[tool.deskcheck]`` key and every pytest-plugin option, and
nothing else; and the check can fail, each way, with the promise named."""

from __future__ import annotations

from pathlib import Path

from tests import promise_ledger as ledger


def test_every_promise_has_a_ledger_entry_naming_tests_that_exist():
    found = ledger.promises()
    problems = ledger.problems(ledger.load(), found)
    assert not problems, ("the promise ledger (tests/promises.toml) and the code disagree:\n"
                          + "\n".join(problems))


def test_the_promises_are_read_from_the_code():
    found = ledger.promises()
    for section, known in (("cli", "deskcheck sweep --catalog"),
                           ("cli", "deskcheck mutants run <id>"),
                           ("cli", "deskcheck suites doctor --pg-timeout"),
                           ("config", "catalog"), ("config", "uniformity.roots"),
                           ("pytest", "--deskcheck-pg-timeout"),
                           ("pytest", "ini deskcheck_drift_items")):
        assert known in found[section], f"{known!r} was not found among the {section} promises"
    assert not any("--help" in name for name in found["cli"]), "--help is not a promise"


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "def test_one():\n    pass\n\nclass TestGroup:\n    def test_two(self):\n        pass\n")
    return tmp_path


def test_a_promise_without_an_entry_is_named(tmp_path):
    found = {"cli": {"deskcheck x --new"}, "config": set(), "pytest": set()}
    problems = ledger.problems({"cli": {}, "config": {}, "pytest": {}}, found, _repo(tmp_path))
    assert problems == ["[cli] 'deskcheck x --new' has no ledger entry: add it to "
                        "tests/promises.toml with the test(s) that fail when it is ignored"], (
        f"expected the option without an entry to be named, got {problems}")


def test_an_entry_for_a_promise_that_is_gone_is_named(tmp_path):
    found = {"cli": set(), "config": set(), "pytest": set()}
    entries = {"cli": {}, "config": {"old_key": ["tests/test_a.py::test_one"]}, "pytest": {}}
    problems = ledger.problems(entries, found, _repo(tmp_path))
    assert problems == ["[config] 'old_key' is in the ledger but no longer exists: remove its "
                        "entry"], f"expected the stale key to be named, got {problems}"


def test_an_entry_whose_test_does_not_exist_is_named(tmp_path):
    found = {"cli": set(), "config": set(), "pytest": {"--opt"}}
    tests = ["tests/test_a.py::test_one", "tests/test_a.py::TestGroup::test_two[case-1]",
             "tests/test_a.py::test_gone", "tests/test_a.py::TestGroup::test_gone",
             "tests/test_missing.py::test_one", "tests/selfproof/test_x.py::test_y"]
    problems = ledger.problems({"cli": {}, "config": {}, "pytest": {"--opt": tests}}, found,
                               _repo(tmp_path))
    assert problems == [
        "[pytest] '--opt': tests/test_a.py::test_gone tests/test_a.py defines no function "
        "test_gone",
        "[pytest] '--opt': tests/test_a.py::TestGroup::test_gone tests/test_a.py defines no "
        "class TestGroup with a method test_gone",
        "[pytest] '--opt': tests/test_missing.py::test_one names a file that does not exist: "
        "tests/test_missing.py",
        "[pytest] '--opt': tests/selfproof/test_x.py::test_y is under tests/selfproof/, whose "
        "tests are being folded into tests/<part>/"], (
        f"expected exactly the four test ids that name no test here, got {problems}")


def test_an_entry_without_tests_is_named(tmp_path):
    found = {"cli": set(), "config": {"k"}, "pytest": set()}
    problems = ledger.problems({"cli": {}, "config": {"k": []}, "pytest": {}}, found,
                               _repo(tmp_path))
    assert problems == ["[config] 'k' must list at least one test id"], problems
