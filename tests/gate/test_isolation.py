"""The base side runs the base commit's code, whatever sys.path says, or the gate says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import GateError
from deskcheck.gate import run_redfirst
from deskcheck.gate.redirect import Redirect, SideFinder
from tests.gate.scenario import build

pytestmark = pytest.mark.xdist_group("gate-isolation")

SUB_FIXED = "tests/test_ops.py::test_sub_is_fixed"


def test_branch_package_first_on_sys_path_and_preloaded_still_loses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like an editable install: the branch's ``calc`` is on PYTHONPATH and is imported
    (as a plugin, before the probe plugin loads); the base side must still run the base's."""
    project = build(tmp_path / "repo")
    project.write("tests/test_site.py", "import builtins\n\n\ndef test_user_site():\n"
                  "    assert builtins.USER_SITECUSTOMIZE_RAN\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import builtins\nbuiltins.USER_SITECUSTOMIZE_RAN = 1\n")
    monkeypatch.setenv("PYTHONPATH", f"{site}:{project.root}")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p calc.ops")
    report = run_redfirst("main", ["tests/test_ops.py", "tests/test_site.py"], cwd=project.root)
    verdicts = {t.id: t.verdict for t in report.tests}
    assert verdicts[SUB_FIXED] == "RED_GREEN", (
        "the base side must run the base's wrong sub() (RED_GREEN) though the branch's calc is "
        f"preloaded; verdict {verdicts[SUB_FIXED]}"
    )  # the base's wrong sub() is what ran
    assert verdicts["tests/test_site.py::test_user_site"] == "GREEN_ON_BASE", (
        "the user's sitecustomize must run on the base side (GREEN_ON_BASE); verdict "
        f"{verdicts['tests/test_site.py::test_user_site']}"
    )  # user's site ran
    base = report.sides["base"]["isolation"]
    assert base["violations"] == {}, (
        f"the base side must load no branch code; violations {base['violations']}"
    )
    assert all("/base/calc/" in f for f in base["sample"].values()), (
        f"the base side must load calc from the base worktree; it loaded {base['sample']}"
    )


def test_code_loaded_around_the_redirect_fails_the_gate_loudly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A conftest that loads the branch's module by file path defeats any sys.path ordering:
    the __file__ audit must catch it instead of reporting a false verdict."""
    project = build(tmp_path / "repo")
    project.write("tests/conftest.py", """
        import importlib.util
        import sys
        from pathlib import Path

        _path = Path(__file__).parent.parent / "calc" / "ops.py"
        _spec = importlib.util.spec_from_file_location("calc.ops", _path)
        _module = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_module)
        sys.modules["calc.ops"] = _module
        """)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with pytest.raises(GateError) as err:
        run_redfirst("main", cwd=project.root)
    assert "did not run the base commit's code" in err.value.message, (
        "code loaded around the redirect must fail the gate saying it did not run the base "
        f"commit's code; it says {err.value.message!r}"
    )
    assert "calc.ops: " + str(project.root / "calc" / "ops.py") in err.value.message, (
        "the gate error must name the module and the file it came from, calc.ops: <branch path>; "
        f"it says {err.value.message!r}"
    )
    assert project.git("worktree", "list", "--porcelain").count("worktree ") == 1, (
        "the failed gate must remove its scratch worktree; worktrees: "
        f"{project.git('worktree', 'list', '--porcelain')}"
    )


def test_a_conftest_that_cannot_import_on_base_is_weak_red(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = build(tmp_path / "repo")
    project.write("tests/conftest.py", "import calc.square  # new on the branch\n")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    report = run_redfirst("main", ["tests/test_ops.py"], cwd=project.root)
    verdicts = {t.id: (t.verdict, t.base) for t in report.tests}
    assert verdicts[SUB_FIXED] == ("WEAK_RED", "collection_error"), (
        "a conftest that cannot import on base must make a WEAK_RED with base collection_error; "
        f"it gave {verdicts[SUB_FIXED]}"
    )
    assert verdicts["tests/test_ops.py::test_broken_on_branch"][0] == "RED_ON_BRANCH", (
        "a test red on the branch must be RED_ON_BRANCH; it is "
        f"{verdicts['tests/test_ops.py::test_broken_on_branch']}"
    )


def test_a_name_absent_from_the_side_is_not_found_rather_than_borrowed(tmp_path: Path) -> None:
    (tmp_path / "present.py").write_text("X = 1\n")
    finder = SideFinder("base", {"present": str(tmp_path), "added_on_branch": None})
    assert finder.find_spec("present").origin == str(tmp_path / "present.py"), (
        f"the side finder must find present.py in its side; it found {finder.find_spec('present')}"
    )
    assert finder.find_spec("json") is None, (
        "the side finder must leave a non-production module (json) to the normal finders (None)"
    )  # not production: left to the normal finders
    with pytest.raises(ModuleNotFoundError, match="added_on_branch.*base commit"):
        finder.find_spec("added_on_branch")


SUBPROCESS_TEST = """
import subprocess
import sys
from pathlib import Path


