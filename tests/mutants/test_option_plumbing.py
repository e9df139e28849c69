"""Options of ``deskcheck sweep`` / ``mutants run`` that only change what is handed on (an
environment variable, the shard plan): each one ignored fails here, by name, without a sweep."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

import deskcheck.mutants.auto.commands as auto_commands
import deskcheck.mutants.commands as mutants_commands
from deskcheck.cli import main
from deskcheck.errors import ConfigError
from deskcheck.report.shard import select_shard
from tests.mutants.conftest import CATALOG, FIXTURE

IDS = [f"m{i}" for i in range(12)]


def test_sweep_record_turns_recording_on_for_the_run_and_off_after(monkeypatch):
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    seen: list[str | None] = []
    monkeypatch.setattr(auto_commands, "run_auto",
                        lambda args: seen.append(os.environ.get("DESKCHECK_RECORD")) or 0)
    assert main(["sweep", "--auto", "--changed-since", "x", "--no-run"]) == 0, (
        "`sweep --auto --changed-since x --no-run` must exit 0"
    )
    assert main(["sweep", "--auto", "--changed-since", "x", "--no-run", "--record"]) == 0, (
        "`sweep --auto --changed-since x --no-run --record` must exit 0"
    )
    assert seen == [None, "all"], (
        f"expected DESKCHECK_RECORD unset without --record and 'all' with it, got {seen}")
    assert "DESKCHECK_RECORD" not in os.environ, (
        "sweep --record left DESKCHECK_RECORD set in the calling process after the sweep")


def test_shard_by_count_plans_by_the_ids_hash_without_any_store(tmp_path):
    missing = str(tmp_path / "no-such.sqlite")
    by_count = argparse.Namespace(shard="1/3", shard_by="count", durations_from=missing)
    chosen, label = mutants_commands._shard(IDS, by_count)
    assert (chosen, label) == (select_shard(IDS, "1/3"), "1/3"), (
        f"--shard-by count should take the ids hashed to shard 1/3 and record '1/3' without "
        f"reading --durations-from, got {chosen} labelled {label!r}")
    by_durations = argparse.Namespace(shard="1/3", shard_by="durations", durations_from=missing)
    with pytest.raises(ConfigError, match="no such store"):
        mutants_commands._shard(IDS, by_durations)


def test_mutants_run_record_hands_recording_to_the_pytest_it_starts(monkeypatch):
    started: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(subprocess, "call",
                        lambda argv, env: started.append((argv, env)) or 0)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command puts the catalog's root first
    monkeypatch.delenv("DESKCHECK_RECORD", raising=False)
    monkeypatch.chdir(FIXTURE)
    for extra in ([], ["--record"]):
        assert main(["mutants", "run", "calc.pick_max", "--catalog", str(CATALOG), *extra,
                     "--", "checks/check_calc.py", "-q"]) == 0, (
            f"`mutants run calc.pick_max {' '.join(extra)} -- checks/check_calc.py` must exit 0 "
            "(the pytest call is faked to pass)"
        )
    (plain_argv, plain_env), (argv, env) = started
    assert (plain_env.get("DESKCHECK_RECORD"), env.get("DESKCHECK_RECORD")) == (None, "all"), (
        "expected the pytest started by `mutants run --record` (only) to get "
        f"DESKCHECK_RECORD=all, got {plain_env.get('DESKCHECK_RECORD')!r} and "
        f"{env.get('DESKCHECK_RECORD')!r}")
    assert argv[-2:] == ["checks/check_calc.py", "-q"], (
        f"the pytest arguments after -- were not handed on: {argv}")


def test_the_catalog_key_is_the_default_and_catalog_wins_over_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "pkgx.py").write_text("def f(self):\n    self._audit()\n")
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "x.py").write_text("def t():\n    pass\n")
    other = tmp_path / "other.toml"
    other.write_text('[[mutant]]\nid = "only.here"\ntitle = "t"\ntarget = "pkgx:f"\n'
                     'operator = "drop-call"\ncall = "self._audit"\nowners = ["checks/x.py::t"]\n')
    (tmp_path / "pyproject.toml").write_text(f'[tool.deskcheck]\ncatalog = "{CATALOG}"\n')
    monkeypatch.chdir(tmp_path)
    main(["mutants", "list"])
    configured = capsys.readouterr().out
    main(["mutants", "list", "--catalog", str(other)])
    given = capsys.readouterr().out
    assert ("calc.low_bound_skipped" in configured, "only.here" in given,
            "calc.low_bound_skipped" in given) == (True, True, False), (
        "expected `mutants list` to read [tool.deskcheck] catalog and `--catalog` to replace "
        f"it:\n{configured}\n---\n{given}")


class _Stop(Exception):
    """Raised by the stand-in sweep once it has its options."""


def test_sweep_hands_its_selection_to_the_engine(monkeypatch):
    import deskcheck.mutants.sweep as sweep

    seen = []

    def record(options, reporter):
        seen.append(options)
        raise _Stop

    monkeypatch.setattr(sweep, "run_sweep", record)
    monkeypatch.chdir(FIXTURE)  # inside this checkout's git repository: --changed-since works
    for extra in (["--changed-since", "HEAD", "--full-matrix", "-n", "3",
                   "--only", "calc.pick_max", "calc.low_bound_skipped"], []):
        with pytest.raises(_Stop):
            main(["sweep", "--catalog", str(CATALOG), "--no-store", *extra])
    told, plain = seen
    got = (told.affected is not None, told.full_matrix, told.workers, sorted(told.only),
           plain.affected is None, plain.full_matrix)
    assert got == (True, True, 3, ["calc.low_bound_skipped", "calc.pick_max"], True, False), (
        "expected --changed-since to narrow the sweep to affected mutants, --full-matrix, "
        "-n 3 and --only to reach the engine, and none of them by default; got (affected, "
        f"full_matrix, workers, only, plain unaffected, plain full_matrix) = {got}")


@pytest.mark.parametrize("option", [["--markdown", "pr.md"], ["--max-mutants", "5"],
                                    ["--max-per-line", "2"], ["--operators", "ROR"],
                                    ["--tests", "tests"], ["--no-run"], ["--root", "."],
                                    ["--build-coverage-map"], ["--no-coverage-map"]],
                         ids=lambda option: option[0])
def test_an_auto_only_option_on_a_catalog_sweep_is_a_usage_error(option, monkeypatch, capsys):
    import deskcheck.mutants.sweep as sweep

    ran = []

    def record(options, reporter):
        ran.append(options)
        raise _Stop

    monkeypatch.setattr(sweep, "run_sweep", record)
    try:
        code = main(["sweep", "--catalog", str(CATALOG), "--no-store", *option])
    except _Stop:
        code = None
    err = capsys.readouterr().err
    assert (code, ran) == (2, []) and option[0] in err and "--auto" in err, (
        f"expected `sweep {option[0]}` without --auto to be refused (exit 2) naming "
        f"{option[0]} and --auto, not silently ignored; got exit {code}, swept={bool(ran)}:\n"
        f"{err}")


def test_no_store_sweeps_without_a_recorder_and_writes_no_store(tmp_path, monkeypatch):
    import shutil

    import deskcheck.mutants.sweep as sweep

    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project)
    (project / "pyproject.toml").write_text('[tool.deskcheck]\ncatalog = "mutants.toml"\n')
    monkeypatch.chdir(project)
    recorders = []

    def record(options, reporter):
        recorders.append(options.recorder)
        raise _Stop

    monkeypatch.setattr(sweep, "run_sweep", record)
    with pytest.raises(_Stop):
        main(["sweep", "--only", "calc.pick_max", "--no-store"])
    stored_after_no_store = (project / ".deskcheck").exists()
    with pytest.raises(_Stop):
        main(["sweep", "--only", "calc.pick_max"])
    got = (recorders[0] is None, stored_after_no_store, recorders[1] is not None)
    assert got == (True, False, True), (
        "expected `sweep --no-store` to run without a recorder and write no .deskcheck/, and "
        f"a plain sweep to record; got (no recorder, store written, plain records) = {got}")


@pytest.mark.parametrize("command", [["sweep", "--no-store"], ["mutants", "list"]])
def test_without_a_catalog_key_or_option_the_command_says_how_to_name_one(command, tmp_path,
                                                                          monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.deskcheck]\n')
    monkeypatch.chdir(tmp_path)
    code = main(command)
    err = capsys.readouterr().err
    assert code == 2, (
        f"README: `catalog` has no default (--catalog required); `deskcheck {' '.join(command)}` "
        f"with neither must be a config error, exit 2; it exited {code}:\n{err}")
    assert "no mutant catalog configured" in err and "--catalog PATH" in err \
        and "[tool.deskcheck] catalog" in err and "pyproject.toml" in err, (
            "the error must name the pyproject.toml and give the fix (--catalog PATH or "
            f"[tool.deskcheck] catalog); stderr:\n{err}")


@pytest.mark.parametrize(("argv", "workers"), [([], 7), (["-n", "4"], 4),
                                              (["--workers", "3"], 3)])
def test_sweep_workers_default_to_the_cores_and_n_is_workers(argv, workers, monkeypatch):
    from deskcheck.cli import build_parser

    monkeypatch.setattr(os, "cpu_count", lambda: 7)  # a machine with 7 cores
    got = build_parser(["sweep", *argv]).parse_args(["sweep", *argv]).workers
    assert got == workers, (
        "docs/mutants.md: `--workers N` (-n) children at once, default: cores (7 here); "
        f"`sweep {' '.join(argv)}` gave workers = {got}, not {workers}")


def test_sweep_with_no_workers_is_a_usage_error(capsys):
    code = main(["sweep", "--catalog", str(CATALOG), "--no-store", "-n", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "--workers must be at least 1" in err, (
        f"`sweep -n 0` must be refused (exit 2, '--workers must be at least 1'); exit {code}:\n"
        f"{err}")


@pytest.mark.parametrize(("flag", "rule"), [(["--crash-kills-fall-short"], "fall-short"),
                                            ([], "hold")])
def test_crash_kills_fall_short_reaches_a_catalog_sweep(flag, rule, monkeypatch):
    import deskcheck.mutants.sweep as sweep

    seen = []

    def record(options, reporter):
        seen.append(options)
        raise _Stop

    monkeypatch.setattr(sweep, "run_sweep", record)
    with pytest.raises(_Stop):
        main(["sweep", "--catalog", str(CATALOG), "--no-store", *flag])
    got = seen[0].catalog.settings.crash_kills
    assert got == rule, (
        "docs/mutants.md: `--crash-kills-fall-short` makes a catalog sweep's kill only by a "
        f"crash a WRONG_FAILURE (crash_kills = 'fall-short'), without it the catalog's 'hold'; "
        f"`sweep {' '.join(flag)}` handed the engine crash_kills = {got!r}")
