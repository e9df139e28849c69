"""The commands: list, show, run, and sweep's exit codes (0 holds, 1 falls short, 2 config)."""

from __future__ import annotations

import textwrap

import pytest

from .conftest import CATALOG, FIXTURE, deskcheck, sweep_json

pytestmark = pytest.mark.xdist_group("mutants-cli")


def test_list_shows_every_mutant():
    proc = deskcheck("mutants", "list", "--catalog", str(CATALOG))
    assert proc.returncode == 0, proc.stderr
    assert "calc.admit_strict" in proc.stdout and "fixpkg.calc:admit" in proc.stdout, (
        "`mutants list` must show each mutant's id and target (calc.admit_strict, "
        f"fixpkg.calc:admit); it printed {proc.stdout!r}"
    )


def test_list_of_an_empty_catalog_says_so(tmp_path):
    empty = tmp_path / "mutants.toml"
    empty.write_text("[sweep]\ntests = []\n")
    proc = deskcheck("mutants", "list", "--catalog", str(empty))
    assert proc.returncode == 0, proc.stderr
    assert "no mutants in" in proc.stdout, f"an empty listing says nothing: {proc.stdout!r}"


def test_show_prints_the_unified_diff():
    proc = deskcheck("mutants", "show", "calc.admit_strict", "--catalog", str(CATALOG))
    assert proc.returncode == 0, proc.stderr
    assert "-    return cost <= budget" in proc.stdout, (
        "`mutants show` must print the unified diff's removed line '-    return cost <= budget'; "
        f"it printed {proc.stdout!r}"
    )
    assert "+    return cost < budget" in proc.stdout, (
        "`mutants show` must print the unified diff's added line '+    return cost < budget'; it "
        f"printed {proc.stdout!r}"
    )
    assert "fixpkg/calc.py" in proc.stdout, (
        f"`mutants show` must name the mutated file fixpkg/calc.py; it printed {proc.stdout!r}"
    )


def test_show_reports_a_stale_mutant():
    proc = deskcheck("mutants", "show", "calc.total_doubled_stale", "--catalog", str(CATALOG))
    assert proc.returncode == 1, (
        f"`mutants show` of a STALE mutant must exit 1; it exited {proc.returncode}: "
        f"{proc.stderr[-500:]}"
    )
    assert "STALE" in proc.stderr and "'acc += value * 2'" in proc.stderr, (
        "`mutants show` of a STALE mutant must say STALE and quote the missing 'acc += value * "
        f"2'; stderr: {proc.stderr[-500:]!r}"
    )


def test_run_puts_pytest_under_the_mutant():
    """`mutants run` starts pytest as a fresh python: the import hook applies the mutant."""
    test = "checks/check_kinds.py::test_subprocess_python"
    under = deskcheck("mutants", "run", "kinds.subprocess", "--catalog", str(CATALOG), "--",
                      test, "-q", cwd=FIXTURE)
    assert under.returncode == 1, under.stdout + under.stderr
    assert "subprocess python saw mutated" in under.stdout, (
        "`mutants run` must put pytest's subprocess python under the mutant ('subprocess python "
        f"saw mutated'); it printed {under.stdout[-800:]!r}"
    )
    clean = deskcheck("mutants", "run", "calc.pick_max", "--catalog", str(CATALOG), "--",
                      test, "-q", cwd=FIXTURE)
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_sweep_holds_when_every_mutant_is_killed(tmp_path):
    proc, document = sweep_json(tmp_path, "--only", "calc.low_bound_skipped", "calc.pick_max",
                                "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert [m["verdict"] for m in document["mutants"]] == ["KILLED", "KILLED"], (
        "`sweep --only` of two killable mutants must judge both KILLED; got "
        f"{[m['verdict'] for m in document['mutants']]}"
    )
    assert "KILLED" in proc.stdout, (
        f"the sweep's verdict table must show KILLED; stdout: {proc.stdout[-800:]!r}"
    )  # the verdict table


