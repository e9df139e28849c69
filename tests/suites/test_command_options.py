"""Options of ``deskcheck suites doctor`` and ``suites metal`` that are only handed on (a
timeout, the tests, the plan's limits): each ignored fails here, by name, without starting a
rank (the probes and the run are replaced by recorders)."""

from __future__ import annotations

import json

import pytest

import deskcheck.suites.commands as suites_commands
import deskcheck.suites.metal as metal
from deskcheck.cli import main
from deskcheck.errors import RankTimeoutError


def test_doctor_hands_its_timeouts_to_the_probe_and_the_hang_arm(monkeypatch, capsys):
    probes: list[tuple[str, int, float | None]] = []
    hangs: list[tuple[str, int, float]] = []
    monkeypatch.setattr(suites_commands, "_probe", lambda backend, world, pg_timeout: (
        probes.append((backend, world, pg_timeout)) or {"backend": backend, "world": world,
                                                         "ok": True}))
    monkeypatch.setattr(suites_commands, "hang_arm", lambda backend, world, timeout_s: (
        hangs.append((backend, world, timeout_s)) or {"ok": True}))
    main(["suites", "doctor", "--world", "2", "--pg-timeout", "7.5", "--hang",
          "--hang-timeout", "1.25", "--json"])
    capsys.readouterr()
    assert (probes, hangs) == ([("gloo", 2, 7.5)], [("gloo", 2, 1.25)]), (
        "expected --pg-timeout 7.5 handed to the probe and --hang-timeout 1.25 to the hang "
        f"arm, got probes {probes} and hang arms {hangs}")


class _BlamesRankZero:
    """A pool whose hang error names rank 0, though the hang arm's skipper is the last rank."""

    def __init__(self, world: int, backend: str, timeout_s: float):
        self.world = world

    def start(self) -> None:
        pass

    def run(self, task, *args, per_rank):
        raise RankTimeoutError("rank 0 skipped all_reduce #1: returned after 0 collectives "
                               "while rank 1 waited")

    def close(self) -> None:
        pass


def test_the_hang_arm_fails_when_the_pool_names_a_rank_that_did_not_skip(monkeypatch):
    import deskcheck.suites.pool as pool_module

    monkeypatch.setattr(pool_module, "RankPool", _BlamesRankZero)
    monkeypatch.setenv("DESKCHECK_RECORD", "off")
    row = suites_commands.hang_arm("gloo", 2, 1.0)
    assert row["ok"] is False and "rank 1 skipped all_reduce" in row.get("reason", ""), (
        "in the hang arm the last rank skips the all_reduce and the pool must name it "
        "(docs/suites.md:346): an error blaming rank 0 must fail the arm; the arm answered "
        f"{row}")


class _Stop(Exception):
    """Raised by the stand-in run once it has the options."""


def test_metal_hands_every_option_to_the_run(monkeypatch, tmp_path):
    seen = []

    def record(options, facts, needs):
        seen.append((options, facts))
        raise _Stop

    monkeypatch.setattr(metal, "run_metal", record)
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"gpus": 4}))
    with pytest.raises(_Stop):
        main(["suites", "metal", "tests/a", "tests/b", "--catalog", "cat.toml", "--cpu-suite",
              "--cpu-workers", "3", "--budget", "99", "--facts", str(facts)])
    ((options, got_facts),) = seen
    got = {"tests": options.tests, "catalog": options.catalog, "cpu_suite": options.cpu_suite,
           "cpu_workers": options.cpu_workers, "budget_s": options.budget_s,
           "dry_run": options.dry_run, "facts": got_facts}
    expected = {"tests": ["tests/a", "tests/b"], "catalog": "cat.toml", "cpu_suite": True,
                "cpu_workers": 3, "budget_s": 99.0, "dry_run": True, "facts": {"gpus": 4}}
    wrong = {k: (got[k], v) for k, v in expected.items() if got[k] != v}
    assert not wrong, f"options of suites metal ignored (got, passed): {wrong}"


def test_metal_runs_for_real_only_without_dry_run_or_facts(monkeypatch):
    seen = []

    def record(options, facts, needs):
        seen.append(options.dry_run)
        raise _Stop

    monkeypatch.setattr(metal, "run_metal", record)
    for argv in (["suites", "metal"], ["suites", "metal", "--dry-run"]):
        with pytest.raises(_Stop):
            main(argv)
    assert seen == [False, True], f"expected a real run, then a dry run with --dry-run: {seen}"


def test_metal_writes_json_and_markdown_where_it_is_told(monkeypatch, tmp_path):
    monkeypatch.setattr(metal, "run_metal", lambda options, facts, needs: {"verdict": "DRY RUN"})
    monkeypatch.setattr(metal, "terminal", lambda results: "")
    monkeypatch.setattr(metal, "markdown", lambda results: f"verdict: {results['verdict']}\n")
    json_out, md_out = tmp_path / "out" / "metal.json", tmp_path / "metal.md"
    json_out.parent.mkdir()
    assert main(["suites", "metal", "--dry-run", "--json", str(json_out),
                 "--markdown", str(md_out)]) == 0, (
        "`deskcheck suites metal --dry-run --json F --markdown F` must exit 0 when the run is a "
        "DRY RUN"
    )
    written = (json.loads(json_out.read_text())["verdict"] if json_out.exists() else None,
               md_out.read_text() if md_out.exists() else None)
    assert written == ("DRY RUN", "verdict: DRY RUN\n"), (
        f"expected the results written to --json and --markdown, got {written}")
