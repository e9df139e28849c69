"""Diff-scoped automatic mutants: mutmut's operators on the lines a branch changed, owned by
the tests that cover them (rank processes included), run by the sweep engine.

``deskcheck sweep --auto --changed-since REF`` / ``deskcheck auto --changed-since REF``.
"""

from deskcheck.mutants.auto.changes import (
    DEFAULT_TEST_PATHS,
    ChangedFile,
    ChangeSet,
    changed_production_lines,
    is_test_path,
    parse_unified_zero,
)
from deskcheck.mutants.auto.commands import add_auto_arguments, register, run_auto
from deskcheck.mutants.auto.entry import catalog_entry, replace_snippet, suggested_id
from deskcheck.mutants.auto.generate import (
    AutoMutant,
    Generation,
    Suppressed,
    generate_auto_mutants,
)
from deskcheck.mutants.auto.operators import FAMILY_RANK, OPERATORS, operator_filter
from deskcheck.mutants.auto.owners import CoveragePass, CoveragePassError, run_coverage_pass

__all__ = [
    "DEFAULT_TEST_PATHS", "FAMILY_RANK", "OPERATORS", "AutoMutant", "ChangeSet", "ChangedFile",
    "CoveragePass", "CoveragePassError", "Generation", "Suppressed", "add_auto_arguments",
    "catalog_entry", "changed_production_lines", "generate_auto_mutants", "is_test_path",
    "operator_filter", "parse_unified_zero", "register", "replace_snippet", "run_auto",
    "run_coverage_pass", "suggested_id",
]
