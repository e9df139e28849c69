"""Issue 14, case 7: gates on ordinary histories (found on pluggy and more-itertools).

- a project pytest itself imports (pluggy) at a base older than the installed pytest needs:
  the probe must load without pytest's ``-p`` machinery (``PluginManager.unblock``);
- ``--json`` is written on every exit path, the usage error (2) included;
- a production change with no test change is said ("production changed, no test changed"),
  exit 0 unless ``--require-tests``;
- a test-only change (production identical at base and branch) is its own verdict and holds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest

from tests.gate.gitproject import GIT_IDENTITY, GitProject

PYPROJECT = """\
[tool.pytest.ini_options]
testpaths = ["tests"]
"""


def _gate(root: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = root.parent / "gate.json"
    out.unlink(missing_ok=True)
    env = {**os.environ, **GIT_IDENTITY, "CUDA_VISIBLE_DEVICES": ""}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "deskcheck.cli", *args, "--json", str(out)],
                          cwd=root, capture_output=True, text=True, timeout=600, env=env)
    assert out.is_file(), (f"{' '.join(args)} wrote no --json (exit {done.returncode})\n"
                           f"{done.stdout}\n{done.stderr}")
    return done, json.loads(out.read_text(encoding="utf-8"))


def _without_unblock(source: str) -> str:
    return re.sub(r"\n    def unblock\(self.*?\n(?=    def )", "\n", source, flags=re.S)


def test_a_project_pytest_itself_imports_is_judged_at_an_old_base(tmp_path: Path) -> None:
    installed = Path(pluggy.__file__).parent
    project = GitProject(tmp_path / "pluggy")
    project.write("pyproject.toml", PYPROJECT)
    for path in sorted(installed.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "_manager.py":
            text = _without_unblock(text)
            assert "def unblock" not in text, "the base lacks PluginManager.unblock"
        (project.root / "src" / "pluggy").mkdir(parents=True, exist_ok=True)
        (project.root / "src" / "pluggy" / path.name).write_text(text, encoding="utf-8")
    project.write("tests/test_block.py", """
        import pluggy

        def test_block():
            pm = pluggy.PluginManager("x")
            pm.set_blocked("a")
            assert pm.is_blocked("a")
        """)
    project.commit("base: a pluggy without unblock")
    project.git("checkout", "-q", "-b", "feature")
    (project.root / "src" / "pluggy" / "_manager.py").write_text(
        (installed / "_manager.py").read_text(encoding="utf-8"), encoding="utf-8")
    project.write("tests/test_unblock.py", """
        import pluggy

        def test_unblock():
            pm = pluggy.PluginManager("x")
            pm.set_blocked("a")
            assert pm.unblock("a")
        """)
    project.commit("feature: unblock")
    done, report = _gate(project.root, "redfirst", "--base", "main")
    output = done.stdout + done.stderr
    assert "has no attribute 'unblock'" not in output, (
        f"pytest's -p machinery ran on the base's pluggy:\n{output}")
    verdicts = {t["id"]: t["verdict"] for t in report.get("tests", [])}
    assert verdicts == {"tests/test_unblock.py::test_unblock": "RED_GREEN"}, (
        f"the new test is red on the base's pluggy and green on the branch:\n{output}")
    assert done.returncode == 0, output


@pytest.fixture
def small(tmp_path: Path) -> GitProject:
    project = GitProject(tmp_path / "repo")
    project.write("pyproject.toml", PYPROJECT + 'pythonpath = ["."]\n')
    project.write("pkg/__init__.py", "")
    project.write("pkg/calc.py", """
        def add(a, b):
            return a + b
        """)
    project.write("tests/test_calc.py", """
        from pkg.calc import add

        def test_add():
            assert add(1, 2) == 3
        """)
    project.commit("base")
    project.git("checkout", "-q", "-b", "feature")
    return project


def test_json_is_written_on_a_usage_error(small: GitProject) -> None:
    done, report = _gate(small.root, "redfirst", "--base", "no-such-ref")
    assert done.returncode == 2, done.stderr
    assert report["exit_code"] == 2 and report["holds"] is False, report
    assert "no-such-ref" in report["error"]["message"], (
        f"the JSON carries the error that ended the gate: {report}")


def test_a_production_change_without_a_test_change_is_said(small: GitProject) -> None:
    small.write("pkg/calc.py", """
        def add(a, b):
            return b + a
        """)
    small.commit("production only")
    markdown = small.root.parent / "gate.md"
    done, report = _gate(small.root, "redfirst", "--base", "main", "--markdown", str(markdown))
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"an untested change is said, not failed, by default:\n{output}"
    assert report["untested_production_change"] == ["pkg/calc.py"], report
    for where, text in (("terminal", done.stdout), ("Markdown", markdown.read_text())):
        assert "production changed, no test changed" in text, f"{where} says it:\n{text}"
    done, report = _gate(small.root, "redfirst", "--base", "main", "--require-tests")
    assert done.returncode == 1 and report["exit_code"] == 1, (
        f"--require-tests fails an untested production change:\n{done.stdout}")


def test_a_test_only_change_is_its_own_verdict_and_holds(small: GitProject) -> None:
    small.write("tests/test_calc.py", """
        import pytest

        from pkg.calc import add

        @pytest.mark.parametrize(("a", "b", "total"), [(1, 2, 3), (2, 2, 4)])
        def test_add(a, b, total):
            assert add(a, b) == total
        """)
    small.commit("test refactor")
    done, report = _gate(small.root, "redfirst", "--base", "main")
    output = done.stdout + done.stderr
    verdicts = {t["id"]: t["verdict"] for t in report["tests"]}
    assert verdicts and set(verdicts.values()) == {"TEST_ONLY"}, (
        f"production is identical at base and branch: the changed tests are a test-only "
        f"change, not GREEN_ON_BASE:\n{output}")
    assert done.returncode == 0, output
