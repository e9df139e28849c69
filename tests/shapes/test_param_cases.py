"""Issue 30, case 7: a branch that adds one case to a 13-case parametrize is judged on that
case, not on the 12 that were already there (and are green on base by construction)."""

from __future__ import annotations

import ast
import json

from deskcheck.cli import main
from deskcheck.gate.param_cases import changed_cases
from tests.gate.gitproject import GitProject

CASES = ", ".join(f'("{chr(97 + i)}", "{chr(97 + i)}")' for i in range(12))
TEST = '''
import pytest

from esc import escape


@pytest.mark.parametrize("given, wanted", [{cases}])
def test_escape(given, wanted):
    assert escape(given) == wanted
'''


def test_only_the_new_case_is_judged(tmp_path, monkeypatch) -> None:
    project = GitProject(tmp_path / "repo")
    project.write("pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    project.write("esc.py", "def escape(text):\n    return text\n")
    project.write("tests/test_escape.py", TEST.format(cases=CASES))
    project.commit("base")
    project.git("checkout", "-q", "-b", "feature")
    project.write("esc.py", "def escape(text):\n    return text.replace('\"', '\\\\\"')\n")
    project.write("tests/test_escape.py",
                  TEST.format(cases=CASES + ', pytest.param(\'"\', \'\\\\"\', id="quote")'))
    project.commit("escape the quote")
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    out = tmp_path / "r.json"
    code = main(["redfirst", "--base", "main", "--json", str(out)])
    report = json.loads(out.read_text())
    judged = {t["id"]: t["verdict"] for t in report["tests"]}
    assert judged == {"tests/test_escape.py::test_escape[quote]": "RED_GREEN"}, (
        f"the unchanged cases were judged too (they are green on base by construction): "
        f"{judged}")
    assert code == 0, (
        f"`redfirst --base main` must exit 0 when the new case is RED_GREEN; it exited {code}"
    )


def _function(source: str) -> ast.AST:
    return ast.parse(source).body[-1]


def test_cases_whose_ids_come_from_positions_are_judged_whole() -> None:
    base = _function(TEST.format(cases="(object(), 1)"))
    branch = _function(TEST.format(cases="(object(), 1), (object(), 2)"))
    assert changed_cases(base, branch) is None, "a case id made from its position is unstable"
    base = _function(TEST.format(cases=CASES))
    branch = _function(TEST.format(cases=CASES).replace("def test_escape(given, wanted):",
                                                        "def test_escape(given, wanted):\n"
                                                        "    print(given)"))
    assert changed_cases(base, branch) is None, "a body change judges the function whole"
    branch = _function(TEST.format(cases=CASES.replace('("c", "c")', '("c", "C")')))
    assert changed_cases(base, branch) == ["c-C"], "a changed case is judged by its new id"
