"""``deskcheck surface`` / ``drift`` / ``pointers``: output, JSON keys and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from deskcheck.cli import main
from tests.pythonpath import extended

SPEC = "dg_shop.scheduler:Scheduler.run_once"


def test_surface_json(shop_root, capsys):
    assert main(["surface", SPEC, "--root", str(shop_root), "--json"]) == 0, (
        "`deskcheck surface SPEC --root ROOT --json` must exit 0"
    )
    data = json.loads(capsys.readouterr().out)
    assert {"class", "roots", "methods", "reads", "writes", "elapsed_s"} <= set(data), (
        "`surface --json` must have the documented keys class, roots, methods, reads, writes, "
        f"elapsed_s; it has {sorted(data)}"
    )
    assert data["mode"] == "static" and data["roots"] == ["run_once"], (
        "`surface` of a spec must run in static mode from its root run_once; mode "
        f"{data['mode']!r}, roots {data['roots']}"
    )
    assert data["reads"]["base_reserved"][0]["path"][-1] == "BaseMixin.admit", (
        "a read's JSON path must end in the method that reads it (BaseMixin.admit); "
        f"base_reserved's first site is {data['reads']['base_reserved'][0]}"
    )


def test_surface_text_and_runtime_mode(shop_root, capsys):
    assert main(["surface", "dg_shop.scheduler:Scheduler", "--method", "run_once",
                 "--root", str(shop_root), "--runtime"]) == 0, (
        "`deskcheck surface CLASS --method run_once --runtime` must exit 0"
    )
    out = capsys.readouterr().out
    assert "(runtime): run_once" in out and "BaseMixin.admit" in out and "ps.tp_rank" in out, (
        "`surface --runtime` must print '(runtime): run_once' with its methods and reads; it "
        f"printed {out!r}"
    )


def test_surface_finds_an_installed_package_without_a_root(capsys):
    target = "tp_scheduler.scheduler:Scheduler._update_uniform_pool_budget"
    assert main(["surface", target, "--json"]) == 0, (
        f"`deskcheck surface {target} --json` of an installed package without --root must exit 0"
    )
    data = json.loads(capsys.readouterr().out)
    assert "tp_scheduler found installed at" in data["notes"][0], (
        "the JSON notes must say where the package was found ('tp_scheduler found installed at'); "
        f"notes: {data['notes']}"
    )
    assert [m.rsplit(":", 1)[-1] for m in data["mro"]] == [
        "Scheduler", "SchedulerBudgetMixin", "SchedulerBatchMixin", "builtins.object"], (
        f"the MRO of the installed Scheduler must be resolved; it is {data['mro']}"
    )
    assert "Scheduler.get_num_allocatable_reqs" in [m["name"] for m in data["methods"]], (
        "Scheduler.get_num_allocatable_reqs must be among the methods reached; they are "
        f"{[m['name'] for m in data['methods']]}"
    )


@pytest.mark.parametrize("argv, code, message", [
    (["surface", "dg_shop.scheduler:Scheduler.nope"], 2, "has no method or property 'nope'"),
    (["surface", "dg_broken.nobase:Scheduler.run"], 2, "cannot resolve base 'GoneMixin'"),
    (["surface", "dg_shop.scheduler:Scheduler"], 2, "no method named"),
])
def test_surface_errors_exit_2_with_the_reason(shop_root, broken_root, capsys, argv, code, message):
    argv = [*argv, "--root", str(shop_root), "--root", str(broken_root)]
    assert main(argv) == code, f"`deskcheck {' '.join(argv)}` must exit {code}"
    err = capsys.readouterr().err
    assert message in err, f"`deskcheck {' '.join(argv)}` must say {message!r}; it said {err!r}"


HARNESS_MODULE = '''
from dg_shop.scheduler import Scheduler
from deskcheck.harness import Harness, bind, state


class PoolHarness(Harness, model=Scheduler, roots=["get_num_allocatable_reqs"],
                  adopt=["pool_limit"]):
    get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)
'''


def _project(tmp_path: Path, shop_root: Path, extra_read: bool = False) -> Path:
    """A scratch project: a copy of dg_shop and a test module declaring a harness."""
    import shutil

    shutil.copytree(shop_root / "dg_shop", tmp_path / "dg_shop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if extra_read:
        sched = tmp_path / "dg_shop" / "scheduler.py"
        sched.write_text(sched.read_text().replace(
            "        return self.pool_limit - running_bs",
            "        return self.pool_limit - running_bs - self._something"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pool.py").write_text(HARNESS_MODULE)
    (tmp_path / "pyproject.toml").write_text('[tool.deskcheck]\nharnesses = ["tests"]\n')
    return tmp_path


def _drift(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": extended(project), "CUDA_VISIBLE_DEVICES": ""}
    code = "import sys; from deskcheck.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, "drift", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_drift_cli_holds_then_names_a_new_read_with_site_and_path(tmp_path, shop_root):
    clean = _drift(_project(tmp_path / "a", shop_root), "--json")
    assert clean.returncode == 0, clean.stderr
    data = json.loads(clean.stdout)
    assert data["ok"] and [g["key"] for g in data["guards"]] == ["test_pool:PoolHarness"], (
        "`drift --json` on a complete harness must be ok with the one guard "
        f"test_pool:PoolHarness; got {data}"
    )
    assert data["guards"][0]["can_fail"]["ok"], (
        f"the guard's can-fail arm must be ok; it is {data['guards'][0]['can_fail']}"
    )

    drifted = _drift(_project(tmp_path / "b", shop_root, extra_read=True))
    assert drifted.returncode == 1, (
        f"`drift` must exit 1 when production reads a new name; it exited {drifted.returncode}: "
        f"{drifted.stdout[-800:]}{drifted.stderr[-800:]}"
    )
    assert ("PoolHarness has drifted behind Scheduler.get_num_allocatable_reqs: ['_something']"
            in drifted.stdout), (
        f"the drift message must name the new read _something; stdout: {drifted.stdout[-1200:]!r}"
    )
    assert "dg_shop/scheduler.py:17 (path: Scheduler.get_num_allocatable_reqs)" in drifted.stdout, (
        "the drift message must give the read's site and path (dg_shop/scheduler.py:17 (path: "
        f"...)); stdout: {drifted.stdout[-1200:]!r}"
    )


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_drift_cli_without_any_harness_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.deskcheck]\nharnesses = ["tests"]\n')
    result = _drift(tmp_path)
    assert result.returncode == 2 and "no registered harness or stub found" in result.stderr, (
        "`drift` without any harness must exit 2 saying 'no registered harness or stub found'; it "
        f"exited {result.returncode}: {result.stderr[-600:]!r}"
    )


def test_pointers_cli(tmp_path, shop_root, capsys):
    doc = tmp_path / "notes.md"
    doc.write_text(textwrap.dedent("""\
        `update_budget` (mixins/budget.py:12) is fine; `_floors` at mixins/budget.py:12 is not.
    """))
    assert main(["pointers", str(doc), "--root", str(shop_root / "dg_shop"), "--json"]) == 1, (
        "`deskcheck pointers DOC --json` must exit 1 when a citation is stale"
    )
    data = json.loads(capsys.readouterr().out)
    assert data["checked"] == 2 and len(data["findings"]) == 1, (
        f"`pointers` must check the 2 citations and find 1 stale; got checked {data['checked']}, "
        f"findings {data['findings']}"
    )
    assert data["findings"][0]["symbol"] == "_floors", (
        "the stale citation is the one of _floors; the finding names "
        f"{data['findings'][0]['symbol']!r}"
    )
    assert "cite mixins/budget.py:26" in data["findings"][0]["fix"], (
        "the fix must give the symbol's current place ('cite mixins/budget.py:26'); it says "
        f"{data['findings'][0]['fix']!r}"
    )


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_drift_paths_are_searched_instead_of_the_config_and_no_can_fail_skips_the_arm(
        tmp_path, shop_root):
    project = _project(tmp_path, shop_root)
    (project / "elsewhere").mkdir()
    (project / "tests" / "test_pool.py").rename(project / "elsewhere" / "test_pool.py")
    found = _drift(project, "elsewhere", "--json", "--no-can-fail")
    assert found.returncode == 0, (
        "`deskcheck drift elsewhere` should find the harness in elsewhere/ although the "
        f"config names tests/: {found.stdout}{found.stderr}")
    (guard,) = json.loads(found.stdout)["guards"]
    assert guard["key"] == "test_pool:PoolHarness" and "can_fail" not in guard, (
        f"expected PoolHarness judged without its can-fail arm under --no-can-fail, got {guard}")
    with_arm = json.loads(_drift(project, "elsewhere", "--json").stdout)["guards"][0]
    assert with_arm["can_fail"]["ok"], f"without --no-can-fail the arm runs: {with_arm}"


def test_the_harnesses_key_is_searched_unless_paths_are_given(tmp_path):
    from deskcheck.config import load_config
    from deskcheck.drift_guard._discover import search_paths

    (tmp_path / "pyproject.toml").write_text('[tool.deskcheck]\nharnesses = ["guards"]\n'
                                             '[tool.pytest.ini_options]\ntestpaths = ["t"]\n')
    config = load_config(tmp_path)
    assert (search_paths(config), search_paths(config, ["other"])) == (["guards"], ["other"]), (
        "expected [tool.deskcheck] harnesses searched (not pytest's testpaths), and the "
        "command's paths searched instead of it")
