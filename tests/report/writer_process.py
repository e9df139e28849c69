"""A real sweep-like writer for the process tests: records N mutants one by one, printing
``DONE id`` only after ``record_mutant`` returned (i.e. after the commit).

usage: python writer_process.py DB LABEL COUNT fresh|resume [SLEEP_S]
"""

from __future__ import annotations

import sys
import time

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store

COMMIT, CONFIG = "5e1f00d", "cfg-process-test"


def main() -> int:
    db, label, count, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    store = Store(db)
    if mode == "resume":
        run_id = store.resumable_run("sweep", COMMIT, CONFIG)
        if run_id is None:
            print("NO-RUN", flush=True)
            return 3
    else:
        run_id = store.begin_run(RunRecord(kind="sweep", commit=COMMIT, config_fingerprint=CONFIG))
    print(f"RUN {run_id}", flush=True)
    done = store.finished_ids(run_id)
    for index in range(count):
        mutant_id = f"{label}.M{index}"
        if mutant_id in done:
            continue
        store.record_mutant(run_id, MutantRecord(
            id=mutant_id, title=f"mutant {index}", target="pkg.prefetch_ballot:queue_head_digest",
            operator="replace", verdict="KILLED" if index % 7 else "SURVIVED",
            owners=["tests/test_ballot.py::test_digest_covers_head"],
            killed_by=["tests/test_ballot.py::test_digest_covers_head"] if index % 7 else [],
            duration_s=0.01, excerpt="x" * 200, fingerprint=f"{label}-{index}"))
        print(f"DONE {mutant_id}", flush=True)
        if pause:
            time.sleep(pause)
    store.finish_run(run_id, "falls_short")
    print("FINISHED", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
