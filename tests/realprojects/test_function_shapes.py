"""Issue 14, case 2: the mutant's source is located exactly for every function shape.

An auto mutant in a method with a multi-line docstring was STALE with nothing changed (the
method's text was compared dedented, docstring and all, against the generated one). Every
shape below changes one comparison on the branch; its test kills every mutant of that line,
so each verdict must be KILLED, never STALE.
"""

from __future__ import annotations

import pytest

from tests.realprojects.project import make_project, run_json

SHAPES = '''\
import functools


def module_doc(x, hi):
    """Clamp.

    Multi-line docstring of a module function.
    """
    return "low" if x < hi else "high"


class Box:
    def method_doc(self, x, hi):
        """Clamp.

        Multi-line docstring of a method.
        """
        return "low" if x < hi else "high"

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def decorated(x, hi):
        """Decorated, with a docstring
        on two lines."""
        return "low" if x < hi else "high"

    class Inner:
        def nested(self, x, hi):
            """Nested class.

            Its method's docstring is indented twice.
            """
            return "low" if x < hi else "high"
'''
TABS = 'class Tabbed:\n\tdef clamp(self, x, hi):\n\t\t"""Tabs.\n\n\t\tIndented with tabs.\n\t\t"""\n\t\treturn "low" if x < hi else "high"\n'
CRLF = 'class Crlf:\r\n    def clamp(self, x, hi):\r\n        """CRLF.\r\n\r\n        Windows line ends.\r\n        """\r\n        return "low" if x < hi else "high"\r\n'
TESTS = '''\
from userpkg.crlf import Crlf
from userpkg.shapes import Box, module_doc
from userpkg.tabs import Tabbed


def _check(clamp):
    assert clamp(3, 5) == "low"
    assert clamp(5, 5) == "high"
    assert clamp(7, 5) == "high"


def test_module_doc():
    _check(module_doc)


def test_method_doc():
    _check(Box().method_doc)


def test_decorated():
    _check(Box.decorated)


def test_nested():
    _check(Box.Inner().nested)


def test_tabs():
    _check(Tabbed().clamp)


def test_crlf():
    _check(Crlf().clamp)
'''


def _base(text: str) -> str:
    return text.replace('return "low" if x < hi else "high"', 'return "low" if x <= hi - 1 else "high"')


@pytest.fixture(scope="module")
def shapes_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    root = tmp_path_factory.mktemp("shapes") / "proj"
    base = {"userpkg/shapes.py": _base(SHAPES), "userpkg/tabs.py": _base(TABS),
            "userpkg/crlf.py": _base(CRLF), "tests/test_shapes.py": TESTS}
    branch = {"userpkg/shapes.py": SHAPES, "userpkg/tabs.py": TABS, "userpkg/crlf.py": CRLF}
    make_project(root, base, branch)
    assert b"\r\n" in (root / "userpkg/crlf.py").read_bytes(), "the CRLF file keeps CRLF"
    done, report = run_json(root, "sweep", "--auto", "--changed-since", "main", "--no-store",
                            "--workers", "2", "--max-per-line", "2")
    return done.stdout + done.stderr, report


@pytest.mark.parametrize("target", [
    "userpkg.shapes:module_doc", "userpkg.shapes:Box.method_doc", "userpkg.shapes:Box.decorated",
    "userpkg.shapes:Box.Inner.nested", "userpkg.tabs:Tabbed.clamp", "userpkg.crlf:Crlf.clamp"])
def test_every_shape_is_located_exactly(shapes_report: tuple[str, dict], target: str) -> None:
    output, report = shapes_report
    found = {m["id"]: m["verdict"] for m in report["mutants"] if m["target"] == target}
    assert found, f"no mutant of the changed line of {target}:\n{output}"
    assert set(found.values()) == {"KILLED"}, (
        f"{target}: nothing changed since generation, so no mutant is STALE and each is "
        f"killed by its test; got {found}\n{output}")
