"""`deskcheck init`: a [tool.deskcheck] skeleton and two workflows, never clobbering."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from deskcheck.cli import main
from deskcheck.errors import ConfigError
from deskcheck.report.init_project import init_project
from deskcheck.report.project_shape import ProjectShape
from deskcheck.report.workflows import build_workflows

PR = ".github/workflows/deskcheck-pr.yml"
NIGHTLY = ".github/workflows/deskcheck-nightly.yml"


def _actions(root: Path) -> dict[str, str]:
    return {a.path.relative_to(root).as_posix(): a.action for a in init_project(root).actions}


def full_shape(root: Path) -> ProjectShape:
    """A project with every kind of thing a workflow step checks."""
    return ProjectShape(root=root, adhoc_standins=["tests/t.py:3 Budget.__new__"],
                        harnesses=["tests/h.py:5 class H(Harness)"],
                        metal_tests=["tests/m.py:7 pytest.mark.metal"], catalog="mutants.toml",
                        catalog_configured=True, uses_torch=True)


def _write_full(root: Path) -> None:
    for relative, text in build_workflows(full_shape(root)).files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text or "")


def test_init_in_an_empty_folder_writes_the_pr_gate_and_says_why_no_nightly(tmp_path: Path):
    assert _actions(tmp_path) == {"pyproject.toml": "created", PR: "created",
                                  NIGHTLY: "not written"}, (
        "init in an empty folder must create pyproject.toml and the PR gate and write no nightly; "
        f"it did {_actions(tmp_path)}"
    )
    config = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert "catalog" not in config["tool"]["deskcheck"], "a catalog that does not exist is named"
    assert _actions(tmp_path) == {"pyproject.toml": "kept", PR: "unchanged",
                                  NIGHTLY: "not written"}, (
        "a second init must keep pyproject.toml, leave the PR gate unchanged, write no nightly; "
        f"it did {_actions(tmp_path)}"
    )


def test_init_appends_the_section_and_keeps_every_existing_byte(tmp_path: Path):
    original = '[project]\nname = "sched"\n\n[tool.ruff]\nline-length = 100'  # no final newline
    (tmp_path / "pyproject.toml").write_text(original)
    assert _actions(tmp_path)["pyproject.toml"] == "appended", (
        "init must append the [tool.deskcheck] section to an existing pyproject.toml"
    )
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(original + "\n"), (
        "init must keep every existing byte of pyproject.toml and append after a newline; it "
        f"wrote {text!r}"
    )
    data = tomllib.loads(text)
    assert data["project"]["name"] == "sched" and data["tool"]["ruff"]["line-length"] == 100, (
        f"appending must keep the existing tables; it reads {data}"
    )
    assert data["tool"]["deskcheck"] == {}, (
        f"the appended [tool.deskcheck] section must be empty; it is {data['tool']['deskcheck']}"
    )


def test_init_never_touches_an_existing_section_or_workflow(tmp_path: Path):
    pyproject = '[tool.deskcheck]\ncatalog = "ours.toml"\n'
    (tmp_path / "pyproject.toml").write_text(pyproject)
    (tmp_path / PR).parent.mkdir(parents=True)
    (tmp_path / PR).write_text("name: our own\n")
    actions = _actions(tmp_path)
    assert actions == {"pyproject.toml": "kept", PR: "kept", NIGHTLY: "not written"}, (
        f"init must keep an existing section and workflow; it did {actions}"
    )
    assert (tmp_path / "pyproject.toml").read_text() == pyproject, (
        "init changed an existing [tool.deskcheck] section"
    )
    assert (tmp_path / PR).read_text() == "name: our own\n", "init changed an existing PR workflow"


def test_init_refuses_a_broken_pyproject_and_writes_nothing(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project\nname = 1\n")
    with pytest.raises(ConfigError) as caught:
        init_project(tmp_path)
    assert "pyproject.toml:1" in caught.value.render() and "fix:" in caught.value.render(), (
        "a broken pyproject.toml must be refused naming pyproject.toml:1 and a fix:; it says "
        f"{caught.value.render()!r}"
    )
    assert (tmp_path / "pyproject.toml").read_text() == "[project\nname = 1\n", (
        "init changed a pyproject.toml it refused"
    )
    assert not (tmp_path / ".github").exists(), (
        "init wrote workflows although it refused the pyproject.toml"
    )


def _steps(job: dict) -> str:
    return "\n".join(str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"])


def test_pr_workflow_runs_the_gates_and_an_incremental_sweep(tmp_path: Path):
    _write_full(tmp_path)
    workflow = yaml.safe_load((tmp_path / PR).read_text())
    assert "pull_request" in workflow[True], (
        f"the PR workflow must run on pull_request; it runs on {workflow[True]}"
    )  # YAML 1.1 reads the key `on` as True
    (job,) = workflow["jobs"].values()
    steps = _steps(job)
    for command in ("deskcheck drift", "deskcheck redfirst --base", "deskcheck regress --base",
                    "deskcheck sweep --changed-since", "--format markdown",
                    "GITHUB_STEP_SUMMARY", "actions/cache"):
        assert command in steps, command
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0, (
        "the PR workflow's checkout must fetch the full history (fetch-depth: 0) for --base; it "
        f"has {checkout.get('with')}"
    )


def test_nightly_workflow_shards_merges_diffs_and_keeps_the_store(tmp_path: Path):
    _write_full(tmp_path)
    workflow = yaml.safe_load((tmp_path / NIGHTLY).read_text())
    assert "schedule" in workflow[True], (
        f"the nightly workflow must run on a schedule; it runs on {workflow[True]}"
    )
    jobs = workflow["jobs"]
    assert "gpu" in jobs["nccl-suites"]["runs-on"], (
        f"the nccl-suites job must run on a GPU runner; it runs on {jobs['nccl-suites']['runs-on']}"
    )
    shards = jobs["sweep"]["strategy"]["matrix"]["shard"]
    assert f"--shard ${{{{ matrix.shard }}}}/{len(shards)}" in _steps(jobs["sweep"]), (
        f"each sweep job must run its matrix shard of {len(shards)}; its steps: "
        f"{_steps(jobs['sweep'])}"
    )
    merge = _steps(jobs["merge"])
    for command in ("deskcheck merge shards/*/results.sqlite", "deskcheck diff latest~1 latest",
                    "--format stryker", "--format html", "upload-artifact"):
        assert command in merge, command
    kept = [s for s in jobs["merge"]["steps"] if s.get("with", {}).get("name") == "deskcheck-store"]
    assert kept and kept[0]["with"]["path"].startswith(".deskcheck/"), (
        "the merge job must keep the store under .deskcheck/ as the artifact deskcheck-store; "
        f"kept: {kept}"
    )


def test_the_gpu_nightly_runs_the_metal_entry_point(tmp_path: Path):
    _write_full(tmp_path)
    gpu_job = yaml.safe_load((tmp_path / NIGHTLY).read_text())["jobs"]["nccl-suites"]
    steps = _steps(gpu_job)
    assert "deskcheck suites metal --json deskcheck-metal.json" in steps, (
        f"the GPU nightly must run the same METAL entry point as `make metal`:\n{steps}")
    assert "GITHUB_STEP_SUMMARY" in steps and "upload-artifact" in steps, (
        f"the GPU nightly must write the step summary and upload the result:\n{steps}"
    )


def test_init_command(tmp_path: Path, capsys):
    assert main(["init", "--root", str(tmp_path)]) == 0, (
        f"`deskcheck init --root F` must exit 0 in an empty folder; it said:\n{capsys.readouterr()}"
    )
    out = capsys.readouterr().out
    assert "created" in out and "deskcheck-nightly.yml" in out and "no GPU job" in out, out


def test_init_command_json(tmp_path: Path, capsys):
    assert main(["init", "--root", str(tmp_path), "--json", "-"]) == 0, (
        "`deskcheck init --root F --json -` must exit 0 in an empty folder; it said:\n"
        f"{capsys.readouterr()}"
    )
    done = json.loads(capsys.readouterr().out)
    assert [a["action"] for a in done["actions"]] == ["created", "created", "not written"], (
        f"init --json must report created, created, not written; it reports {done['actions']}"
    )
    assert done["found"]["catalog"] is None and done["decisions"], done


def test_workflows_validate_against_the_github_workflow_schema(action_validator: str,
                                                              tmp_path: Path):
    _write_full(tmp_path)
    (tmp_path / "bare").mkdir()
    init_project(tmp_path / "bare")  # the smallest: a PR gate alone
    for name in (PR, NIGHTLY, f"bare/{PR}"):
        done = subprocess.run([action_validator, str(tmp_path / name)], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text((tmp_path / PR).read_text().replace("runs-on:", "runs-onn:"))
    done = subprocess.run([action_validator, str(broken)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0 and "runs-on" in done.stdout + done.stderr, (
        f"the validator must reject a workflow with runs-onn:, naming runs-on; rc {done.returncode}"
        f": {done.stdout + done.stderr}"
    )  # it can fail


def _workflow_commands() -> list[tuple[str, str]]:
    """Every `deskcheck ...` command line the two workflows can run."""
    found = []
    for name, text in build_workflows(full_shape(Path("."))).files.items():
        for job in yaml.safe_load(text or "")["jobs"].values():
            for step in job["steps"]:
                for line in str(step.get("run", "")).splitlines():
                    for match in re.finditer(r"(?:^|[\s($])(deskcheck [^)|;&\n]*)", line):
                        found.append((name, match.group(1).strip()))
    return found


@pytest.mark.parametrize(("workflow", "command"), _workflow_commands())
def test_every_workflow_command_parses_with_the_real_cli(workflow: str, command: str):
    from deskcheck.cli import build_parser

    concrete = (command.replace('"$BASE"', "origin/main").replace("${{ matrix.shard }}", "1")
                .replace("shards/*/results.sqlite", "a.sqlite b.sqlite"))
    args = build_parser().parse_args(shlex.split(concrete)[1:])
    assert callable(args.func), (workflow, command)


def test_the_workflows_run_every_part():
    commands = " ".join(c for _, c in _workflow_commands())
    for part in ("deskcheck drift", "deskcheck redfirst", "deskcheck regress",
                 "deskcheck sweep", "deskcheck merge", "deskcheck diff", "deskcheck report",
                 "deskcheck history"):
        assert part in commands, part


@pytest.mark.parametrize("found", ["adhoc", "harness", "catalog", "metal", "nothing"])
def test_each_finding_brings_its_steps_and_only_those(found: str, tmp_path: Path):
    shape = ProjectShape(root=tmp_path, adhoc_standins=["t.py:1 A.__new__"] * (found == "adhoc"),
                         harnesses=["h.py:1 class H(Harness)"] * (found == "harness"),
                         catalog="mutants.toml" if found == "catalog" else None,
                         catalog_configured=True,
                         metal_tests=["m.py:1 pytest.mark.metal"] * (found == "metal"))
    built = build_workflows(shape)
    pr = built.files[PR] + "\n"
    assert ("deskcheck standins" in pr) == (found == "adhoc"), f"{found}: standins step\n{pr}"
    assert ("deskcheck drift\n" in pr) == (found == "harness"), (
        f"{found}: `deskcheck drift` (exit 2 without a registered harness)\n{pr}")
    assert ('drift --changed-since "$BASE"' in pr) == (found in ("adhoc", "harness")), found
    assert ("deskcheck sweep" in pr) == (found == "catalog"), f"{found}: sweep step\n{pr}"
    assert 'regress --base "$BASE" -n 2' in pr and "--edit-last" not in pr, (
        f"{found}: the PR gate must run `regress --base \"$BASE\" -n 2` without --edit-last\n{pr}"
    )
    nightly = built.files[NIGHTLY]
    assert (nightly is not None) == (found in ("catalog", "metal")), found
    if nightly is not None:
        assert ("suites metal" in nightly) == (found == "metal"), f"{found}: GPU job"
    said = "\n".join(built.decisions)
    assert ("no GPU job" in said) == (found != "metal"), said


def test_init_json_has_every_documented_key(tmp_path: Path, capsys):
    assert main(["init", "--root", str(tmp_path), "--json", "-"]) == 0, (
        f"`deskcheck init --root F --json -` must exit 0; it said:\n{capsys.readouterr()}")
    done = json.loads(capsys.readouterr().out)
    got = (sorted(done), sorted(done.get("found", {})),
           sorted({key for action in done.get("actions", []) for key in action}))
    want = (["actions", "decisions", "found"],
            ["adhoc_standins", "catalog", "harnesses", "metal_tests", "uses_torch"],
            ["action", "note", "path"])
    assert got == want, (
        f"docs/report.md: init --json writes {{actions: [{{path, action, note}}], decisions, "
        f"found: {{adhoc_standins, harnesses, catalog, metal_tests, uses_torch}}}}; the keys "
        f"(top, found, actions) are {got}")