def test_sweep_config_error_exits_2_with_location(tmp_path):
    bad = tmp_path / "mutants.toml"
    bad.write_text(textwrap.dedent('''
        [[mutant]]
        id = "x"
        title = "t"
        target = "fixpkg.calc:clamp"
        operator = "swap"
        owners = ["checks/check_calc.py"]
        '''))
    proc = deskcheck("sweep", "--catalog", str(bad), "--no-store")
    assert proc.returncode == 2, (
        f"a catalog error must make `sweep` exit 2; it exited {proc.returncode}: "
        f"{proc.stderr[-500:]}"
    )
    assert f"{bad}:6: operator 'swap' needs key 'old'" in proc.stderr, (
        f"a catalog error must name its file and line ('{bad}:6: operator 'swap' needs key "
        f"'old''); stderr: {proc.stderr[-500:]!r}"
    )  # the operator line


def test_sweep_unknown_only_id_exits_2():
    proc = deskcheck("sweep", "--catalog", str(CATALOG), "--only", "nope", "--no-store")
    assert proc.returncode == 2 and "nope" in proc.stderr, (
        f"`sweep --only nope` (an unknown id) must exit 2 naming it; it exited {proc.returncode}: "
        f"{proc.stderr[-500:]!r}"
    )


def test_owner_matching_nothing_is_a_config_error(tmp_path):
    catalog = tmp_path / "mutants.toml"
    catalog.write_text(textwrap.dedent(f'''
        [sweep]
        tests = ["{FIXTURE / 'checks' / 'check_calc.py'}"]

        [[mutant]]
        id = "x"
        title = "t"
        target = "fixpkg.calc:clamp"
        operator = "return"
        value = "0"
        owners = ["{FIXTURE / 'checks' / 'check_calc.py'}::test_does_not_exist"]
        '''))
    proc = deskcheck("sweep", "--catalog", str(catalog), "--no-store", cwd=FIXTURE)
    assert proc.returncode == 2, proc.stderr
    # issue 16: found while the catalog is read (static), at the owner's line, with the rest
    assert "defines no test 'test_does_not_exist'" in proc.stderr and (
        f"{catalog}:11" in proc.stderr), f"not reported at the owners line:\n{proc.stderr}"


def test_kills_marker_naming_another_catalogs_mutant_is_ignored_with_a_note(tmp_path):
    import shutil

    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project)
    (project / "checks" / "check_marker.py").write_text(
        "import pytest\n\n\n@pytest.mark.kills('no.such.mutant')\ndef test_x():\n    pass\n")
    proc = deskcheck("sweep", "--catalog", str(project / "mutants.toml"), "--no-store",
                     "--only", "calc.pick_max", cwd=project)
    assert proc.returncode == 0, (
        f"a kills marker of another catalog is no error of this one:\n{proc.stderr}")
    note = [line for line in proc.stderr.splitlines() if "'no.such.mutant'" in line]
    assert note and note[0].startswith("note:"), f"the foreign id gets a note:\n{proc.stderr}"
    assert "check_marker.py:4" in note[0], f"the note names the decorator line: {note}"


