"""The ``uniformity:`` owner kind through the real CLI, with the real audit, on a tiny
scheduler (fixtures/uniproj): a gating input made rank-local is KILLED by the audit (and by
the test owner beside it), so is an agreed field written from its local source (its
declaration fails), an equivalent change survives, an owner whose decision is already
rank-local is BASELINE_RED, an owner naming a function with no gating decision is a catalog
error at its line (exit 2, nothing run), ``mutants run`` prints the audit's judgement, and no
file of the project is written."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .conftest import by_id, deskcheck, sweep_json

UNIPROJ = Path(__file__).parent / "fixtures" / "uniproj"
CATALOG = UNIPROJ / "mutants.toml"


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def test_the_audit_kills_a_gating_input_made_rank_local_and_judges_nothing_else(tmp_path):
    before = _tree(UNIPROJ)
    proc, document = sweep_json(tmp_path, catalog=CATALOG)
    mutants = by_id(document)
    verdicts = {k: m["verdict"] for k, m in mutants.items()}
    assert verdicts == {"room.local_source": "KILLED", "room.audit_only": "KILLED",
                        "room.still_agreed": "SURVIVED",
                        "poll.already_local": "BASELINE_RED",
                        "room.agreed_from_local_source": "KILLED"}, verdicts
    assert proc.returncode == 1, "a sweep with a survivor and a red owner must fall short"
    both = mutants["room.local_source"]
    assert both["killed_by"] == ["uniformity:Sched.step",
                                 "checks/check_sched.py::test_step_follows_the_agreed_room"], (
        "the audit and the test owner must both be judged (the static owner never stands "
        f"in for the tests): killed by {both['killed_by']}")
    alone = mutants["room.audit_only"]
    assert alone["killed_by"] == ["uniformity:Sched.step"], (
        "a mutant owned by the audit only must be killed by uniformity:Sched.step; killed by "
        f"{alone['killed_by']}"
    )
    assert alone["excerpt"].startswith(
        "uniformity:Sched.step: RankLocalDecision: Sched.step at "
        "tests/mutants/fixtures/uniproj/unisched/sched.py:33: "
        "`self.pool.available_size() > 0` SANCTIONED -> RANK-LOCAL"), alone["excerpt"]
    assert "input self.pool.available_size: RANK-LOCAL (per-rank resource size)" in (
        alone["excerpt"]), "the kill does not show the rank-local input and its witness"
    unproven = mutants["room.agreed_from_local_source"]["excerpt"]
    assert ("UnprovenSource: Sched.step at tests/mutants/fixtures/uniproj/unisched/sched.py:33: "
            "`self.agreed_room > 0` SANCTIONED, through a declaration that fails under the "
            "mutant: self.agreed_room: unproven") in unproven, (
        f"an agreed field written from its local source must kill through its declaration: "
        f"{unproven}")
    red = mutants["poll.already_local"]["excerpt"]
    assert "not green on clean code" in red and "sched.py:38" in red, red
    assert _tree(UNIPROJ) == before, "the sweep wrote into the project"


def test_an_owner_naming_a_function_without_a_gating_decision_is_an_error_at_its_line(
        tmp_path):
    project = tmp_path / "uniproj"
    shutil.copytree(UNIPROJ, project, ignore=shutil.ignore_patterns("__pycache__"))
    catalog = project / "mutants.toml"
    text = catalog.read_text()
    catalog.write_text(text.replace('owners = ["uniformity:Sched.poll_step"]',
                                    'owners = ["uniformity:Sched.no_collective"]'))
    line = catalog.read_text().splitlines().index(
        'owners = ["uniformity:Sched.no_collective"]') + 1
    proc = deskcheck("sweep", "--catalog", str(catalog), "--no-store")
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    expected = (f"{catalog}:{line}: mutant 'poll.already_local': owner "
                "'uniformity:Sched.no_collective' names a function with no gating decision")
    assert expected in proc.stderr, proc.stderr
    assert "fix: name a function whose decision gates a collective" in proc.stderr, (
        "an owner naming a function without a gating decision must come with the fix 'name a "
        f"function whose decision gates a collective'; stderr: {proc.stderr[-600:]}"
    )
    assert "Sched.step" in proc.stderr, "the fix does not list the functions that have one"
    assert "KILLED" not in proc.stdout, "mutants ran after a catalog error"


def test_mutants_run_prints_the_audits_judgement(tmp_path):
    proc = deskcheck("mutants", "run", "--catalog", str(CATALOG), "room.audit_only")
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr}"
    assert "uniformity:Sched.step: KILLED: RankLocalDecision: Sched.step" in proc.stderr, (
        proc.stderr)
    held = deskcheck("mutants", "run", "--catalog", str(CATALOG), "room.still_agreed")
    assert held.returncode == 0 and "uniformity:Sched.step: held:" in held.stderr, held.stderr


def test_a_uniformity_target_that_names_no_class_is_an_error_at_its_line(tmp_path):
    project = tmp_path / "uniproj"
    shutil.copytree(UNIPROJ, project, ignore=shutil.ignore_patterns("__pycache__"))
    catalog = project / "mutants.toml"
    catalog.write_text(catalog.read_text().replace('target = "unisched.sched:Sched"\n',
                                                   'target = "unisched.sched:Nope"\n'))
    line = catalog.read_text().splitlines().index('target = "unisched.sched:Nope"') + 1
    proc = deskcheck("mutants", "run", "--catalog", str(catalog), "room.audit_only")
    assert proc.returncode == 2, f"exit {proc.returncode}: {proc.stderr}"
    assert (f"{catalog}:{line}: [uniformity] target 'unisched.sched:Nope': no class 'Nope'"
            in proc.stderr), proc.stderr
