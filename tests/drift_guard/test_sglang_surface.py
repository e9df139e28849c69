"""Real-world check: SGLang 0.5.23's Scheduler, resolved statically (never imported).

Uses the unpacked wheel under bench/_work/ when ``python bench/drift_sglang.py`` has fetched
it; skipped otherwise, so the suite stays hermetic (no download from a test).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.drift_guard import surface

ROOT = Path(__file__).resolve().parents[2] / "bench" / "_work" / "sglang-0.5.23"
MIXINS = ["SchedulerDisaggregationDecodeMixin", "SchedulerDisaggregationPrefillMixin",
          "SchedulerMultiplexMixin", "SchedulerPPMixin", "SchedulerDllmMixin",
          "SchedulerMlxOverlapMixin"]

pytestmark = pytest.mark.skipif(
    not (ROOT / "sglang" / "srt" / "managers" / "scheduler.py").is_file(),
    reason="SGLang 0.5.23 source not unpacked; run `python bench/drift_sglang.py` to fetch it")


def test_get_next_batch_to_run_resolves_all_six_mixins_from_source():
    result = surface("sglang.srt.managers.scheduler:Scheduler.get_next_batch_to_run",
                     roots=[ROOT])
    mro = [key.rsplit(":", 1)[-1] for key in result.to_json()["mro"]]
    assert mro == ["Scheduler", *MIXINS, "builtins.object"], (
        f"the SGLang Scheduler's MRO must resolve all six mixins from source; it is {mro}"
    )
    assert len(result.methods) > 20 and len(result.names) > 100, (
        "get_next_batch_to_run must reach more than 20 methods and 100 names; it reached "
        f"{len(result.methods)} and {len(result.names)}"
    )
    assert all(site.path[0] == "Scheduler.get_next_batch_to_run"
               for use in result.names.values() for site in use.sites), (
        "every site's path must start at the root Scheduler.get_next_batch_to_run, yet one does not"
    )