def test_full_matrix_runs_every_test_under_every_mutant(tmp_path):
    calc = FIXTURE / "checks" / "check_calc.py"
    catalog = tmp_path / "mutants.toml"
    catalog.write_text(textwrap.dedent(f'''
        [sweep]
        tests = ["{calc}"]

        [[mutant]]
        id = "low"
        title = "lower bound never applied"
        target = "fixpkg.calc:clamp"
        operator = "force-branch"
        condition = "value < low"
        to = false
        owners = ["{calc}::test_clamp_low", "{calc}::test_clamp_middle"]

        [[mutant]]
        id = "calc.pick_marker_owned"
        title = "named by a kills marker in check_calc.py"
        target = "fixpkg.calc:Ledger.pick"
        operator = "return"
        value = "b"
        '''))
    _, document = sweep_json(tmp_path, "--full-matrix", "--only", "low", catalog=catalog,
                             cwd=FIXTURE)
    (mutant,) = document["mutants"]
    assert mutant["verdict"] == "KILLED", (
        "--full-matrix must still judge the mutant killed by its owner KILLED; it was "
        f"{mutant['verdict']}: {mutant['excerpt']}"
    )
    assert mutant["killed_by"] == ["checks/check_calc.py::test_clamp_low"], (
        "killed_by must list only the owner that failed (test_clamp_low); it is "
        f"{mutant['killed_by']}"
    )
    ran = set(mutant["detail"]["items_run"])
    assert "checks/check_calc.py::test_clamp_middle" in ran, (
        "--full-matrix must not stop at the first kill: test_clamp_middle was not run; items_run: "
        f"{sorted(ran)}"
    )  # no stop at the first kill
    assert "checks/check_calc.py::test_pick_marked" in ran, (
        "--full-matrix must run non-owners too: test_pick_marked was not run; items_run: "
        f"{sorted(ran)}"
    )  # non-owners too
    assert "checks/check_calc.py::test_always_red" not in ran, (
        "--full-matrix must skip tests red on clean code, yet test_always_red ran; items_run: "
        f"{sorted(ran)}"
    )  # red on clean code: skipped


def test_owner_in_a_file_that_does_not_collect_is_baseline_red(tmp_path):
    import shutil

    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project)
    (project / "checks" / "check_broken.py").write_text(
        "import no_such_module_anywhere\n\n\ndef test_x():\n    pass\n")
    with (project / "mutants.toml").open("a") as catalog:
        catalog.write(textwrap.dedent('''
            [[mutant]]
            id = "broken.owner"
            title = "owned by a test file that cannot be imported"
            target = "fixpkg.calc:clamp"
            operator = "return"
            value = "0"
            owners = ["checks/check_broken.py::test_x"]
            '''))
    _, document = sweep_json(tmp_path, "--only", "broken.owner", "calc.pick_max",
                             catalog=project / "mutants.toml", cwd=project)
    verdicts = {m["id"]: m for m in document["mutants"]}
    assert verdicts["broken.owner"]["verdict"] == "BASELINE_RED", (
        "an owner in a file that does not import must make BASELINE_RED; it was "
        f"{verdicts['broken.owner']['verdict']}: {verdicts['broken.owner']['excerpt']}"
    )
    assert "no_such_module_anywhere" in verdicts["broken.owner"]["excerpt"], (
        "the BASELINE_RED excerpt must name the failed import no_such_module_anywhere; excerpt: "
        f"{verdicts['broken.owner']['excerpt']!r}"
    )
    assert verdicts["calc.pick_max"]["verdict"] == "KILLED", (
        "a BASELINE_RED mutant must not stop the others being judged: calc.pick_max was "
        f"{verdicts['calc.pick_max']['verdict']}, not KILLED"
    )  # the rest is still judged


def test_runs_are_recorded_and_a_holding_verdict_is_reused(tmp_path):
    import json
    import shutil

    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project)
    (project / "pyproject.toml").write_text('[tool.deskcheck]\ncatalog = "mutants.toml"\n')
    out = tmp_path / "out.json"
    for _ in range(2):
        proc = deskcheck("sweep", "--only", "calc.pick_max", "--json", str(out), cwd=project)
        assert proc.returncode == 0, proc.stderr
    (mutant,) = json.loads(out.read_text())["mutants"]
    assert mutant["verdict"] == "KILLED" and mutant["reused"] is True, (
        "a second sweep of a held KILLED verdict must reuse it (reused: true); got verdict "
        f"{mutant['verdict']}, reused {mutant['reused']}"
    )
    assert (project / ".deskcheck").is_dir(), (
        f"a recorded sweep must keep its store in {project / '.deskcheck'}, which is not a folder"
    )
    fresh = deskcheck("sweep", "--only", "calc.pick_max", "--json", str(out),
                      "--no-incremental", cwd=project)
    assert fresh.returncode == 0 and json.loads(out.read_text())["mutants"][0]["reused"] is False, (
        "--no-incremental must judge afresh (reused: false) and exit 0; it exited "
        f"{fresh.returncode}: {fresh.stderr[-500:]}"
    )
