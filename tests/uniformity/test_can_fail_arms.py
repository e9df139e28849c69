"""The can-fail arm (docs/uniformity.md "Proving the audit can fail"): the rank-local read is
planted in memory only, each plantable decision's arm is LIVE when the re-audit reports it,
a decision with no condition to plant into (an ``except`` handler) is SKIPPED, and only a
VACUOUS arm fails the audit."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.uniformity import audit, run_can_fail

SOURCE = """
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        try:
            self.poll()
        except Exception:
            dist.barrier(group=self.tp_group)
        if self.waiting:
            dist.all_reduce(self.t, group=self.tp_group)

    def poll(self):
        pass
"""


def _package(root: Path, source: str = SOURCE) -> Path:
    """``root/mini/sched.py`` holding ``source``: the audited package."""
    (root / "mini").mkdir()
    (root / "mini" / "__init__.py").write_text("")
    (root / "mini" / "sched.py").write_text(textwrap.dedent(source))
    return root


def _arms(root: Path):
    report = audit("mini.sched:Scheduler", root=root)
    run_can_fail(report, "mini.sched:Scheduler", root=root)
    return report, {d.condition: d.can_fail for d in report.decisions}


def test_the_planted_read_stays_in_memory(tmp_path: Path) -> None:
    root = _package(tmp_path)
    path = root / "mini" / "sched.py"
    before = path.read_bytes()
    _report, arms = _arms(root)
    assert arms.get("self.waiting") == "LIVE", f"the plantable decision's arm: {arms}"
    after = path.read_bytes()
    assert after == before, (
        "--can-fail plants its rank-local read in memory only (docs/uniformity.md), yet the "
        f"audited file changed on disk; it now reads:\n{after.decode()}")
    assert sorted(p.name for p in (root / "mini").iterdir()) == ["__init__.py", "sched.py"], (
        "--can-fail left a file beside the audited source: "
        f"{sorted(p.name for p in (root / 'mini').iterdir())}")


def test_an_except_decision_is_skipped_and_a_skipped_arm_holds(tmp_path: Path) -> None:
    report, arms = _arms(_package(tmp_path))
    arm = arms.get("except Exception", "")
    assert arm.startswith("SKIPPED"), (
        "an `except` handler has no condition to plant a read into: its can-fail arm must be "
        f"SKIPPED, it was {arm!r} (arms: {arms})")
    assert "into an except decision" in arm, (
        f"the SKIPPED arm should say in plain English what it skipped ('nothing to plant "
        f"into an except decision'), it said {arm!r}")
    assert report.exit_code(strict=False) == 0, (
        "only a VACUOUS can-fail arm fails the audit; with arms "
        f"{arms} (none VACUOUS, the worst verdict UNKNOWN) the exit code was "
        f"{report.exit_code(strict=False)}, expected 0")


SYMMETRIC = """
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        if self.waiting:
            dist.barrier(group=self.tp_group)
        else:
            dist.barrier(group=self.tp_group)
"""


def test_a_vacuous_arm_is_named_in_the_terminal_and_the_markdown(tmp_path: Path, capsys) -> None:
    from deskcheck.cli import main

    _package(tmp_path, SYMMETRIC)
    markdown = tmp_path / "audit.md"
    code = main(["uniformity", "mini.sched:Scheduler", "--root", str(tmp_path), "--can-fail",
                 "--no-cache", "--markdown", str(markdown)])
    out = capsys.readouterr().out
    assert code == 1, f"a VACUOUS can-fail arm must fail the audit (exit 1); it exited {code}"
    for where, text in (("terminal", out), ("Markdown", markdown.read_text())):
        named = [line for line in text.splitlines() if "VACUOUS" in line]
        assert named and "`self.waiting`" in text, (
            f"the audit falls short because the SYMMETRIC `if self.waiting` has a VACUOUS "
            f"can-fail arm, yet the {where} report does not name that decision and its "
            f"VACUOUS arm; it printed:\n{text}")


KINDS = """
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        if self.closed:
            return
        done = dist.barrier(group=self.tp_group) if self.waiting else None
        for req in self.reqs:
            dist.all_reduce(self.t, group=self.tp_group)
            if req.finished:
                break
"""


def test_a_ternary_a_break_and_an_exit_decision_get_a_live_arm(tmp_path: Path) -> None:
    _package(tmp_path, KINDS)
    report = audit("mini.sched:Scheduler", root=tmp_path)
    run_can_fail(report, "mini.sched:Scheduler", root=tmp_path)
    arms = {d.kind: d.can_fail for d in report.decisions}
    for kind in ("ternary", "break", "exit"):
        assert arms.get(kind) == "LIVE", (
            "docs/uniformity.md: --can-fail plants a rank-local read into each decision's "
            f"condition; the {kind} decision's arm is {arms.get(kind)!r}, not LIVE "
            f"(arms by kind: {arms})")


BOOLOPS = """
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        while True:
            self.step()

    def step(self):
        self.ready and self.sync()
        self.idle or dist.barrier(group=self.tp_group)

    def sync(self):
        dist.all_reduce(self.t, group=self.tp_group)
"""


def test_an_and_and_an_or_decision_get_a_live_arm(tmp_path: Path) -> None:
    """`x and f()` / `x or f()` gate f()'s collective on `x`: its arm plants the read into
    that operand, like an `if` (found by the session-13 practice: every boolop was SKIPPED)."""
    _package(tmp_path, BOOLOPS)
    report = audit("mini.sched:Scheduler", root=tmp_path)
    run_can_fail(report, "mini.sched:Scheduler", root=tmp_path)
    arms = {d.condition: d.can_fail for d in report.decisions if d.kind == "boolop"}
    assert len(arms) == 2, f"expected the `and` and the `or` decision, the audit found {arms}"
    for condition, arm in arms.items():
        assert arm == "LIVE", (
            "docs/uniformity.md: --can-fail plants a rank-local read into each decision's "
            f"condition; the boolop decision `{condition}` got {arm!r}, not LIVE")


def test_a_shape_decision_is_skipped_with_a_before_a_consonant(tmp_path: Path) -> None:
    """A forward pass's input shape (a `shape` decision) has no condition to plant into
    either; its SKIPPED arm reads 'a shape decision' (the article follows the kind: 'an'
    only before a vowel)."""
    root = _package(tmp_path, """
        class Scheduler:
            def event_loop(self):
                self.model_runner.forward(self.batch)
    """)
    (root / "pyproject.toml").write_text(
        '[tool.deskcheck.uniformity]\n'
        'forward = [{ call = "self.model_runner.forward", group = "self.tp_group" }]\n')
    _report, arms = _arms(root)
    arm = arms.get("shape of self.model_runner.forward(self.batch)", "")
    assert arm == "SKIPPED: nothing to plant into a shape decision", (
        f"a shape decision's can-fail arm should read 'SKIPPED: nothing to plant into a shape "
        f"decision', it was {arm!r} (arms: {arms})")
