"""deskcheck.mutants: named defects from a TOML catalog, injected in memory, swept fast,
judged by ownership (KILLED only when an owner fails for the right reason).

Public names are loaded lazily, so processes the tests start (which import
``deskcheck.mutants.process_hook`` at interpreter start) do not pay for libcst or pytest.
"""

from __future__ import annotations

from deskcheck._lazy import lazy_exports

_EXPORTS = {
    "Catalog": "catalog", "Mutant": "catalog", "SweepSettings": "catalog",
    "load_catalog": "catalog",
    "OPERATORS": "operators", "Operator": "operators", "register": "operators",
    "BrokenMutant": "mutated", "StaleOperator": "mutated", "MutatedFunction": "mutated",
    "build_mutation": "mutation",
    "inject": "injection", "Injection": "injection",
    "resolve": "target", "LiveTarget": "target",
    "MUTANT_ENV": "process_hook", "STACKS_ENV": "process_hook",
    "label_process": "process_hook", "note_rank_group": "process_hook",
    "ItemResult": "verdicts", "decide": "verdicts", "failure_reason": "verdicts",
    "SweepOptions": "sweep", "SweepResult": "sweep", "run_sweep": "sweep",
    "AuditSettings": "uniformity_owner", "UniformityJudge": "uniformity_owner",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())

