"""Real-world check: SGLang 0.5.23 stand-ins as SGLang's own unit tests build them (a
``SimpleNamespace`` passed as ``self``), judged statically against the source (never imported).

Skipped when the unpacked source is absent (``python bench/drift_sglang.py`` fetches it).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from deskcheck.drift_guard import assert_faithful, guard, surface

ROOT = Path(__file__).resolve().parents[2] / "bench" / "_work" / "sglang-0.5.23"
SCHEDULER = "sglang.srt.managers.scheduler:Scheduler"
TOKENIZER = "sglang.srt.managers.tokenizer_manager:TokenizerManager"

pytestmark = pytest.mark.skipif(
    not (ROOT / "sglang" / "srt" / "managers" / "scheduler.py").is_file(),
    reason="SGLang 0.5.23 source not unpacked; run `python bench/drift_sglang.py` to fetch it")


def test_the_early_return_a_no_pending_abort_takes_leaves_nothing_on_the_path():
    ns = SimpleNamespace(_pending_chunked_abort_req=None, chunked_req=None)
    verdict = assert_faithful(ns, f"{SCHEDULER}.process_pending_chunked_abort", roots=[ROOT])
    assert verdict.holds and not verdict.drift and not verdict.unknown, verdict.render()
    assert {"disaggregation_mode", "send_abort_output", "abort_request"} <= \
        set(verdict.names("unexercised")), verdict.render()
    past = next(r for r in verdict.unexercised if r.name == "send_abort_output")
    assert past.condition.startswith("past `if req is None: return`"), \
        f"the local alias of self._pending_chunked_abort_req decides the branch: {past}"


def test_a_pending_abort_stand_in_separates_the_driven_path_from_unknown_branches():
    req = SimpleNamespace(rid="r1")
    ns = SimpleNamespace(_pending_chunked_abort_req=req, chunked_req=req)
    verdict = guard(ns, model=SCHEDULER, methods=["process_pending_chunked_abort"], roots=[ROOT])
    assert "send_abort_output" in verdict.names("drift") or \
        "send_abort_output" in verdict.names("unknown"), verdict.render()
    assert "abort_request" in verdict.names("unexercised"), \
        f"`self.chunked_req is not req` is decided False by the stand-in: {verdict.render()}"


def test_tokenizer_abort_lists_the_context_read_that_replaced_a_server_args_field():
    ns = SimpleNamespace(rid_to_state={}, enable_metrics=False,
                         server_args=SimpleNamespace(tokenizer_worker_num=1))
    verdict = guard(ns, model=TOKENIZER, methods=["abort_request"], roots=[ROOT])
    assert "get_serving().tokenizer_worker_num" in verdict.names("context"), verdict.render()
    assert "server_args" in verdict.names("reverse"), \
        f"0.5.23's abort_request no longer reads server_args: {verdict.render()}"
    assert verdict.names("unexercised") == ["metrics_collector"], verdict.render()


def test_the_stage_decorator_wrapper_read_is_on_the_surface():
    result = surface(f"{SCHEDULER}.get_next_batch_to_run", roots=[ROOT])
    sites = result.names["scheduler_stage_metrics"].sites
    assert any(s.file.endswith("scheduler_stage_metrics.py") and
               s.path[-1] == "@scheduler_stage_method wrapper" for s in sites), sites
    assert "get_parallel().pp_size" in result.context, sorted(result.context)
