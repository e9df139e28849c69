"""deskcheck.gate: red-first and regression gates over git worktrees."""

from __future__ import annotations

from deskcheck._lazy import lazy_exports

# Public name -> defining module, resolved on first use (the CLI imports this package).
_EXPORTS: dict[str, str] = {
    "TestLayout": "layout", "load_layout": "layout",
    "FAILING_VERDICTS": "redfirst", "REDFIRST_VERDICTS": "redfirst", "RedFirstReport": "redfirst",
    "TestVerdict": "redfirst", "classify": "redfirst", "run_redfirst": "redfirst",
    "FailingId": "regress", "RegressReport": "regress", "compare": "regress",
    "run_regress": "regress",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
