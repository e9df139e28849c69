"""Bug-class auto mutants on a newcomer-style branch, before and after; writes
bench/results/auto_bug_class.md.

The branch (tests/auto/newcomer_branch.py) fixes "admission used this rank's free slots instead
of the group's" in the reference target: the count vote is packed into the MIN reduce and the
group's value is read back (3 changed lines). ``sweep --auto`` runs twice on it, as a PR would
(1 mutant per line, PR cap 50, the target's whole test suite for owners):

* before: mutmut's operator families only (``--operators`` with every mutmut family: the
  generation deskcheck had before the bug-class operators);
* after: the default (bug-class operators first on lines that touch a collective).

Reported: the share of mutants that model a rank-agreement defect (a bug-class family: a read
of the agreed value made rank-local, the reduce op swapped, a rank skipping the collective, a
packed slot misread, a group size read as 1, another group, the collective dropped), and how
the kills were made (``detail.kill``: an assertion, a diagnosed hang, another error, or only a
crash such as a TypeError from a ``None`` the mutant put there).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deskcheck.mutants.auto.operators import BUG_CLASS_RANK, FAMILY_RANK  # noqa: E402
from tests.auto.newcomer_branch import make_newcomer_branch  # noqa: E402

ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"}
RUNS = {"before (mutmut families only)": ["--operators", *FAMILY_RANK],
        "after (bug-class operators first)": []}


def run(repo: Path, extra: list[str], out: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "deskcheck.cli", "sweep", "--auto", "--changed-since",
                    "main", "--no-store", "--workers", "2", "--json", str(out), *extra],
                   cwd=repo, env=ENV, capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - started, json.loads(out.read_text(encoding="utf-8"))


def share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f}%)" if whole else "0 of 0"


def row(name: str, wall: float, report: dict) -> tuple[str, list[str]]:
    mutants = report["mutants"]
    families = [m["detail"]["auto"]["family"] for m in mutants]
    modelled = sum(f in BUG_CLASS_RANK for f in families)
    killed = [m for m in mutants if m["verdict"] == "KILLED"]
    kinds = Counter(m["detail"].get("kill", "unrecorded") for m in killed)
    line = (f"| {name} | {len(mutants)} ({', '.join(f'{n} {f}' for f, n in Counter(families).items())}) "
            f"| {share(modelled, len(mutants))} | {share(kinds['assertion'], len(killed))} "
            f"| {report['killed'] or 'none'} | "
            f"{', '.join(f'{n} {v}' for v, n in sorted(report['counts'].items()))} | {wall:.1f} s |")
    changes = [f"  - line {m['detail']['auto']['line']} {m['detail']['auto']['family']}: "
               f"`{m['detail']['auto']['change']}` -> {m['verdict']}"
               + (f" ({m['detail'].get('kill')}: {m['detail'].get('kill_reason')})"
                  if m["verdict"] == "KILLED" else "") for m in mutants]
    return line, changes


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-bugclass-"))
    repo = make_newcomer_branch(work / "repo")
    lines = ["| run | auto mutants (families) | model a rank-agreement defect | KILLED by an "
             "assertion | kills | verdicts | wall |", "| --- | --- | ---: | ---: | --- | --- | ---: |"]
    details: list[str] = []
    total = time.perf_counter()
    for name, extra in RUNS.items():
        wall, report = run(repo, extra, work / f"{len(details)}.json")
        line, changes = row(name, wall, report)
        lines.append(line)
        details += [f"- **{name}**:", *changes]
    text = [
        "## auto: bug-class mutants on a newcomer's branch (issue 29)", "",
        f"`python bench/auto_bug_class.py` — one run, this machine ({platform.node()}, 2 shared "
        f"cores, load not controlled), {time.perf_counter() - total:.0f} s in all. The branch "
        "(tests/auto/newcomer_branch.py) fixes \"admission used this rank's free slots instead "
        "of the group's\" in examples/tp_scheduler: the count vote is packed into the one MIN "
        "all_reduce and the group's value is read back (3 changed lines). `deskcheck sweep "
        "--auto --changed-since main` as a PR runs it (1 mutant per line, PR cap 50, owners "
        "from the target's whole suite); *before* = `--operators` with every mutmut family "
        "(the generation before the bug-class operators), *after* = the default.", "",
        *lines, "", "Each mutant:", "", *details, "",
        "A mutant *models a rank-agreement defect* when it is one of the bug-class families "
        "(LOCAL, REDOP, SKIP, SLOT, SIZE1, GROUP, DROPC; docs/mutants.md). A kill *by an "
        "assertion* is an owner's assertion (a congruence arm's divergence or safety verdict "
        "included); *only by a crash* is a TypeError/AttributeError/NameError, typically from "
        "a `None` the mutant put there.", ""]
    out = ROOT / "bench" / "results" / "auto_bug_class.md"
    out.write_text("\n".join(text), encoding="utf-8")
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
