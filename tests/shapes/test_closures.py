"""Issue 30, case 4: mutants inside functions a decorator or a class body builds (closures made
before any test runs) must run in the tests, or be judged NOT_INJECTABLE: never SURVIVED.

Each shape changes one comparison on the branch; the tests check that comparison exactly, so
every mutant of that line fails a test on disk.
"""

from __future__ import annotations

import pytest

from tests.realprojects.project import make_project, run_json

VERSION = '''\
def comparisons(cls):
    """Give ``cls`` ordering from its ``key()`` (built once, when the class is defined)."""

    def __lt__(self, other):
        return self.key() < other.key()

    def __eq__(self, other):
        return self.key() == other.key()

    cls.__lt__ = __lt__
    cls.__eq__ = __eq__
    cls.__hash__ = None
    return cls


def _compare(sign):
    def compare(self, other):
        return (self.key() > other.key()) - (self.key() < other.key()) == sign
    return compare


@comparisons
class Version:
    def __init__(self, text):
        self.text = text

    def key(self):
        return tuple(int(p) for p in self.text.split("."))

    is_newer = _compare(1)
    is_older = _compare(-1)


def logged(function):
    def wrapper(*args):  # no functools.wraps: the module name holds the wrapper
        return function(*args)
    return wrapper


@logged
def newest(a, b):
    return "first" if b < a else "second"
'''

TESTS = '''\
from userpkg.version import Version, newest


def test_ordering():
    assert Version("1.2") < Version("1.10")
    assert not (Version("1.2") < Version("1.2"))
    assert Version("1.2") == Version("1.2")
    assert not (Version("1.2") == Version("1.3"))


def test_is_newer():
    assert Version("2.0").is_newer(Version("1.9"))
    assert not Version("1.9").is_newer(Version("1.9"))
    assert not Version("1.0").is_newer(Version("1.9"))
    assert Version("1.0").is_older(Version("1.9"))
    assert not Version("1.9").is_older(Version("1.9"))


def test_newest():
    assert newest(1, 2) == "second"
    assert newest(2, 1) == "first"
    assert newest(1, 1) == "second"
'''


def _base(text: str) -> str:
    return (text.replace("return self.key() < other.key()", "return not self.key() >= other.key()")
            .replace("return self.key() == other.key()", "return not self.key() != other.key()")
            .replace("== sign", "== sign and True")
            .replace('return "first" if b < a else', 'return "first" if not b >= a else'))


@pytest.fixture(scope="module")
def closures_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    root = tmp_path_factory.mktemp("closures") / "proj"
    make_project(root, {"userpkg/version.py": _base(VERSION), "tests/test_version.py": TESTS},
                 {"userpkg/version.py": VERSION})
    done, report = run_json(root, "sweep", "--auto", "--changed-since", "main", "--no-store",
                            "--workers", "1", "--max-per-line", "3")
    return done.stdout + done.stderr, report


@pytest.mark.parametrize("line", ["return self.key() < other.key()",
                                  "return self.key() == other.key()",
                                  "== sign",
                                  'return "first" if b < a else "second"'])
def test_no_closure_mutant_survives(closures_report: tuple[str, dict], line: str) -> None:
    output, report = closures_report
    found = {m["id"]: (m["verdict"], m.get("excerpt", "")) for m in report["mutants"]
             if line in (m.get("diff") or "")}
    assert found, f"no mutant of the changed line {line!r}:\\n{output}"
    wrong = {k: v for k, v in found.items() if v[0] not in ("KILLED", "NOT_INJECTABLE")}
    assert not wrong, (f"mutants of {line!r} inside a closure built before the tests ran were "
                       f"judged {wrong}; on disk the tests fail\\n{output}")
    for verdict, excerpt in found.values():
        assert verdict != "NOT_INJECTABLE" or excerpt, "NOT_INJECTABLE must say why"


CLOSURE_CATALOG = '''\
[[mutant]]
id = "scale.factor_dropped"
title = "the class-body closure forgets its factor"
target = "userpkg.box:scaled_by"
operator = "replace"
old = "return x * factor"
new = "return x * 2"
owners = ["tests/test_box.py"]

[[mutant]]
id = "scale.added_not_multiplied"
title = "the class-body closure adds instead of multiplying"
target = "userpkg.box:scaled_by"
operator = "replace"
old = "return x * factor"
new = "return x + factor"
owners = ["tests/test_box.py"]
'''


def test_a_catalog_mutant_of_a_built_closure_is_killed_or_not_injectable(tmp_path) -> None:
    root = make_project(tmp_path / "proj", {
        "userpkg/box.py": "def scaled_by(factor):\n    def scale(x):\n        return x * factor\n"
                          "    return scale\n\n\nclass Box:\n"
                          "    triple = staticmethod(scaled_by(3))\n",
        "tests/test_box.py": "from userpkg.box import Box\n\n\ndef test_triple():\n"
                             "    assert Box.triple(5) == 15\n",
        "mutants.toml": CLOSURE_CATALOG})
    done, report = run_json(root, "sweep", "--catalog", "mutants.toml", "--no-store",
                            "--workers", "1")
    verdicts = {m["id"]: (m["verdict"], m.get("excerpt") or "") for m in report["mutants"]}
    assert verdicts["scale.added_not_multiplied"][0] == "KILLED", (
        f"the mutant of a closure built in a class body did not run: {verdicts}")
    verdict, excerpt = verdicts["scale.factor_dropped"]
    assert verdict == "NOT_INJECTABLE" and "free variables ('factor',) -> ()" in excerpt, (
        f"a mutant the live closure cannot take must be NOT_INJECTABLE with the reason, got "
        f"{verdict}: {excerpt}\n{done.stdout}")