def test_sub_in_a_subprocess():
    # cwd = the branch tree: `python -c` puts it first on sys.path, ahead of PYTHONPATH
    out = subprocess.run([sys.executable, "-c", "from calc.ops import sub; print(sub(5, 3))"],
                         cwd=Path(__file__).parents[1], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "2"
"""


def test_python_subprocesses_of_the_tests_run_the_base_code_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = build(tmp_path / "repo")
    project.write("tests/test_subprocess.py", SUBPROCESS_TEST)
    project.commit("a test that checks the fix in a subprocess")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    report = run_redfirst("main", ["tests/test_subprocess.py"], cwd=project.root)
    assert [(t.verdict, t.base) for t in report.tests] == [("RED_GREEN", "failed")], (
        "a test checking the fix in a subprocess must be RED_GREEN with base failed; it gave "
        f"{[(t.verdict, t.base) for t in report.tests]}"
    )
    base = report.sides["base"]["isolation"]
    assert base["processes"] == 2, (
        "the base side must audit 2 processes (pytest child and the test's subprocess); it "
        f"audited {base['processes']}"
    )  # the pytest child and the test's own subprocess
    assert base["violations"] == {}, (
        f"the subprocess on the base side must load no branch code; violations {base['violations']}"
    )


def test_modules_imported_before_the_redirect_are_purged(tmp_path: Path) -> None:
    branch, base = tmp_path / "branch", tmp_path / "base"
    for tree, value in ((branch, "branch"), (base, "base")):
        (tree / "gate_probe_pkg").mkdir(parents=True)
        (tree / "gate_probe_pkg" / "__init__.py").write_text(f"SIDE = {value!r}\n")
    import sys
    sys.path.insert(0, str(branch))
    redirect = None
    try:
        import gate_probe_pkg
        assert gate_probe_pkg.SIDE == "branch", (
            "the probe package must first be imported from the branch; SIDE is "
            f"{gate_probe_pkg.SIDE!r}"
        )
        redirect = Redirect({"side": "base", "side_root": str(base), "out_dir": str(tmp_path),
                             "modules": {"gate_probe_pkg": str(base)}})
        assert redirect.purged == ["gate_probe_pkg"], (
            "the redirect must purge the already imported gate_probe_pkg; it purged "
            f"{redirect.purged}"
        )
        import gate_probe_pkg as again
        assert again.SIDE == "base", (
            f"after the purge gate_probe_pkg must come from the base; SIDE is {again.SIDE!r}"
        )  # though the branch's folder is first on sys.path
        assert redirect.audit()["violations"] == {}, (
            "the audit must see no violation after the purge; it saw "
            f"{redirect.audit()['violations']}"
        )
        sys.modules["gate_probe_pkg"] = gate_probe_pkg  # smuggle the branch's copy back in
        assert redirect.audit()["violations"] == {"gate_probe_pkg": str(
            branch / "gate_probe_pkg" / "__init__.py")}, (
            "the audit must catch the branch copy smuggled back into sys.modules; it saw "
            f"{redirect.audit()['violations']}"
        )
    finally:
        sys.path.remove(str(branch))
        sys.modules.pop("gate_probe_pkg", None)
        if redirect is not None:
            sys.meta_path.remove(redirect.finder)
