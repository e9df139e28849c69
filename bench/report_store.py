"""Cost of the results store and the renderers, per mutant (writes bench/results/report.md).

What the sweep pays per mutant on top of running its owners: one committed ``record_mutant``,
one ``reusable`` lookup and one ``mutant_fingerprint``. And what a report of a large run costs.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deskcheck.report.fingerprint import mutant_fingerprint  # noqa: E402
from deskcheck.report.records import MutantRecord, RunRecord  # noqa: E402
from deskcheck.report.renderers import FORMATS, render  # noqa: E402
from deskcheck.report.reportdata import load_report  # noqa: E402
from deskcheck.report.store import Store  # noqa: E402
from tests.report.sample_records import (  # noqa: E402
    BALLOT_FILE,
    BALLOT_SOURCE,
    every_verdict_mutants,
)

COUNT = 1000


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return f"{statistics.median(samples) * 1000:.2f} ms median, {p95 * 1000:.2f} ms p95"


def main() -> int:
    templates = every_verdict_mutants()
    lines = ["## report: results store and renderers", "",
             f"{COUNT} mutants, one process, this machine (2 cores, shared). "
             "`python bench/report_store.py`.", ""]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pkg").mkdir()
        (root / BALLOT_FILE).write_text(BALLOT_SOURCE)
        owners = []
        for index in range(2):
            test_file = root / f"test_owner{index}.py"
            test_file.write_text("def test_x():\n    assert True\n" * 600)  # ~18 KB each
            owners.append(test_file)
        with Store.for_project(root) as store:
            run_id = store.begin_run(RunRecord(kind="sweep", commit="bench"))
            write, lookup, fingerprint = [], [], []
            for index in range(COUNT):
                base = templates[index % len(templates)]
                definition = {"id": f"bench.M{index}", "target": base.target,
                              "operator": base.operator, "owners": base.owners}
                started = time.perf_counter()
                fp = mutant_fingerprint(definition, BALLOT_SOURCE, owners, "0.1.0")
                fingerprint.append(time.perf_counter() - started)
                started = time.perf_counter()
                store.reusable(fp)
                lookup.append(time.perf_counter() - started)
                record = MutantRecord(**{**base.to_json(), "id": f"bench.M{index}",
                                         "fingerprint": fp})
                started = time.perf_counter()
                store.record_mutant(run_id, record)
                write.append(time.perf_counter() - started)
            store.finish_run(run_id, "falls_short")
            lines += ["| per mutant | cost |", "| --- | --- |",
                      f"| `record_mutant` (committed, WAL) | {_ms(write)} |",
                      f"| `reusable` lookup | {_ms(lookup)} |",
                      f"| `mutant_fingerprint` (2 owner files, 36 KB) | {_ms(fingerprint)} |",
                      "", f"| render {COUNT} mutants | seconds | size |", "| --- | ---: | ---: |"]
            data = load_report(store, run_id)
            for fmt in FORMATS:
                started = time.perf_counter()
                text = render(data, fmt)
                lines.append(f"| {fmt} | {time.perf_counter() - started:.3f} | "
                             f"{len(text.encode()) / 1024:.0f} KiB |")
    out = ROOT / "bench" / "results" / "report.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
