"""Diff-scoped automatic mutants: mutmut's operators on the lines a branch changed, owned by
the tests that cover them (rank processes included), run by the sweep engine.

``deskcheck sweep --auto --changed-since REF`` / ``deskcheck auto --changed-since REF``.
"""

from __future__ import annotations

from deskcheck._lazy import lazy_exports

# Public name -> defining module, resolved on first use: every ``deskcheck`` command imports
# this package for its CLI, and mutmut/libcst load only when an auto sweep runs.
_EXPORTS: dict[str, str] = {
    "DEFAULT_TEST_PATHS": "changes", "ChangedFile": "changes", "ChangeSet": "changes",
    "changed_production_lines": "changes", "is_test_path": "changes",
    "parse_unified_zero": "changes",
    "add_auto_arguments": "commands", "register": "commands", "run_auto": "commands",
    "catalog_entry": "entry", "replace_snippet": "entry", "suggested_id": "entry",
    "AutoMutant": "generate", "Generation": "generate", "Suppressed": "generate",
    "generate_auto_mutants": "generate",
    "FAMILY_RANK": "operators", "OPERATORS": "operators", "operator_filter": "operators",
    "CoveragePass": "owners", "CoveragePassError": "owners", "run_coverage_pass": "owners",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
