"""docs/suites.md, pytest: "The terminal summary says what each tier proved" (the DESK line,
the METAL line with each skip reason, the run's evidence tier). Pure: stand-in reports are fed
to the summary; an NCCL case skips in its setup (the rank_pool fixture), as it does for real."""

from __future__ import annotations

from types import SimpleNamespace

from deskcheck.suites.pytest_hooks import TierSummary

NO_GPU = "nccl needs CUDA and this machine shows no GPU (CUDA_VISIBLE_DEVICES='')"


def _report(tier: str, when: str, outcome: str, reason: str = "") -> SimpleNamespace:
    return SimpleNamespace(
        deskcheck_tier=tier, when=when, outcome=outcome, passed=outcome == "passed",
        skipped=outcome == "skipped",
        longrepr=("test_x.py", 3, f"Skipped: {reason}") if outcome == "skipped" else None)


def _summary(*reports: SimpleNamespace) -> list[str]:
    summary = TierSummary()
    for report in reports:
        summary.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    return summary.lines()


def test_a_green_desk_run_with_nccl_skipped_in_setup_is_desk_proven() -> None:
    lines = _summary(*[r for _ in range(25) for r in (_report("DESK", "setup", "passed"),
                                                       _report("DESK", "call", "passed"),
                                                       _report("DESK", "teardown", "passed"))],
                     *[_report("METAL", "setup", "skipped", NO_GPU) for _ in range(4)])
    assert lines == [
        "DESK  (gloo on CPU, no GPU visible): 25 passed",
        "METAL (NCCL or gloo over CUDA on GPUs): 4 skipped",
        f"      4 skipped: {NO_GPU}",
        "evidence tier of this run: DESK-PROVEN",
    ], ("the summary of 25 DESK passes (each counted once, not per phase) and 4 NCCL cases "
        "skipped in setup must read as docs/suites.md shows it; it reads:\n" + "\n".join(lines))


def test_a_tier_with_a_failure_proves_nothing() -> None:
    lines = _summary(_report("DESK", "call", "passed"), _report("DESK", "call", "failed"))
    assert lines[-1] == "evidence tier of this run: NOT PROVEN", (
        "a DESK tier with a failed case proves nothing: the run must be NOT PROVEN; the summary "
        "reads:\n" + "\n".join(lines))
    lines = _summary(_report("DESK", "call", "passed"), _report("DESK", "setup", "failed"))
    assert lines[0] == "DESK  (gloo on CPU, no GPU visible): 1 passed, 1 failed", (
        "a case that fails in its setup (a pool that cannot start) is counted as failed; the "
        "summary reads:\n" + "\n".join(lines))


def test_a_run_with_no_tiered_case_prints_no_summary() -> None:
    assert _summary(SimpleNamespace(deskcheck_tier=None, when="call", outcome="passed")) == [], (
        "a run with no DESK or METAL case must print no evidence-tier summary")
