"""What the uniformity benches on projects nobody here wrote share: find the source folder,
run one cold audit timed (wall and CPU), print its decisions with the end of a witness."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any


def source_folder(default: str, marker: str, how: str) -> Path | None:
    """The first non-flag argument (else ``default``), resolved; None (after saying ``how`` to
    get it) when ``marker`` is not a file under it."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0] if args else default).resolve()
    if not (src / marker).is_file():
        print(f"no source under {src}: {how}", file=sys.stderr)
        return None
    return src


def timed_audit(label: str, target: str, **kwargs: Any):
    """One cold audit (parse cache cleared first), its counts printed under ``label``."""
    from deskcheck.static import clear_cache
    from deskcheck.uniformity import audit

    clear_cache()
    started, cpu = time.perf_counter(), time.process_time()
    report = audit(target, **kwargs)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{label}: {wall:.2f}s wall, {cpu:.2f}s cpu  functions={report.functions} "
          f"sites={len(report.sites)} decisions={len(report.decisions)} {report.counts()}")
    return report


def print_decisions(report, src: Path, verdicts: tuple[str, ...] = (), indent: str = "") -> None:
    """Every decision (or those with one of ``verdicts``), its reason and the first input of
    its verdict's class: the witness's first hops and its last, paths relative to ``src``."""
    for d in report.decisions:
        if verdicts and d.verdict.value not in verdicts:
            continue
        rel = d.file.replace(str(src) + "/", "")
        print(f"{indent}{d.verdict.value} {rel}:{d.line} {d.function} [{d.kind}] {d.condition}")
        print(f"{indent}    why: {d.why}")
        first = next((i for i in d.inputs if i.klass.value == d.verdict.value), None)
        if first is not None:
            hops = [h.replace(str(src) + "/", "") for h in first.witness]
            for hop in hops[:4] + (["..."] + hops[-3:] if len(hops) > 7 else hops[4:]):
                print(f"{indent}      {hop}")
