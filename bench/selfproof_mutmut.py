"""mutmut 3.8.1 over deskcheck's own process-free modules; writes bench/results/selfproof.md.

"Process-free" = modules whose tests start no processes (no gloo ranks, no subprocess pythons,
no git): the drift guard, the harness and stubs (in-process thread ranks), the catalog, owner
selection, operators, verdict rules and reuse of the sweep engine, the report's store, shards
and fingerprints, and the gate's pure verdict/selection functions. mutmut runs shard by shard,
each in a scratch copy (``bench/_work/selfproof_mutmut/<shard>``) with its own
``[tool.mutmut]``; the repository's pyproject.toml is never touched. The report is assembled
from every shard's last results. Survivors are listed with the reason each is equivalent
(``EQUIVALENT_RULES`` below, reviewed by hand) or flagged as a gap to close.

    .venv/bin/python bench/selfproof_mutmut.py [--shard NAME ...] [--max-children N]
    .venv/bin/python bench/selfproof_mutmut.py --resume --shard NAME   # continue a shard
    .venv/bin/python bench/selfproof_mutmut.py --rerun-survivors  # survivors vs today's tests
    .venv/bin/python bench/selfproof_mutmut.py --rerun-survivors --shard NAME --module PATH
                                                  # only PATH's survivors (repeatable)
    .venv/bin/python bench/selfproof_mutmut.py --rerun-survivors --gaps-only --shard NAME
                                                  # only the survivors no rule explains
    .venv/bin/python bench/selfproof_mutmut.py --report-only     # re-read every shard
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK_ROOT = ROOT / "bench" / "_work" / "selfproof_mutmut"
RESULTS = ROOT / "bench" / "results" / "selfproof.md"
MUTMUT = str(Path(sys.executable).with_name("mutmut"))

# One shard per part, each in its own scratch copy, so one part can be re-run alone (mutmut
# is CPU-heavy: `make bench` runs the shards one after another, a developer runs the one that
# changed). A shard is the modules it mutates and the process-free tests that own them: no
# gloo ranks, no subprocess pythons, no git. Modules left out start processes in every test
# that reaches them (the CLIs, the pytest hooks, the rank pools, the git-driven gate sides).
# A test file whose other tests start processes is named test by test (``_only``); a test
# file that imports a shard's module and runs none of its tests here is in LEFT_OUT with the
# reason (tests/selfproof/test_mutmut_bench.py checks both, so the lists cannot rot silently).


def _only(path: str, *tests: str) -> list[str]:
    """``path::test`` for each named test: the process-free tests of a mixed file."""
    return [f"{path}::{test}" for test in tests]


_SCREEN_80 = _only("tests/ux/test_screen_80.py", "test_history_at_80_columns",
                   "test_progress_bars_at_80_columns_keep_count_time_and_summaries_whole",
                   "test_redfirst_at_80_columns", "test_sweep_auto_at_80_columns",
                   "test_sweep_table_and_blocks_at_80_columns")
SHARDS: dict[str, tuple[list[str], list[str]]] = {
    "drift_guard": ([
        "deskcheck/static/_collect.py",
        # the collector itself, split out of _collect.py on 2026-12-04 (the 896 mutants the
        # shard measured before the split)
        "deskcheck/static/_collector.py",
        "deskcheck/static/_context_reads.py",
        "deskcheck/drift_guard/_plant.py",
        "deskcheck/static/_surface.py",
        "deskcheck/drift_guard/verdicts.py",
    ], [
        "tests/drift_guard/test_guard.py",
        "tests/drift_guard/test_surface.py",
        "tests/drift_guard/test_stubs.py",
        "tests/drift_guard/test_harness.py",
        "tests/drift_guard/test_surface_mechanisms.py",
        "tests/drift_guard/test_verdict_details.py",
        "tests/drift_guard/test_can_fail.py",
        "tests/drift_guard/test_surface_sites.py",
        "tests/drift_guard/test_pointers.py",
        "tests/drift_guard/test_verdict_rendering.py",
        "tests/drift_guard/test_surface_properties.py",
        "tests/static/test_collect_mechanisms.py",
        "tests/drift_guard/test_verdict_cases.py",
        # guard() of any other object, or of a Provision: the path-precise verdict
        "tests/drift_guard/test_paths.py",
        # the collector's statements and expressions as real stand-in tests drive them
        # (loops, comprehensions, context reads, locals bound to a self chain)
        "tests/drift_guard/standins/test_discovery.py",
        "tests/drift_guard/standins/test_path_verdicts.py",
        "tests/drift_guard/test_static_bindings.py",
        "tests/drift_guard/test_class_model.py",
        "tests/drift_guard/test_pointer_report.py",
        "tests/static/test_class_lookup.py",
        "tests/drift_guard/test_registry.py",
        "tests/static/test_collect_statements.py",
        "tests/static/test_collect_expressions.py",
        "tests/static/test_collect_calls.py",
        # reads through an element of a container field, and conditions decided from it (s31)
        "tests/static/test_collect_elements.py",
        "tests/static/test_collect_params.py",
        "tests/drift_guard/standins/test_passed_chains.py",
        "tests/drift_guard/standins/test_literal_choices.py",
        # grow-only locals, records the test builds, compiled-extension bases (s33)
        "tests/static/test_grow_only_locals.py",
        "tests/static/test_compiled_bases.py",
        "tests/drift_guard/standins/test_record_arguments.py",
        # process-free tests of these modules written or moved since the last full run
        "tests/drift_guard/test_class_members.py",
        "tests/drift_guard/test_hollow.py",
        "tests/static/test_class_resolution.py",
        "tests/static/test_constants.py",
        "tests/static/test_decided_forms.py",
        "tests/static/test_import_fallbacks.py",
        "tests/static/test_membership_undecided.py",
        "tests/static/test_re_export_chains.py",
        "tests/static/test_sources.py",
        "tests/static/test_facts_cache.py",
        # direct tests of the collector gaps the 2026-12-05 run showed (s12)
        "tests/static/test_call_node_of_a_method_call.py",
        "tests/static/test_case_guard_decisions.py",
        "tests/static/test_loop_name_scope.py",
        "tests/static/test_external_bases_say_where.py",
    ]),
    "drift_guard_static": ([
        "deskcheck/static/_members.py",
        "deskcheck/static/_model.py",
        "deskcheck/static/_static.py",
        "deskcheck/static/_hollow.py",
        "deskcheck/static/_sources.py",
        "deskcheck/drift_guard/_discover.py",
        "deskcheck/drift_guard/pointers.py",
        "deskcheck/drift_guard/registry.py",
    ], [
        "tests/drift_guard/test_guard.py",
        "tests/drift_guard/test_surface.py",
        "tests/drift_guard/test_stubs.py",
        "tests/drift_guard/test_harness.py",
        "tests/drift_guard/test_hollow.py",
        "tests/drift_guard/test_pointers.py",
        "tests/drift_guard/test_class_members.py",
        "tests/drift_guard/test_class_model.py",
        "tests/drift_guard/test_static_bindings.py",
        "tests/drift_guard/test_surface_mechanisms.py",
        "tests/drift_guard/test_verdict_details.py",
        "tests/drift_guard/test_can_fail.py",
        "tests/drift_guard/test_guard_discovery.py",
        "tests/drift_guard/test_pointer_report.py",
        "tests/static/test_class_lookup.py",
        "tests/drift_guard/test_registry.py",
        "tests/drift_guard/test_surface_sites.py",
        "tests/drift_guard/test_pointer_citations.py",
        "tests/drift_guard/test_surface_properties.py",
        "tests/static/test_class_resolution.py",
        "tests/static/test_import_fallbacks.py",
        "tests/static/test_re_export_chains.py",
        "tests/static/test_hollow_split.py",
        "tests/static/test_sources.py",
        "tests/static/test_compiled_bases.py",
        "tests/static/test_id_keyed_caches.py",
        "tests/uniformity/test_overlay.py",
        "tests/uniformity/test_witness_determinism.py",
        "tests/drift_guard/test_verdict_rendering.py",
        "tests/static/test_collect_expressions.py",
        "tests/static/test_collect_mechanisms.py",
        # the import problems of guard modules, written for the 2026-12-05 run's gaps (s12)
        "tests/drift_guard/test_guard_import_problems.py",
        "tests/static/test_external_bases_say_where.py",
        "tests/uniformity/test_walk_equivalence.py",  # Sources.scan, note_reads (s25)
        *_only("tests/drift_guard/test_cli.py", "test_pointers_cli",
               "test_surface_errors_exit_2_with_the_reason",
               "test_surface_finds_an_installed_package_without_a_root", "test_surface_json",
               "test_surface_text_and_runtime_mode",
               "test_the_harnesses_key_is_searched_unless_paths_are_given"),
    ]),
    "mutants": ([
        "deskcheck/mutants/verdicts.py",
        "deskcheck/mutants/catalog.py",
        "deskcheck/mutants/owners.py",
        "deskcheck/mutants/reuse.py",
    ], [
        "tests/mutants/test_mutants_verdicts.py",
        "tests/mutants/test_mutants_catalog.py",
        "tests/mutants/test_catalog_validation.py",
        "tests/mutants/test_verdict_evidence.py",
        "tests/mutants/test_verdict_combinations.py",
        "tests/mutants/test_owner_selection.py",
        "tests/mutants/test_reuse_fingerprint.py",
        "tests/mutants/test_catalog_api.py",
        "tests/mutants/test_timeout_budgets.py",
        "tests/auto/test_any_owner_failure_kills.py",
        "tests/mutants/test_catalog_problems.py",
        "tests/mutants/test_owner_resolution.py",
        "tests/mutants/test_reuse_files_and_markers.py",
        "tests/auto/test_engine_adapter.py",
        "tests/auto/test_entry.py",
        "tests/mutants/test_bug_class_operators.py",
        "tests/mutants/test_kill_proof.py",
        "tests/mutants/test_kill_proof_rules.py",
        "tests/mutants/test_mutants_injection.py",
        "tests/mutants/test_mutants_operators.py",
        "tests/mutants/test_operator_forms.py",
        "tests/mutants/test_owner_index.py",
        "tests/mutants/test_reuse_scale.py",
        "tests/mutants/test_uniformity_owner.py",
        "tests/ux/test_terminal_output.py",
        "tests/mutants/test_kill_kinds_and_crash_kills.py",
        *_only("tests/mutants/test_catalog_occurrence.py",
               "test_an_occurrence_the_target_does_not_have_is_named_at_its_line",
               "test_an_occurrence_the_target_has_is_accepted"),
        *_only("tests/mutants/test_incremental_fast_path.py",
               "test_declared_kills_reads_literal_ids_and_flags_dynamic_ones"),
        *_only("tests/mutants/test_mutants_reference_catalog.py",
               "test_each_mutant_making_a_gating_input_rank_local_is_owned_by_the_audit_and_an_arm",
               "test_reference_catalog_has_24_owned_mutants_matching_todays_source"),
        *_only("tests/mutants/test_process_hook_nested.py",
               "test_a_nested_mutant_run_keeps_the_outer_mutant"),
        *_only("tests/reliability/test_units.py",
               "test_a_dotdot_owner_outside_the_sweeps_tests_is_refused_when_the_catalog_is_read",
               "test_a_dotdot_owner_the_sweep_cannot_resolve_is_refused_when_the_catalog_is_read",
               "test_a_run_with_a_planned_mutant_never_judged_does_not_hold",
               "test_a_target_module_that_exists_nowhere_is_refused_when_the_catalog_is_read",
               "test_an_unknown_deskcheck_key_is_reported_with_its_line"),
        *_only("tests/suites/test_split_reference_catalog.py",
               "test_every_congruence_killed_mutant_is_classified"),
        *_only("tests/ux/test_catalog_one_pass.py",
               "test_a_bad_owner_node_id_is_a_catalog_error_with_a_suggestion",
               "test_a_conftest_that_makes_items_defers_owners_to_collection",
               "test_a_sound_catalog_still_loads", "test_every_problem_in_one_pass_with_suggestions",
               "test_owners_only_collection_can_decide_are_not_reported",
               "test_ownres_suggests_owners_not_the_operators_keys"),
        *_SCREEN_80,
    ]),
    "operators": ([
        "deskcheck/mutants/operators/base.py",
        "deskcheck/mutants/operators/drop_call.py",
        "deskcheck/mutants/operators/force_branch.py",
        "deskcheck/mutants/operators/offset.py",
        "deskcheck/mutants/operators/replace.py",
        "deskcheck/mutants/operators/return_value.py",
        "deskcheck/mutants/operators/swap.py",
    ], [
        "tests/mutants/test_mutants_operators.py",
        "tests/mutants/test_mutants_injection.py",
        "tests/mutants/test_operator_forms.py",
        # the operators' parameter checks run when a catalog is loaded
        "tests/mutants/test_mutants_catalog.py",
        "tests/mutants/test_catalog_validation.py",
        "tests/mutants/test_operator_sites.py",
        "tests/mutants/test_bug_class_operators.py",
    ]),
    "report": ([
        "deskcheck/report/shard.py",
        "deskcheck/report/fingerprint.py",
        "deskcheck/report/store.py",
    ], [
        "tests/report/test_fingerprint_and_shard.py",
        "tests/report/test_store.py",
        "tests/report/test_shards.py",
        "tests/report/test_fingerprint_pins.py",
        "tests/report/test_store_resume.py",
        "tests/report/test_store_details.py",
        "tests/report/test_store_contract.py",
        "tests/auto/test_engine_adapter.py",
        "tests/mutants/test_reuse_files_and_markers.py",
        "tests/reliability/test_results_after_an_unfinished_run.py",
        "tests/report/test_history_judged_of_planned.py",
        "tests/report/test_history_merge.py",
        "tests/report/test_incremental.py",
        "tests/report/test_merge_exit_status.py",
        "tests/report/test_renderers.py",
        "tests/report/test_run_selection.py",
        "tests/report/test_shard_balance.py",
        "tests/report/test_split_in_every_format.py",
        "tests/report/test_store_opening.py",
        "tests/report/test_balanced_plan_rules.py",
        "tests/report/test_results_exit_status.py",
        *_only("tests/gate/test_gate_store.py", "test_help_says_how_gate_runs_are_recorded"),
        *_only("tests/mutants/test_option_plumbing.py",
               "test_an_auto_only_option_on_a_catalog_sweep_is_a_usage_error",
               "test_mutants_run_record_hands_recording_to_the_pytest_it_starts",
               "test_shard_by_count_plans_by_the_ids_hash_without_any_store",
               "test_sweep_record_turns_recording_on_for_the_run_and_off_after",
               "test_the_catalog_key_is_the_default_and_catalog_wins_over_it"),
        *_only("tests/report/test_commands.py", "test_bad_run_selector_is_a_usage_error",
               "test_diff_exits_1_when_tonight_got_worse",
               "test_history_lists_runs_from_the_project_store",
               "test_report_in_a_project_without_store_says_what_to_do",
               "test_report_writes_each_format", "test_the_store_key_of_the_config_moves_the_store"),
        *_only("tests/report/test_html.py", "test_html_is_self_contained_and_escapes_what_it_shows"),
        *_only("tests/report/test_stryker.py",
               "test_files_are_keyed_by_path_with_source_and_located_mutants",
               "test_status_reason_keeps_the_deskcheck_verdict"),
        *_SCREEN_80,
    ]),
    "gate": ([
        "deskcheck/gate/redfirst.py",
        "deskcheck/gate/regress.py",
        "deskcheck/gate/selection.py",
    ], [
        "tests/gate/test_verdicts.py",
        "tests/gate/test_changed_tests.py",
        "tests/gate/test_redfirst_verdicts.py",
        "tests/gate/test_regress_verdicts.py",
        "tests/gate/test_command_options.py",
        "tests/gate/test_gate_promise_rules.py",
        "tests/shapes/test_hint_once.py",
        "tests/gate/test_selection_doctests_and_cases.py",
        "tests/gate/test_subtests_and_failure_words.py",
        "tests/gate/test_gate_report_words.py",
        *_only("tests/gate/test_json_on_every_exit_path.py",
               "test_an_interrupted_gate_writes_exit_code_130_in_its_json"),
        *_only("tests/gate/test_failure_line.py",
               "test_a_long_rank_line_is_cut_before_the_split_is",
               "test_the_failure_line_gains_the_first_split_with_each_ranks_way",
               "test_the_failure_line_is_the_rank_lines_else_the_first",
               "test_the_probe_keeps_a_failures_notes"),
        *_only("tests/gate/test_isolation.py",
               "test_a_name_absent_from_the_side_is_not_found_rather_than_borrowed",
               "test_modules_imported_before_the_redirect_are_purged"),
        *_only("tests/gate/test_selection.py", "test_bad_config_names_file_line_and_fix",
               "test_configured_paths_win", "test_default_classification"),
        *_only("tests/ux/test_cli_conventions.py",
               "test_every_command_has_a_description_and_every_option_a_help_text",
               "test_green_on_base_hints_the_pin_marker_in_text_and_markdown",
               "test_sweep_and_mutants_help_open_with_their_own_description",
               "test_sweep_takes_dash_n_like_regress_and_pytest_xdist"),
        *_SCREEN_80,
    ]),
}
# Test files that import a shard's module but run in no shard: every test of theirs starts a
# process (git, a python, gloo ranks, a fork) or needs SGLang's source (skipped without it).
_GIT = "every test drives git (a real repository)"
_PYTHON = "every test starts a python (the CLI or pytest in a subprocess)"
LEFT_OUT: dict[str, str] = {
    "tests/auto/test_coverage_map.py": "every test runs a sweep whose pytest starts processes",
    "tests/gate/test_cleanup.py": _PYTHON + " and git",
    "tests/uniformity/test_audit_cache.py": _GIT + " (--changed-since) and whole audits through the cache",
    "tests/gate/test_git_errors.py": _GIT,
    "tests/gate/test_redfirst.py": _GIT + " and the two pytest sides",
    "tests/gate/test_self_history.py": _GIT + " (deskcheck's own history)",
    "tests/mutants/test_mutants_process_hook.py": _PYTHON + " to apply the mutant in",
    "tests/report/test_store_processes.py": "every test writes the store from other processes",
    "tests/shapes/test_own_folders.py": _GIT,
    "tests/ux/test_results_and_show.py": _PYTHON,
    "tests/drift_guard/test_sglang_standins.py": "needs SGLang's source: skipped without it",
    "tests/drift_guard/test_sglang_surface.py": "needs SGLang's source: skipped without it",
}
# files the tests need besides the test modules themselves: the whole tests/ tree (helpers,
# conftests and fixtures follow the tests wherever they move) and the example projects
SUPPORT = ["tests", "examples"]

# Survivors reviewed by hand and found equivalent: (function, a piece of the mutated line,
# why no test can tell). Matched by content, not by mutmut's numbering (which shifts).
_SPLIT = "the first piece of a split (the last of an rsplit) is the same whatever the maxsplit"
_MODE = ("the default mode string is never compared: a class target is read at runtime unless "
         "mode == 'static', a string target statically unless mode == 'runtime'")
_ROW = ("the row comes from a SELECT of exactly these columns: zip's lengths always match, "
        "so strict= changes nothing")
_READ_BACK = ("the column is only ever read back with json.loads into a dict: the key order of "
              "the stored text is never observed")
_DETAIL = ("_detail is called for a collection error only after collection_error_for found "
           "one (_side_outcome): the fallback record is never used")
_SQL_CASE = "SQLite keywords and identifiers are case-insensitive: the statement is the same"
_FULL_PARSE = ("the full parse holds every class the hollow one does (and those in function "
               "bodies, told apart by qualname and line): parsing in full where the hollow "
               "parse suffices finds the same class, only slower")
_BUILTINS = ("a class of module 'builtins' has no source file: inspect.getsourcefile raises "
             "TypeError for it, and the next lines return None just as the early return does")
_ANY_PROBLEM = ("the count only answers 'did this entry have a problem?': after one report or "
                "more it is non-zero either way")
_STRING_ONLY = ("reached only when raw[key] is a string (the `or` stops at a non-string or an "
                "absent key): the default is never used")
_HAS_KEYS = "every operator has a key of its own: the joined list is never empty"
_EMPTY_BRACKETS = ("a line like '[ ]' is never a header anyway: _is_header needs a name inside "
                   "the brackets and starts with optional spaces then '['")
_PRAGMA_TIMEOUT = ("the PRAGMA busy_timeout on the next line sets the same busy handler "
                   "(60 s), replacing connect's timeout before any statement can wait")
_SNAPSHOT_CACHE = ("the set only spares a SELECT: a miss falls back to the sources table, "
                   "which holds the row")
_DEFAULT_ROOT = ("the default store is ROOT/.deskcheck/results.sqlite: its grandparent, "
                 "Store's fallback root, is ROOT itself")
_WHOLE_STATEMENT = ("a call whose statement becomes `pass` is replaced with its whole "
                    "statement (the parent is replaced after the child): mapping the call "
                    "to `value` as well changes nothing")
_LPAR = "every libcst expression node has lpar/rpar: the test is always true"
_ONCE = ("the snippet occurs exactly once (checked just above): replacing at most 1, 2 or "
         "every occurrence is the same")
_KIND_NAME = ("a token kind's name is only compared with 'compare' and with the other "
              "token's kind: any other name for binary/boolean acts the same")
_ONE_COLON = ("a cited path holds no ':' (the citation pattern allows only word characters, "
              "'.', '/' and '-' in it): the target has one ':', and every split of it gives the "
              "same first piece")
_UTF8 = "'UTF-8' and 'utf-8' name the same codec"
_HAS_BODY = "reached only after hasattr(node, 'body'): the default is never used"
_REAL_FRAME = ("the traceback of an exception caught in load() starts at load's own frame in "
               "_discover.py, a real file: `inner` is never None, so its fallback is never used")
_LOCALS = ("no class is named '<locals>': for a local class the walk by qualified name fails "
           "at that part, and the same search by name follows")
_LAZY_RESOLVING = ("`exact` only spares computing owner_roots.resolving (a pytest config "
                   "lookup) for an owner without '..': load_catalog always passes an OwnerRoots, "
                   "and static_owner_problem's '..' check returns None for such a path")
EQUIVALENT_RULES: list[tuple[str, str, str]] = [
    ("mutants.verdicts.x_exception_name", 'split(":", )', _SPLIT),
    ("mutants.verdicts.x_exception_name", 'split(":", 2)', _SPLIT),
    ("mutants.verdicts.x_exception_name", 'rsplit(".", )', _SPLIT),
    ("mutants.verdicts.x_exception_name", 'rsplit(".", 2)', _SPLIT),
    ("mutants.verdicts.x__excerpt", ">= limit", "a body of exactly `limit` characters: "
     "body[-limit:] is the whole body"),
    ("mutants.verdicts.x__excerpt", "or True else body", "body[-limit:] of a body shorter "
     "than the limit is the whole body"),
    ("report.fingerprint.x_canonical_json", "ensure_ascii=None", "None is falsy: json.dumps "
     "treats it as False"),
    ("report.fingerprint.x_", '"UTF-8"', "'UTF-8' and 'utf-8' name the same codec"),
    ("report.shard.x_parse_shard", "rpartition", "with one '/' both split alike; a spec with "
     "more than one '/' is refused either way, with the same message"),
    ("report.shard.x_shard_of", "from_bytes(digest[:8], )", "byteorder defaults to 'big' "
     "since Python 3.11"),
    ("static._collect.x_function_facts", "cached = None", "the facts cache is a speed-up: "
     "without it the same facts are computed again"),
    ("static._collect.x_function_facts", "_FACTS.get(None)", "the facts cache is a "
     "speed-up: without it the same facts are computed again"),
    ("static._collect.x_function_facts", "_FACTS[key] = None", "the facts cache is a "
     "speed-up: without it the same facts are computed again"),
    ("static._collect.xǁ_Collectorǁ__init__", "(self_name) or True", "self_names = {None} "
     "matches no ast.Name id (ids are str): nothing is recorded either way"),
    ("static._surface.x__roles_for", ".get(kind, None)", "every access kind is a key of "
     "the table: the default is never used"),
    ("static._surface.x__roles_for", ".get(kind, )", "every access kind is a key of the "
     "table: the default is never used"),
    ("static._surface.x_build_model", 'mode: str = "XXautoXX"', _MODE),
    ("static._surface.x_build_model", 'mode: str = "AUTO"', _MODE),
    ("static._surface.x_surface", 'mode: str = "XXautoXX"', _MODE),
    ("static._surface.x_surface", 'mode: str = "AUTO"', _MODE),
    ("drift_guard.verdicts.x_guard", 'mode: str = "XXruntimeXX"', _MODE),
    ("drift_guard.verdicts.x_guard", 'mode: str = "RUNTIME"', _MODE),
    ("drift_guard.verdicts.x_can_fail", 'mode: str = "XXruntimeXX"', _MODE),
    ("drift_guard.verdicts.x_can_fail", 'mode: str = "RUNTIME"', _MODE),
    ("static._collect.xǁ_Collectorǁ_visit_call", "_super_name(None)", "super().m() is "
     "then recorded as a read by the generic visit; a read and a call of a method enter it "
     "alike (_roles_for)"),
    ("static._collect.xǁ_Collectorǁ_visit_call", "(isinstance(func, ast.Attribute)) or True",
     "_chain of a non-attribute is None: the same as the else branch"),
    ("static._surface.x_trace", 'split(".", )', _SPLIT),
    ("static._surface.x_trace", 'split(".", 2)', _SPLIT),
    ("static._surface.x_trace", '("." in acc.name) and False', "a dotted access is a read "
     "or a call of its top name; _roles_for treats both alike"),
    ("static._surface.x_trace", "NameUse(None)", "a NameUse is reached by its key in "
     "Surface.names; its own name field is never read"),
    ("static._surface.xǁSurfaceǁ_with", "NameUse(None", "a NameUse is reached by its key "
     "in reads/writes; its own name field is never read"),
    ("drift_guard._plant.x_plant_read", "token_hex(5)", "the canary's length is arbitrary: "
     "only its uniqueness matters"),
    ("drift_guard._plant.x_plant_read", "token_hex(None)", "the canary's length is arbitrary: "
     "only its uniqueness matters"),
    ("drift_guard.verdicts.x_signature_misfit", "{p.name: 1", "Signature.bind checks names and "
     "counts, never the values bound"),
    ("gate.redfirst.x__detail", 'or {"XXmessageXX": ""}', _DETAIL),
    ("gate.redfirst.x__detail", 'or {"MESSAGE": ""}', _DETAIL),
    ("gate.redfirst.x__detail", 'or {"message": "XXXX"}', _DETAIL),
    # report/store.py
    ("report.store.x__run_from_row", "strict=", _ROW),
    ("report.store.x__run_from_row", "row, )", _ROW),
    ("report.store.x__mutant_from_row", "strict=", _ROW),
    ("report.store.x__mutant_from_row", "row, )", _ROW),
    # only the sort_keys mutations: a dropped default=str is a gap (test_store_contract.py:
    # a value JSON cannot hold, in detail or in extra, is stored as its text)
    ("report.store.x__mutant_values", "sort_keys=None", _READ_BACK),
    ("report.store.x__mutant_values", "sort_keys=False", _READ_BACK),
    ("report.store.x__mutant_values", 'json.dumps(data["detail"], default=str)', _READ_BACK),
    ("report.store.x__mutant_values", "                                 default=str)", _READ_BACK),
    ("report.store.x__run_values", "sort_keys=", _READ_BACK),
    ("report.store.x__run_values", "json.dumps(run.summary, )", _READ_BACK),
    ("report.store.xǁStoreǁfinish_run", "json.dumps(summary, sort_keys=", _READ_BACK),
    ("report.store.xǁStoreǁfinish_run", "json.dumps(summary, )", _READ_BACK),
    ("report.shard.x_shard_of", 'encode("UTF-8")', "'UTF-8' and 'utf-8' name the same codec"),
    # static/_members.py, _model.py (issue 17, round two)
    ("static._members.x__decorator_name", 'return "XXXX"', "a decorator's name is only "
     "compared with property, cached_property, abstractproperty, staticmethod and classmethod: "
     "any other text for an unnamed one acts like ''"),
    ("static._model.xǁClassModelǁrequire_root", "get_close_matches(name, known, )",
     "n=3 is difflib.get_close_matches's default"),
    ("static._model.x__runtime_source", 'if parsed.bodies or "<locals>"', _FULL_PARSE),
    ("static._model.x__runtime_source", "if node is None or parsed.bodies", _FULL_PARSE),
    ("static._model.x__runtime_source", 'klass is object and klass.__module__ == "builtins"',
     _BUILTINS),
    ("static._model.x__runtime_source", 'klass.__module__ == "XXbuiltinsXX"', _BUILTINS),
    ("static._model.x__runtime_source", 'klass.__module__ == "BUILTINS"', _BUILTINS),
    ("static._model.x__find_class_node", 'node = ""', "a qualified name has at least one "
     "part: the loop always runs and sets node before it is read"),
    # mutants/catalog.py
    ("mutants.catalog.x__mutant", "problems = 1", _ANY_PROBLEM),
    ("mutants.catalog.x__mutant", "problems -= 1", _ANY_PROBLEM),
    ("mutants.catalog.x__mutant", "problems += 2", _ANY_PROBLEM),
    ("mutants.catalog.x__mutant", "raw.get(key, None).strip()", _STRING_ONLY),
    ("mutants.catalog.x__mutant", "raw.get(key, ).strip()", _STRING_ONLY),
    ("mutants.catalog.x__mutant", 'raw.get(key, "XXXX").strip()', _STRING_ONLY),
    ("mutants.catalog.x__mutant", 'raw.get("id", None)', "every later use of the id checks "
     "that it is a non-empty string first: None and '' (no id) fail that check alike"),
    ("mutants.catalog.x__mutant", 'raw.get("id", )', "every later use of the id checks "
     "that it is a non-empty string first: None and '' (no id) fail that check alike"),
    ("mutants.catalog.x__mutant", "(key in raw) or True else header", "the line of a key its "
     "block lacks is the block's header line (line 1 without a block): the same either way"),
    ("mutants.catalog.x__mutant", "params: dict[str, Any] = None", "params is only read when "
     "the operator is a known name; otherwise the entry has a problem and is never built"),
    ("mutants.catalog.x__mutant", "or 'XXnoneXX'", _HAS_KEYS),
    ("mutants.catalog.x__mutant", "or 'NONE'", _HAS_KEYS),
    ("mutants.catalog.x_load_catalog", 'rpartition(":")[2] or 1)', "every problem's location "
     "ends in ':LINE': the fallback of the sort key is never used"),
    ("drift_guard._discover.x_candidate_files", 'decode(errors="replace")', "bytes.decode's "
     "default codec is 'utf-8' (never the locale's)"),
    ("drift_guard._discover.x_candidate_files", 'decode("UTF-8", errors="replace")', _UTF8),
    ("static._sources.xǁParsedFileǁfunction", 'decode("UTF-8")', _UTF8),
    ("mutants.catalog.x__mutant", 'exact = ".." in owner or isinstance(owner_roots, OwnerRoots)',
     _LAZY_RESOLVING),
    ("mutants.catalog.x__mutant", "owner_roots.resolving if (exact) or True else None",
     _LAZY_RESOLVING),
    ("mutants.catalog.x__mutant", "owner_roots.universe if (exact) or True else ()",
     _LAZY_RESOLVING),
    ("mutants.catalog.x_load_catalog", 'encoding="UTF-8"', "'UTF-8' and 'utf-8' name the same "
     "codec"),
    ("mutants.catalog.xǁ_LazyMarkedǁ__init__", 'self._ids: set[str] | None = ""', "_ids is "
     "read only after ids() has set it (the _read flag guards it)"),
    ("mutants.catalog.xǁ_LazyMarkedǁ__init__", "self._read = None", "None is falsy like False"),
    ("mutants.catalog.xǁ_LazyMarkedǁids", "kills_marker_ids(self.root, self.tests), False",
     "reading the markers again gives the same ids: the flag only spares the second read"),
    ("mutants.catalog.xǁ_Linesǁ__init__", r're.match(r"XX^\s*\[\s*\]XX", line)', _EMPTY_BRACKETS),
    ("mutants.catalog.xǁ_Linesǁ__init__", r'and not re.match(r"^\s*\[\s*\]", line) or self.',
     _EMPTY_BRACKETS),
    # report/store.py, report/fingerprint.py, report/shard.py, mutants/operators/ (issue 17,
    # round two, branch s5-c)
    ("report.store.xǁStoreǁ_connect", "timeout=BUSY_TIMEOUT_MS * 1000", _PRAGMA_TIMEOUT),
    ("report.store.xǁStoreǁ_connect", "timeout=BUSY_TIMEOUT_MS / 1001", _PRAGMA_TIMEOUT),
    ("report.store.xǁStoreǁ_connect", "connect(self.path, isolation_level=None)", _PRAGMA_TIMEOUT),
    ("report.store.xǁStoreǁ_source_to_snapshot", "if not source_file and (run_id", "an empty "
     "path is never in the cache nor the sources table, and read_source finds no file for it: "
     "None either way"),
    ("report.store.xǁStoreǁ_source_to_snapshot", "_snapshotted.add(None)", _SNAPSHOT_CACHE),
    ("report.store.xǁStoreǁrecord_mutant", "_snapshotted.add(None)", _SNAPSHOT_CACHE),
    ("report.store.xǁStoreǁsnapshot_source", "_snapshotted.add(None)", _SNAPSHOT_CACHE),
    ("report.store.xǁStoreǁrecord_mutant", "_source_to_snapshot(None, path)", "(None, path) "
     "misses the cache and the table, so the file is read again for each mutant, and INSERT "
     "OR IGNORE keeps the run's first snapshot: only slower"),
    ("report.store.xǁStoreǁbegin_run", "lastrowid or 1", "an INSERT into an AUTOINCREMENT "
     "table always sets lastrowid to the new id (>= 1): the fallback is never used"),
    ("report.store.xǁStoreǁresumable_run", '"and config_fingerprint = ? and shard', _SQL_CASE),
    ("report.store.xǁStoreǁresumable_run", '"AND CONFIG_FINGERPRINT = ? AND SHARD', _SQL_CASE),
    ("report.store.xǁStoreǁfor_project", "cls(default_store_path(root), root=None)",
     _DEFAULT_ROOT),
    ("report.store.xǁStoreǁfor_project", "cls(default_store_path(root), )", _DEFAULT_ROOT),
    ("mutants.operators.base.x_normalized", '"XX XX".join(text.split())', "the same joiner "
     "is applied to both sides of the comparison, and split() pieces hold no space: any "
     "joiner tells the same texts apart"),
    ("mutants.operators.base.xǁOperatorǁvalidate", "ok = None", "None is falsy like False: "
     "`if not ok` reads it the same"),
    ("mutants.operators.drop_call.xǁDropCallǁapply", "if id(None) not in statements.call_ids",
     _WHOLE_STATEMENT),
    ("mutants.operators.drop_call.xǁ_StatementCallsǁvisit_Expr", "call_ids.add(None)",
     _WHOLE_STATEMENT),
    ("mutants.operators.drop_call.xǁ_StatementCallsǁvisit_Expr", "call_ids.add(id(None))",
     _WHOLE_STATEMENT),
    ("mutants.operators.offset.xǁOffsetǁapply", 'if (hasattr(site, "lpar")) or True', _LPAR),
    ("mutants.operators.offset.xǁOffsetǁapply", "else code_of(None)", _LPAR),
    ("mutants.operators.offset.xǁOffsetǁapply", 'sign = "+" if by >= 0', "by = 0 is refused "
     "by Offset.check before a mutant is built: by is never 0 here"),
    ("mutants.operators.replace.xǁReplaceǁapply", "text.replace(old, new, )", _ONCE),
    ("mutants.operators.replace.xǁReplaceǁapply", "text.replace(old, new, 2)", _ONCE),
    ("mutants.operators.return_value.xǁReturnValueǁapply", "if (body.body) or True else None",
     "an indented block always holds at least one statement: body.body is never empty"),
    ("mutants.operators.swap.x__token_kind", '("XXbinaryXX"', _KIND_NAME),
    ("mutants.operators.swap.x__token_kind", '("BINARY"', _KIND_NAME),
    ("mutants.operators.swap.x__token_kind", '("XXbooleanXX"', _KIND_NAME),
    ("mutants.operators.swap.x__token_kind", '("BOOLEAN"', _KIND_NAME),
    ("mutants.operators.swap.xǁSwapǁ_operator_sites", "return True", "the sites are gathered "
     "by the callback itself: the collector's own found list, which the return value fills, "
     "is never read"),
    ("mutants.operators.swap.xǁSwapǁapply", 'if (hasattr(site, "lpar")) or True', _LPAR),
    ("mutants.operators.swap.xǁSwapǁapply", "if hasattr(site, k) or hasattr(new_op, k)",
     "every libcst operator node has whitespace_before and whitespace_after: `and` and `or` "
     "agree"),
    # drift_guard/pointers.py, _hollow.py, _discover.py, _model.py, _plant.py (issue 17, s5-b)
    *[(function, piece, _ONE_COLON)
      for function in ("drift_guard.pointers.x__check", "drift_guard.pointers.x_check_pointers")
      for piece in ('cite.target.rsplit(":", )', 'cite.target.split(":", 1)',
                    'cite.target.rsplit(":", 2)')],
    ("drift_guard.pointers.x__check", 'encoding="UTF-8"', _UTF8),
    ("drift_guard.pointers.x_find_citations", 'encoding="UTF-8"', _UTF8),
    ("drift_guard._discover.x_candidate_files", 'encoding="UTF-8"', _UTF8),
    ("drift_guard._discover.x_search_paths", 'encoding="UTF-8"', _UTF8),
    ("drift_guard._plant.x_plant_read", 'encoding="UTF-8"', _UTF8),
    ("drift_guard.pointers.x__code_like", '"." in sym.strip(None)', "_symbol strips the dots "
     "off both ends before calling _code_like and a name holds no whitespace: strip() leaves "
     "it as strip('.') does"),
    ("drift_guard.pointers.x__definitions", 'getattr(node, "body", None)', _HAS_BODY),
    ("drift_guard.pointers.x__definitions", 'getattr(node, "body", )', _HAS_BODY),
    ("drift_guard.pointers.x_check_pointers", "Sources(hollow=None)", "None is falsy: Sources "
     "takes the full parse for it as for False"),
    ("drift_guard.pointers.x_find_citations", '"XX (`[,XX"', "a bare :LINE never follows a word "
     "character (the pattern's look-behind): allowing 'X' before it changes nothing"),
    ("static._hollow.x__header_end", 'split("#", )', _SPLIT),
    ("static._hollow.x__header_end", 'split("#", 2)', _SPLIT),
    ("static._hollow.x__header_end", 'sub(\'XX""XX\'', "the stand-in for a string "
     "literal only has to hold no bracket, '#' or ':' (it is counted for brackets and the line "
     "tested for a final ':'): 'XX\"\"XX' counts and ends alike"),
    ("static._hollow.x__header_end", "min(start + 61,", "the cap only bounds the scan of "
     "a signature over 60 lines: hollowed or left whole, its def's body comes out the same "
     "(a def the split leaves alone is in the full tree)"),
    ("static._hollow.x__inside_string", "while end >= 0 and", "a closing quote at column "
     "0 is then checked against line[-1], the line's newline (lines keep their ends); only a "
     "last line ending in a backslash differs, and such a file does not parse"),
    ("static._hollow.x_hollow", 'out[header + 1] = " " * (indent + 5)', "any indentation "
     "deeper than the def's gives the same `...` body; nothing reads the placeholder's column"),
    ("static._hollow.x_hollow", "probe = header + 2", "the line after a signature is the "
     "first body line, deeper than the def (else the module does not parse and the caller "
     "falls back): scanning from the next line finds the same last line, and a one-line "
     "body is not hollowed either way"),
    ("drift_guard._discover.x__error_location", "(inner) or True", _REAL_FRAME),
    ("drift_guard._discover.x__error_location", "str(None)", _REAL_FRAME),
    ("drift_guard._discover.x__error_location", 'startswith("<")), )', _REAL_FRAME),
    ("drift_guard._discover.x_import_guard_modules", "_error_location(exc, None)", _REAL_FRAME),
    ("drift_guard._discover.x_candidate_files", "is_absolute()) and False else root / entry",
     "root / an absolute path is that absolute path (pathlib): both branches give the same"),
    ("drift_guard._discover.x_import_guard_modules", "root=None,", "pytest's import_path uses "
     "root only in importlib mode; deskcheck imports in prepend mode"),
    ("drift_guard._discover.x_import_guard_modules", "import_path(file, root=config.root,",
     "ImportMode.prepend is import_path's default mode"),
    ("drift_guard._discover.x_import_guard_modules", "consider_namespace_packages=None",
     "None is falsy like False"),
    ("static._model.x__find_class_node", "if len(candidates) >= 1:", "with one candidate "
     "the search by line returns it or falls back to it: the same class"),
    ("static._model.x__find_class_node", '"XX<locals>XX" not in parts', _LOCALS),
    ("static._model.x__find_class_node", '"<LOCALS>" not in parts', _LOCALS),
    # static/_static.py, _sources.py (issue 17, round two: shard drift_guard_static),
    # grouped by reason: {reason: [(function, piece), ...]}
    *((function, piece, reason) for reason, cases in {
        "text is set in each branch that reads it (the two import branches): its first value "
        "is never read": [
            ("_static.xǁStaticIndexǁ_bind_statement", "text = None"),
            ("_static.xǁStaticIndexǁ_bind_statement", 'text = "XXXX"')],
        "a binding's line is only read to cite its statement in a trail; a class or def "
        "binding has no statement": [
            ("_static.xǁStaticIndexǁ_bind_statement", 'Binding("class", None'),
            ("_static.xǁStaticIndexǁ_bind_statement", 'Binding("other", None')],
        "a def's binding kind is never compared (only class, import, from and alias are): any "
        "other value acts like 'other'": [
            ("_static.xǁStaticIndexǁ_bind_statement", 'Binding("XXotherXX"'),
            ("_static.xǁStaticIndexǁ_bind_statement", 'Binding("OTHER"'),
            ("_static.xǁStaticIndexǁ_bind_statement", "Binding(None, stmt.lineno, node=stmt")],
        "'*' is the only name of its statement (`from m import *, x` is a syntax error): "
        "break and continue both end the loop": [
            ("_static.xǁStaticIndexǁ_bind_statement", "break")],
        "a from binding always has its module (a str from _absolute) and its name (the "
        "alias's): the weakened assert holds as well": [
            ("_static.xǁStaticIndexǁresolve_name",
             "binding.module is not None or binding.name is not None")],
        "the roots lookup and the sys.path lookup still get distinct cache keys, only "
        "swapped": [
            ("_static.xǁStaticIndexǁfind_module", "key = name if paths is not None else")],
        "str.split gives at least one part: the test is true either way": [
            ("_static.xǁStaticIndexǁfind_module", "len(parts) >= 0")],
        "a namespace package has no file to parse: is_package is only read to make a "
        "module's relative imports absolute, and it has none": [
            ("_static.xǁStaticIndexǁfind_module", "found = (base, False)")],
        "External.where is never read (only copied to the External of an attribute): no "
        "output shows it": [
            ("_static.xǁStaticIndexǁ_bases", 'External("builtins.object", None)'),
            ("_static.xǁStaticIndexǁ_bases", '"XXbuiltinsXX"'),
            ("_static.xǁStaticIndexǁ_bases", '"BUILTINS"'),
            ("_static.xǁStaticIndexǁresolve_expr", 'External(f"builtins.{expr.id}", None)'),
            ("_static.xǁStaticIndexǁresolve_expr", '"XXbuiltinsXX"'),
            ("_static.xǁStaticIndexǁresolve_expr", '"BUILTINS"'),
            ("_static.xǁStaticIndexǁresolve_expr", '{expr.attr}", None)'),
            ("_static.xǁStaticIndexǁ_outside", 'External(f"{module}.{name}", None)')],
        "a from import of level 0 always names its module (`from import x` is a syntax "
        "error)": [
            ("_static.xǁStaticIndexǁ_absolute", 'return module or "XXXX"')],
        "level 1 trims len(parts) - 0 parts: the slice keeps the whole list, as without the "
        "trim": [
            ("_static.xǁStaticIndexǁ_absolute", "if level >= 1")],
        "the filename only names the file in a SyntaxError's own text; the error deskcheck "
        "raises names the path itself": [
            ("_sources.x__parse_full", "ast.parse(data, )"),
            ("_sources.x__parse_hollow", "ast.parse(text, )")],
        "the content cache is a speed-up: without it the same text is parsed again": [
            ("_sources.x__parse_full", "if (cached is not None) and False else"),
            ("_sources.x__parse_hollow", "if (cached is not None) and False else")],
        "a full parse has no hollowed bodies: its digest field is read only by function() "
        "and full() for a hollow one (the cache key is the local digest)": [
            ("_sources.x__parse_full", "ParsedFile(path=path, digest=None")],
        "full() of a full parse returns the cached parse of the same file and text: the "
        "same tree": [
            ("_sources.xǁParsedFileǁfull", "if (self.bodies) or True else")],
        "'UTF-8' and 'utf-8' name the same codec": [
            ("_sources.x__parse_hollow", 'decode("UTF-8")'),
            ("_sources.xǁParsedFileǁfunction", 'decode("UTF-8")'),
            ("_sources.xǁSourcesǁparse", 'encode("UTF-8")')],
        "the digest is only a cache key: any digest size tells contents apart alike": [
            ("_sources.xǁSourcesǁparse", "blake2b(data, )"),
            ("_sources.xǁSourcesǁparse", "digest_size=17")],
    }.items() for function, piece in ((f"drift_guard.{f}", p) for f, p in cases)),
]

# mutants/owners.py, reuse.py, verdicts.py, catalog.py; gate/selection.py, redfirst.py,
# regress.py; drift_guard/verdicts.py, _surface.py (issue 17, round two, s5-d)
_NO_RERUN = ("without a re-run the outcome is only tested for passed/xfailed/skipped (flaky): "
             "any other text counts the test as a regression alike")
_HAS_LINENO = ("every node _test_functions yields is a def, which ast.parse always gives a "
               "lineno: the default is never used")
_DIGEST_CACHE = ("the digests are a speed-up: without the cache (or the precomputed list) each "
                 "file is hashed again, and mutant_fingerprint hashes the same sorted set")
_ANY_ORDER = ("mutant_fingerprint hashes the sorted set of the files' digests: the order the "
              "owner files come in changes nothing")
_UNIVERSE_CACHE = ("the universe's precomputed digests are a speed-up: without them the same "
                   "files are hashed one by one, giving the same sorted set")
_CHAIN_CACHE = ("the folder -> conftest chain cache is a speed-up: without it each chain is "
                "walked again and found the same")
_NOT_KILLS = ("the name of a called thing that is no plain name (a subscript, a call) is only "
              "compared with 'kills': None, '' and 'XXXX' all differ from it")
_PREFIXES = ("the collector records every prefix of a dotted access (self.a.b.c -> a, a.b) as "
             "a read of its own: the top name is entered through that plain read, with the "
             "same 'get' role, whatever the dotted access does")
_INDEX_CACHE = ("the static-index cache of wrapper_functions is a speed-up: without it each "
                "decorator's module is indexed again and found the same")
_BEST_MATCH = ("only the best close match is shown (close[0]), and get_close_matches lists it "
               "first however many it returns")
_IN_ORDER = ("every owner item comes from `items` (the sweep builds the index over the same "
             "items), so its node id is always in `order`: the default is never used")
_LINE_ALWAYS_FOUND = ("inspect.getsourcelines finds a class by walking the AST of the same file for "
                      "its qualified name and returns its first decorator's or its own line, so "
                      "with several same-named classes one always has that line: the search's "
                      "default is never taken")
_NO_PACKAGE = ("a relative import in a top-level module cannot run (Python: 'attempted relative "
               "import with no known parent package'); the production code the guard reads "
               "imports, so the name formed for it is never used")
# static/_collect.py, statements (_visit_stmt, visit_block, _under, _cond): session 6, s6-a
_NEGATED_IF_ONLY = ("a condition's negated flag is read only for an 'if' condition (Cond.text, "
                    "_conditions.decide): a loop, for-else, except, case or nested condition "
                    "reads the same whatever it says")
EQUIVALENT_RULES += [
    ("_collect.xǁ_Collectorǁ_under", "block: bool = True", "every call that leaves block out "
     "passes expressions (a loop target, a lambda body, a ternary side), never an `if`: a "
     "block walk of them finds no early return and visits each one alike"),
    ("_collect.xǁ_Collectorǁ_cond", "negated: bool = True", "only kinds other than 'if' leave "
     "negated out (for-else, except, case, nested); " + _NEGATED_IF_ONLY),
    ("_collect.xǁ_Collectorǁ_visit_stmt", 'self._cond("for", node.lineno, node.iter, None,',
     _NEGATED_IF_ONLY),
    ("_collect.xǁ_Collectorǁ_visit_stmt", 'self._cond("for", node.lineno, node.iter, True,',
     _NEGATED_IF_ONLY),
    ("_collect.xǁ_Collectorǁ_visit_stmt", "(isinstance(node.value, ast.Attribute)) or True",
     "_chain returns None for a value that is no attribute (its loop collects no name), "
     "exactly what the guard gives it"),
]

# ---------------------------------------------------------------------------------------------
# static/_collect.py, expressions (_visit_expr, _visit_function): session 6, s6-b
_FOR_NEGATED = ("a comprehension's loop condition is judged by its container alone: decide() "
                "answers a 'for' by the container's emptiness and Cond.text shows 'for ... in "
                "X'; neither reads `negated`")
_FIRST_PUSH = ("the loop condition is pushed only for the first generator, before its filters: "
               "`pushed` is still 0 there, so '= 1' and '+= 1' agree")
_NESTED_KIND = ("a nested def/lambda condition has no test: decide() answers UNKNOWN for every "
                "condition without a test before it reads the kind, and Cond.text shows the "
                "label; nothing compares a kind with 'nested'")
EQUIVALENT_RULES += [
    ("static._collect.xǁ_Collectorǁ_visit_expr", "gen.iter, None, selves))", _FOR_NEGATED),
    ("static._collect.xǁ_Collectorǁ_visit_expr", "gen.iter, True, selves))", _FOR_NEGATED),
    # 20 spaces: the loop condition's counter (a filter's, at the same depth, is killed by
    # test_a_comprehensions_conditions_end_with_it)
    ("static._collect.xǁ_Collectorǁ_visit_expr", "                    pushed = 1",
     _FIRST_PUSH),
    ("static._collect.xǁ_Collectorǁ_visit_function", 'self._cond(None, node.lineno, label=',
     _NESTED_KIND),
    ("static._collect.xǁ_Collectorǁ_visit_function", '"XXnestedXX"', _NESTED_KIND),
    ("static._collect.xǁ_Collectorǁ_visit_function", '"NESTED"', _NESTED_KIND),
]

# ---------------------------------------------------------------------------------------------
# static/_collect.py, calls and the rest (_visit_call, _context, ...): session 6, s6-c
_FIRST_STMT_LINE = ("facts() visits only the body's statements and visit() sets stmt_line to each "
                    "statement's line before anything under it is recorded: the initial value "
                    "is never read")
_LOCALS_SET_FIRST = ("facts() assigns self.locals before visiting the body, and nothing before "
                     "that (_top_level_writes) reads it: the initial value is never read")
_NOT_A_CLASS_NAME = ("a handler element that is neither a name nor an attribute (ERRORS[0], a "
                     "call) is compared against class names; '', None and 'XXXX' are all "
                     "outside _SWALLOWING, so it never swallows either way")
_ONLY_GET_PREFIX = ("both callers only ask fname.startswith('get_'), false for '' and for "
                    "'XXXX' alike")
_NO_EMPTY_OR_EXTRA_KEY = ("top_writes keys are non-empty dotted chains: the prefix parts[:0] "
                          "('') is never a key, and parts[:len+1] is parts itself, already "
                          "looked up")
EQUIVALENT_RULES += [
    ("static._collect.xǁ_Collectorǁ__init__", "self.stmt_line = ", _FIRST_STMT_LINE),
    ("static._collect.xǁ_Collectorǁ__init__", "self.locals: set[str] = None",
     _LOCALS_SET_FIRST),
    ("static._collect.x__swallows", 'getattr(n, "attr", None)', _NOT_A_CLASS_NAME),
    ("static._collect.x__swallows", 'getattr(n, "attr", "XXXX")', _NOT_A_CLASS_NAME),
    ("static._collect.xǁ_Collectorǁ_module_function", 'return "XXXX"', _ONLY_GET_PREFIX),
    ("static._collect.xǁ_Collectorǁfacts", "in range(len(parts) + 1)]",
     _NO_EMPTY_OR_EXTRA_KEY),
    ("static._collect.xǁ_Collectorǁfacts", "in range(1, len(parts) + 2)]",
     _NO_EMPTY_OR_EXTRA_KEY),
]

_FACTS_CACHE = ("the cache keeps each node it holds facts for, so a live node's id is never "
                "another's: an entry under this node's key is always this node's, and a miss "
                "only computes the same facts again")
EQUIVALENT_RULES += [
    ("static._collect.x_function_facts", "key = (id(None), self_name)", _FACTS_CACHE),
    ("static._collect.x_function_facts", "cached[1] is not node", _FACTS_CACHE),
    ("static._collect.x_function_facts", "cached[0] is node:", _FACTS_CACHE),
    ("mutants.catalog.xǁ_Linesǁ__init__", 'self.uniformity: tuple[int, int] | None = ""',
     "uniformity is read only for a catalog with a [uniformity] table, whose header sets it"),
]
# report/store.py, report/shard.py (session 11, after the test lists were completed)
_SAME_START = ("every shard starts with the same load: adding one constant to each changes no "
               "comparison of the least loaded")
EQUIVALENT_RULES += [
    ("report.store.xǁStoreǁ_set_up", '!= "XXwalXX"', "PRAGMA journal_mode = WAL on a store "
     "already in WAL mode changes nothing (the check only spares the statement)"),
    ("report.store.xǁStoreǁ_set_up", "_SCHEMA_TABLES < tables", "sqlite_master also lists "
     "the schema's indexes and sqlite_sequence: a file holding every schema table always "
     "holds more names, so < and <= agree"),
    ("report.shard.x_balanced_shards", "if known else 2.0", "with no known duration every "
     "mutant costs the same constant: any positive one gives the same split by count"),
    ("report.shard.x_balanced_shards", "loads = [1.0] * count", _SAME_START),
    ("report.store.xǁStoreǁ__init__", "store_error(exc, self.path, ) from exc", "not "
     "equivalent, but unseen by mutmut: outside it, test_store_opening.py's read-only case "
     "of test_sqlites_failure_to_open_... fails on this mutant; under mutmut the copies of "
     "the private methods get public names (xǁStoreǁ_connect__mutmut_orig), so "
     "guard_public_methods wraps them and a read-only store's SQLite error is a StoreError "
     "before __init__ sees it"),
    ("report.shard.x_plan_digest", 'encode("UTF-8")', _UTF8),
    ("report.shard.x_plan_digest", '(",", "XX:XX")', "the plan is dumped as a list of pairs, "
     "never a dict: the key separator is never written"),
]

# ---------------------------------------------------------------------------------------------
EQUIVALENT_RULES += [
    ("static._model.x__find_class_node", "line)), None)", _LINE_ALWAYS_FOUND),
    ("static._model.x__find_class_node", "line)), )", _LINE_ALWAYS_FOUND),
    ("static._model.x__find_class_node", "line)), candidates[1])", _LINE_ALWAYS_FOUND),
    ("static._static.xǁStaticIndexǁ_absolute", 'if (package) or True else []', _NO_PACKAGE),
]
EQUIVALENT_RULES += [
    ("gate.regress.x_compare", 'else "FAILED"', _NO_RERUN),
    ("gate.regress.x_compare", 'else "XXfailedXX"', _NO_RERUN),
    ("gate.selection.x__fingerprints", 'getattr(node, "lineno", ', _HAS_LINENO),
    ("gate.selection.x__is_unittest_case", 'getattr(base, "id", "XXXX")', "a base with no "
     "name (a call, a subscript) reads as a text that does not end in 'TestCase' either way"),
    ("gate.selection.x_changed_tests", 'encoding="UTF-8"', "'UTF-8' and 'utf-8' name the same "
     "codec"),
    ("gate.selection.x__changed_doctests", 'encoding="UTF-8"', _UTF8),
    ("mutants.reuse.x_fingerprint", "__version__, file_digests=digests)", _DIGEST_CACHE),
    ("mutants.reuse.x_fingerprint", "__version__, digest=digest, )", _DIGEST_CACHE),
    ("mutants.reuse.x_fingerprint", "file_digests=None)", _DIGEST_CACHE),
    ("mutants.reuse.x_fingerprint", "owner_files if (digests is not None) and False", _ANY_ORDER),
    ("mutants.reuse.x_fingerprint", "owner_files if (digests is not None) or True", _ANY_ORDER),
    ("mutants.reuse.x_fingerprint", "owner_files if digests is None", _ANY_ORDER),
    ("mutants.reuse.xǁTestUniverseǁdigest", "found = None", _DIGEST_CACHE),
    ("mutants.reuse.xǁTestUniverseǁdigest", "self._digests.get(None)", _DIGEST_CACHE),
    ("mutants.reuse.xǁTestUniverseǁfingerprint", "                           )", _UNIVERSE_CACHE),
    ("mutants.reuse.xǁTestUniverseǁfingerprint", "digests=None)", _UNIVERSE_CACHE),
    # the call without digest=self.digest: the report's 240-character diff ends at
    # "+        return fin" (the two removed lines come first)
    ("mutants.reuse.xǁTestUniverseǁfingerprint", "owner_files, digests=self.digests",
     _DIGEST_CACHE),
    ("mutants.reuse.xǁTestUniverseǁfingerprint", "        return fin", _DIGEST_CACHE),
    ("mutants.reuse.xǁTestUniverseǁfingerprint", "(owner_files is self.files) and False",
     _UNIVERSE_CACHE),
    ("mutants.reuse.xǁTestUniverseǁowner_files", "if wide and files < self.file_set",
     "owners naming exactly the universe's files get an equal list (the universe, sorted) "
     "either way; only the identity that lets the cached digests be reused differs"),
    ("mutants.reuse.xǁTestUniverseǁowner_files", "_conftests(f, None)", _CHAIN_CACHE),
    ("mutants.reuse.xǁTestUniverseǁowner_files", "_conftests(f, )", _CHAIN_CACHE),
    ("mutants.reuse.x__conftests", "cache = {} if (cache is None) or True else cache",
     _CHAIN_CACHE),
    ("mutants.reuse.x__conftests", "cache = {} if (cache is None) and False else cache",
     "every caller passes its universe's cache (never None): the fallback is never taken"),
    ("mutants.reuse.x__conftests", "cache = {} if cache is not None else cache",
     "every caller passes its universe's cache (never None): a fresh cache instead only "
     "walks the chains again"),
    ("mutants.reuse.x__folder_conftests", "chain = None", _CHAIN_CACHE),
    ("mutants.reuse.x__folder_conftests", "chain = cache.get(None)", _CHAIN_CACHE),
    ("mutants.reuse.x__folder_conftests", "cache[folder] = None", _CHAIN_CACHE),
    ("mutants.reuse.x_declared_kills", 'getattr(func, "id", None)', _NOT_KILLS),
    ("mutants.reuse.x_declared_kills", 'getattr(func, "id", "XXXX")', _NOT_KILLS),
    ("mutants.reuse.xǁTestUniverseǁ_text", 'self._texts[path] = "XXXX"', "an unreadable file's "
     "text is only searched for kills markers: any text without 'kills' declares nothing, "
     "like ''"),
    ("mutants.reuse.xǁTestUniverseǁ_text", 'encoding="UTF-8"', "'UTF-8' and 'utf-8' name the "
     "same codec"),
    ("static._surface.x__trace_body", "NameUse(None)", "a NameUse is reached by its key in "
     "Surface.names; its own name field is never read"),
    ("static._surface.x__trace_body", 'top = acc.name.split(".", )[0]', _SPLIT),
    ("static._surface.x__trace_body", 'top = acc.name.split(".", 2)[0]', _SPLIT),
    ("static._surface.x__trace_body", "top = acc.name.split(None, 1)[0]", _PREFIXES),
    ("static._surface.x__trace_body", 'top = acc.name.rsplit(".", 1)[0]', _PREFIXES),
    ("static._surface.x__trace_body", 'top = acc.name.split("XX.XX", 1)[0]', _PREFIXES),
    ("static._surface.x__trace_body", '("XX.XX" in acc.name and acc.kind == WRITE)',
     _PREFIXES),
    ("static._surface.x__trace_body", '("." in acc.name and acc.kind != WRITE)', _PREFIXES),
    ("static._surface.x_trace", "indexes: dict = None", _INDEX_CACHE),
    ("static._surface.x_trace", "wrapper_functions(klass, declared, None)", _INDEX_CACHE),
    ("static._surface.x_trace", "wrapper_functions(klass, declared, )", _INDEX_CACHE),
    ("mutants.owners.x_foreign_kills", "sorted(all_ids), cutoff=0.8)", _BEST_MATCH),
    ("mutants.owners.x_foreign_kills", "sorted(all_ids), n=2, cutoff=0.8)", _BEST_MATCH),
    ("mutants.owners.x_resolve_owners", "order.get(i.nodeid, None)", _IN_ORDER),
    ("mutants.owners.x_resolve_owners", "order.get(i.nodeid, )", _IN_ORDER),
    ("mutants.owners.x_resolve_owners", "order.get(i.nodeid, 1)", _IN_ORDER),
]

# The split of 2026-12-04 moved _collect._Collector unchanged to _collector.Collector (and its
# module-function lookup to _context_reads.ContextReads): the rules reviewed for it hold there.
_MOVED = (("_collect.xǁ_Collectorǁ_module_function",
           "_context_reads.xǁContextReadsǁ_module_function"),
          ("_collect.xǁ_Collectorǁ", "_collector.xǁCollectorǁ"),
          ("_collect.x__swallows", "_collector.x__swallows"))
EQUIVALENT_RULES += [
    (next(function.replace(old, new) for old, new in _MOVED if old in function), piece, reason)
    for function, piece, reason in list(EQUIVALENT_RULES)
    if any(old in function for old, _new in _MOVED)]

# Functions of these modules that start processes themselves (git, pytest sides, a forked
# look-ahead): their process-free tests cannot reach them, and their owners are the process
# tests named here. Their mutants are shown as 'process-driven', apart from the score.
PROCESS_DRIVEN: dict[str, str] = {
    "gate.redfirst.x_run_redfirst": "git worktree + two pytest sides: tests/gate/test_redfirst.py",
    "gate.redfirst.x__git_relative": "needs a git checkout: tests/gate/test_redfirst.py",
    "gate.redfirst.x__context": "reads the git context: tests/gate/test_redfirst.py",
    "gate.regress.x_run_regress": "git worktree + pytest sides: tests/gate/test_regress.py",
    "gate.regress.x__rootdir_relative": "needs a git checkout: tests/gate/test_regress.py",
    "mutants.reuse.x_target_sources": "forks a look-ahead child: tests/mutants/"
                                      "test_incremental_fast_path.py",
    "mutants.reuse.x_reuse_before_collection": "calls the forking look-ahead: tests/mutants/"
                                               "test_incremental_fast_path.py",
    "mutants.reuse.x_target_source": "imports the target in the look-ahead child: tests/mutants/"
                                     "test_incremental_fast_path.py",
}


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def shard_importers(root: Path = ROOT) -> dict[str, set[str]]:
    """Every test file under ``root/tests`` -> the shards' modules it imports: by module
    (``import deskcheck.gate.selection``, ``from deskcheck.gate import selection``), by a
    name a module defines (also through a package's public names, ``from deskcheck.gate
    import classify``), or through a ``tests.*`` helper it imports."""
    import importlib

    dotted = {m.removesuffix(".py").replace("/", "."): m
              for modules, _tests in SHARDS.values() for m in modules}
    defined = {d: _top_level_names(root / m) for d, m in dotted.items()}

    def by_name(package: str, name: str) -> set[str]:
        if f"{package}.{name}" in dotted:
            return {f"{package}.{name}"}
        if package in dotted:
            return {package}
        if package != "deskcheck" and not package.startswith("deskcheck."):
            return set()
        try:
            found = getattr(importlib.import_module(package), name)
        except (ImportError, AttributeError):
            return set()
        return {d for d in dotted if name in defined[d]
                and getattr(importlib.import_module(d), name, None) is found}

    def imports(path: Path, seen: set[Path]) -> set[str]:
        if path in seen or not path.is_file():
            return set()
        seen.add(path)
        out: set[str] = set()
        folder = path.parent.relative_to(root).parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {d for a in node.names for d in dotted
                        if a.name == d or a.name.startswith(d + ".")}
            elif isinstance(node, ast.ImportFrom):
                parts = ((node.module or "").split(".") if not node.level else
                         [*folder[:len(folder) - node.level + 1],
                          *(node.module.split(".") if node.module else [])])
                if parts and parts[0] == "tests":  # a helper of the tests: follow it
                    out |= imports(root.joinpath(*parts).with_suffix(".py"), seen)
                    for a in node.names:
                        out |= imports(root.joinpath(*parts, a.name).with_suffix(".py"), seen)
                elif node.level == 0 and node.module:
                    for a in node.names:
                        out |= by_name(node.module, a.name)
        return out

    return {str(p.relative_to(root)): found for p in sorted((root / "tests").rglob("test_*.py"))
            if (found := imports(p, set()))}


def unrun_importers(shards: dict[str, tuple[list[str], list[str]]], left_out: dict[str, str],
                    importers: dict[str, set[str]]) -> list[str]:
    """``shard NAME: FILE imports ...`` for every test file that imports a shard's module but
    is neither run by that shard (whole or some of its tests) nor left out with a reason;
    ``LEFT_OUT: FILE ...`` for a file left out that no longer imports any shard's module."""
    bad = []
    for name, (modules, tests) in shards.items():
        run = {t.split("::", 1)[0] for t in tests}
        mutated = {m.removesuffix(".py").replace("/", ".") for m in modules}
        for test_file, found in sorted(importers.items()):
            hit = sorted(found & mutated)
            if hit and test_file not in run and test_file not in left_out:
                bad.append(f"shard {name}: {test_file} imports {', '.join(hit)} but the shard "
                           "does not run it (add its process-free tests, or put it in LEFT_OUT "
                           "with the reason)")
    bad += [f"LEFT_OUT: {path} imports no shard's module (remove it)"
            for path in sorted(left_out) if path not in importers]
    return bad


def process_driven(name: str) -> str | None:
    stem = name.rsplit("__mutmut_", 1)[0]
    return next((why for function, why in PROCESS_DRIVEN.items() if stem.endswith(function)),
                None)


def _sql_case_only(diff: str) -> bool:
    """The mutant only changed the letter case of a SQL statement's text."""
    before, _, after = diff.partition(" / +")
    before = before.removeprefix("-").strip()
    after = after.strip()
    sql = ("SELECT ", "INSERT ", "UPDATE ", "ORDER BY", "DELETE ", "WHERE ", "PRAGMA ")
    return (before != after and before.lower() == after.lower()
            and any(k in before.upper() for k in sql) and " / " not in after)


def equivalent_reason(name: str, diff: str) -> str | None:
    # only the store speaks SQL: elsewhere an upper-cased "... UPDATE ..." is a message
    if name.startswith("deskcheck.report.store.") and _sql_case_only(diff):
        return _SQL_CASE
    stem = name.rsplit("__mutmut_", 1)[0]
    for function, piece, reason in EQUIVALENT_RULES:
        if function in stem and piece in diff.split(" / +", 1)[-1]:
            return reason
    return None


def _copy(relative: str, work: Path) -> None:
    source, target = ROOT / relative, work / relative
    if not source.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(source, target)


def prepare(shard: str, work: Path | None = None) -> Path:
    modules, tests = SHARDS[shard]
    tests = [t for t in tests if (ROOT / t.split("::", 1)[0]).exists()]
    if work is None:  # a full run: a re-run of the previous run's survivors is stale now
        work = WORK_ROOT / shard
        shutil.rmtree(work.with_name(shard + ".rerun"), ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(ROOT / "deskcheck", work / "deskcheck",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for relative in SUPPORT:
        _copy(relative, work)
    # mutmut forks each mutant from the process that already ran every test: deskcheck's
    # parse/facts caches (keyed by file digest and node id) would hand the mutant the clean
    # code's results, and mutants of the collectors would never run. Start each test cold.
    (work / "tests" / "conftest.py").write_text(
        "import pytest\n\nfrom deskcheck.drift_guard import clear_cache\n\n\n"
        "@pytest.fixture(autouse=True)\ndef _cold_drift_caches():\n    clear_cache()\n"
        "    yield\n    clear_cache()\n", encoding="utf-8")
    (work / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        'source_paths = ["deskcheck"]\n'
        'also_copy = ["examples"]\n'
        f"only_mutate = {json.dumps(modules)}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly"]\n'
        "[tool.pytest.ini_options]\n"
        'addopts = "-p no:cacheprovider"\n', encoding="utf-8")
    return work


def run_mutmut(work: Path, max_children: int, names: Sequence[str] = ()
               ) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1",
           "COLUMNS": "200", "PYTHONPATH": str(work)}
    started = time.perf_counter()
    done = subprocess.run([MUTMUT, "run", "--max-children", str(max_children), *names], cwd=work,
                          env=env, capture_output=True, text=True, timeout=3 * 3600)
    wall = time.perf_counter() - started
    (work / "wall.json").write_text(json.dumps({
        "wall_s": round(wall), "exit": done.returncode, "max_children": max_children,
        "load": round(os.getloadavg()[0], 1)}), encoding="utf-8")
    (work / "mutmut.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    return wall, done


# mutmut 3.8.1's exit-code meaning (mutmut/stats.py), read from its .meta files directly
# (`mutmut results` takes minutes here for the same table)
_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
           34: "skipped", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
           255: "timeout", 37: "caught by type check", None: "not checked"}


def _dotted(module: str) -> str:
    """``deskcheck/x/y.py`` -> ``deskcheck.x.y.`` (the prefix of its mutants' names)."""
    return module.removesuffix(".py").replace("/", ".") + "."


def _rerun_in_full(rerun: Path) -> list[str]:
    """Modules the re-run mutated in full: they changed since the full run."""
    listed = rerun / "full_modules.json"
    return json.loads(listed.read_text()) if listed.is_file() else []


def read_statuses(work: Path, *, with_rerun: bool = True) -> dict[str, str]:
    """A shard's statuses; the re-run of its survivors (``<shard>.rerun``) overrides them,
    and replaces every status of a module it ran in full."""
    statuses: dict[str, str] = {}
    rerun = work.with_name(work.name + ".rerun")
    folders = (work, rerun) if with_rerun else (work,)
    for folder in folders:
        if folder == rerun:
            stale = tuple(_dotted(m) for m in _rerun_in_full(rerun))
            statuses = {n: s for n, s in statuses.items() if not n.startswith(stale or ("\0",))}
        for meta in sorted((folder / "mutants").rglob("*.meta")):
            for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
                if folder == work or code is not None:
                    statuses[name] = _STATUS.get(code, "suspicious")
    return statuses


def rerun_survivors(shard: str, max_children: int, modules: Sequence[str] = (),
                    gaps_only: bool = False) -> None:
    """Run the survivors and 'no tests' mutants of the shard's last full run again, against
    today's tests, in a fresh scratch copy (``<shard>.rerun``): a test added since the full
    run is judged on exactly the mutants it was written for. A module whose source changed
    since the full run is mutated in full instead (mutmut's numbering of the old code names
    other mutations in the new). ``modules`` (paths) limits the re-run to those modules; the
    others keep the status of their own last re-run (or of the full run). ``gaps_only``
    leaves out the survivors an equivalent rule explains (no test can kill them: re-running
    them only costs time); they keep the full run's status."""
    base = WORK_ROOT / shard
    first = read_statuses(base, with_rerun=False)
    chosen = list(modules) or SHARDS[shard][0]
    changed = [m for m in chosen
               if (base / m).read_bytes() != (ROOT / m).read_bytes()]
    kept = tuple(_dotted(m) for m in chosen if m not in changed)
    names = sorted(n for n, s in first.items()
                   if s in ("survived", "no tests") and not process_driven(n)
                   and n.startswith(kept or ("\0",)))
    if gaps_only:
        cache: dict[str, dict[str, str]] = {}
        names = [n for n in names if first[n] != "survived"
                 or not equivalent_reason(n, show(n, cache)[0])]
    names += [_dotted(m) + "*" for m in changed]
    rerun = base.with_name(shard + ".rerun")
    if not names:
        return
    earlier = rerun.is_dir() and modules
    into = rerun.with_name(rerun.name + ".new") if earlier else rerun
    prepare(shard, into)
    (into / "full_modules.json").write_text(json.dumps(changed), encoding="utf-8")
    (into / "only_modules.json").write_text(json.dumps(list(modules)), encoding="utf-8")
    (into / "gaps_only.json").write_text(json.dumps(gaps_only), encoding="utf-8")
    wall, done = run_mutmut(into, max_children, names)
    if done.returncode != 0:  # e.g. the clean tests fail in the scratch copy: keep what was
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
        raise SystemExit(f"{shard}: mutmut exited {done.returncode}; the earlier results are "
                         f"kept, this run is in {into}:\n{tail}")
    if earlier:
        _fold_rerun(into, rerun, modules, changed)
    print(f"{shard}: re-ran {len(names) - len(changed)} survivors"
          f"{f' and every mutant of {len(changed)} changed module(s)' if changed else ''} "
          f"in {wall:.0f} s (exit {done.returncode})", flush=True)


def _fold_rerun(new: Path, rerun: Path, modules: Sequence[str], changed: list[str]) -> None:
    """Fold a re-run narrowed to ``modules`` into the shard's earlier re-run: those modules
    take the new statuses (and mutated sources), every other module keeps what its own last
    re-run found, so per-module re-runs compose instead of undoing each other."""
    for module in modules:
        for suffix in ("", ".meta"):
            source = new / "mutants" / (module + suffix)
            target = rerun / "mutants" / (module + suffix)
            target.unlink(missing_ok=True)
            if source.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
    full = [m for m in _rerun_in_full(rerun) if m not in modules] + changed
    (rerun / "full_modules.json").write_text(json.dumps(full), encoding="utf-8")
    only_file = rerun / "only_modules.json"
    before = json.loads(only_file.read_text()) if only_file.is_file() else []
    if before:  # an empty list means the earlier re-run covered every module already
        only_file.write_text(json.dumps(sorted({*before, *modules})), encoding="utf-8")
    walls = [json.loads((f / "wall.json").read_text()) for f in (rerun, new)
             if (f / "wall.json").is_file()]
    if walls:
        merged = {**walls[-1], "wall_s": sum(w["wall_s"] for w in walls)}
        (rerun / "wall.json").write_text(json.dumps(merged), encoding="utf-8")
    shutil.copy2(new / "pyproject.toml", rerun / "pyproject.toml")  # today's test selection
    shutil.rmtree(new, ignore_errors=True)


def _functions(module: str) -> dict[str, str]:
    """Every function text of the mutated copy of ``module`` (mutmut's own naming)."""
    work = WORK_ROOT / _shard_of_module(module)
    rerun = work.with_name(work.name + ".rerun")
    if module.replace(".", "/") + ".py" in _rerun_in_full(rerun):
        work = rerun  # changed since the full run: the re-run holds its mutants
    path = work / "mutants" / (module.replace(".", "/") + ".py")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
            out[node.name] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return out


def show(name: str, cache: dict[str, dict[str, str]]) -> tuple[str, bool]:
    """(the changed lines of a mutant, whether only string-literal text changed)."""
    module, _, function = name.rpartition(".")
    if module not in cache:
        cache[module] = _functions(module)
    functions = cache[module]
    stem = function.rsplit("__mutmut_", 1)[0]
    original = functions.get(f"{stem}__mutmut_orig", "")
    mutated = functions.get(function, "")
    body = [ln for ln in original.splitlines()[1:]]
    changed = [ln for ln in mutated.splitlines()[1:]]
    diff = [ln for ln in difflib.unified_diff(body, changed, lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    return " / ".join(ln.strip() for ln in diff)[:240], _only_text(body, changed)


def _only_text(before: list[str], after: list[str]) -> bool:
    """True when the bodies differ only in the wording of sentence-like strings (messages,
    hints: they hold a space); a changed short token ("get", ".", "write") is logic."""
    def strings(lines: list[str]) -> tuple[str, list[str]]:
        try:
            tree = ast.parse(textwrap.dedent("\n".join(lines)))
        except SyntaxError:
            return "\n".join(lines), []
        found = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append(node.value)
                node.value = ""
        return ast.dump(tree), found

    (shape_a, texts_a), (shape_b, texts_b) = strings(before), strings(after)
    if shape_a != shape_b or not before or len(texts_a) != len(texts_b):
        return False
    changed = [old for old, new in zip(texts_a, texts_b, strict=True) if old != new]
    return bool(changed) and all(" " in old.strip() for old in changed)


def _shard_of_module(module: str) -> str:
    path = module.replace(".", "/") + ".py"
    for shard, (modules, _tests) in SHARDS.items():
        if path in modules:
            return shard
    return ""


# The last measured figure of each shard before this checkout's runs: (killed + timeout,
# judged, when and how). Shown for a shard with no results in bench/_work (not re-run here),
# never mixed into the score of the shards that were; the overall line adds them only in a
# second figure that says so.
EARLIER_FIGURES: dict[str, tuple[int, int, str]] = {
    "drift_guard": (1893, 1954, "2026-12-05, full run and survivors re-run, session 12"),
    "drift_guard_static": (2155, 2243, "2026-12-05, full run and survivors re-run, session 12"),
    "mutants": (1583, 1651, "2026-12-05, full run and survivors re-run, session 11"),
    "operators": (553, 571, "2026-12-05, full run, session 11"),
    "report": (829, 948, "2026-12-05, full run and survivors re-run, session 11"),
    "gate": (743, 754, "2026-12-05, full run and survivors re-run, session 11"),
}


# where the per-module rows and survivors of those runs are (the results file of the session
# that measured each shard last)
_SESSION_11, _SESSION_12 = "f6dcf66", "8b7d88b"
EARLIER_RESULTS: dict[str, str] = {
    "drift_guard": _SESSION_12, "drift_guard_static": _SESSION_12, "mutants": _SESSION_11,
    "operators": _SESSION_11, "report": _SESSION_11, "gate": _SESSION_11,
}


def _earlier_results(shards: Sequence[str]) -> str:
    """``git show COMMIT:bench/results/selfproof.md`` (shards) for each commit holding them."""
    by_commit: dict[str, list[str]] = {}
    for shard in shards:
        by_commit.setdefault(EARLIER_RESULTS.get(shard, "?"), []).append(shard)
    return "; ".join(f"`git show {commit}:bench/results/selfproof.md` ({', '.join(names)})"
                     for commit, names in by_commit.items())


def _measured_on(shard: str) -> str:
    """The UTC day of the shard's last full run, and of its last re-run when there is one."""
    days = []
    for folder in (WORK_ROOT / shard, WORK_ROOT / (shard + ".rerun")):
        wall = folder / "wall.json"
        if wall.is_file():
            days.append(time.strftime("%Y-%m-%d", time.gmtime(wall.stat().st_mtime)))
    return ", re-run ".join(dict.fromkeys(days)) if days else "?"


def report(statuses_by_shard: dict[str, dict[str, str]], max_children: int) -> str:
    statuses = {n: s for by_name in statuses_by_shard.values() for n, s in by_name.items()}
    driven = {n: why for n, s in statuses.items()
              if s == "no tests" and (why := process_driven(n))}
    statuses = {n: ("process-driven" if n in driven else s) for n, s in statuses.items()}
    statuses_by_shard = {shard: {n: statuses[n] for n in names}
                         for shard, names in statuses_by_shard.items()}
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    survivors = sorted(n for n, s in statuses.items() if s == "survived")
    untested = sorted(n for n, s in statuses.items() if s == "no tests")
    cache: dict[str, dict[str, str]] = {}
    shown = {name: show(name, cache) for name in survivors}
    reasons = {n: r for n in survivors if (r := equivalent_reason(n, shown[n][0]))}
    wording = [n for n in survivors if shown[n][1] and n not in reasons]

    def score(names: dict[str, str], leave_out: set[str] = frozenset()) -> tuple[int, int]:
        killed = sum(1 for n, s in names.items() if s in ("killed", "timeout"))
        judged = sum(1 for n, s in names.items()
                     if s not in ("skipped", "not checked", "process-driven")
                     and n not in leave_out)
        return killed, judged

    killed, judged = score(statuses)
    not_here = [s for s in SHARDS if s not in statuses_by_shard]
    old_k, old_j = (sum(EARLIER_FIGURES[s][i] for s in not_here) if all(
        s in EARLIER_FIGURES for s in not_here) else 0 for i in (0, 1))
    lines = [
        "## selfproof: mutmut 3.8.1 over deskcheck's process-free modules",
        "",
        "`.venv/bin/python bench/selfproof_mutmut.py` runs every shard one after another "
        f"(`--shard NAME` runs one; `--report-only` re-reads them all), `--max-children "
        f"{max_children}`, each shard in its scratch copy `bench/_work/selfproof_mutmut/<shard>` "
        "(the repository's pyproject untouched). Each test starts with deskcheck's parse/facts "
        "caches cleared (a conftest in the scratch copy): mutmut forks every mutant from the "
        "process that already ran the tests, so cached results of the clean code would "
        "otherwise hide the collector's mutants.",
        "",
        "| shard | modules | tests | mutants | not yet run | killed | survived | no tests | "
        "process-driven | score | wall |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for shard, (modules, tests) in SHARDS.items():
        names = statuses_by_shard.get(shard)
        if names is None:
            earlier = EARLIER_FIGURES.get(shard)
            figure = (f"{100.0 * earlier[0] / earlier[1]:.1f}% ({earlier[2]})" if earlier
                      else "never run")
            lines.append(f"| {shard} | {', '.join(f'`{Path(m).name}`' for m in modules)} | "
                         f"{len(tests)} | not re-run here | | | | | | {figure} | |")
            continue
        k, j = score(names)
        ran = WORK_ROOT / shard / "pyproject.toml"  # the tests that run used (not today's)
        if ran.is_file():
            import tomllib

            tests = tomllib.loads(ran.read_text())["tool"]["mutmut"][
                "pytest_add_cli_args_test_selection"]
        wall_file = WORK_ROOT / shard / "wall.json"
        wall = json.loads(wall_file.read_text())["wall_s"] if wall_file.exists() else "?"
        tally = {status: sum(1 for s in names.values() if s == status)
                 for status in ("not checked", "survived", "no tests", "process-driven")}
        lines.append(f"| {shard} | {', '.join(f'`{Path(m).name}`' for m in modules)} | "
                     f"{len(tests)} | {len(names)} | {tally['not checked']} | {k} | "
                     f"{tally['survived']} | {tally['no tests']} | {tally['process-driven']} | "
                     f"{100.0 * k / max(1, j):.1f}% ({_measured_on(shard)}) | {wall} s |")
    reruns = []
    for shard in SHARDS:
        rerun = WORK_ROOT / (shard + ".rerun")
        if shard in statuses_by_shard and (rerun / "wall.json").is_file():
            full = _rerun_in_full(rerun)
            wall = json.loads((rerun / "wall.json").read_text())["wall_s"]
            import tomllib

            used = len(tomllib.loads((rerun / "pyproject.toml").read_text())["tool"]["mutmut"][
                "pytest_add_cli_args_test_selection"])
            only_file = rerun / "only_modules.json"
            only = json.loads(only_file.read_text()) if only_file.is_file() else []
            kept = [m for m in only if m not in full]
            gaps_file = rerun / "gaps_only.json"
            gaps = gaps_file.is_file() and json.loads(gaps_file.read_text())
            scope = (f" --module {' --module '.join(only)}` ({used} test files): "
                     if only else f"` ({used} test files): ")
            only_gaps = (", only those no equivalent rule explains (the others keep the full "
                         "run's status)" if gaps else "")
            what = (f"its survivors again{only_gaps}" if not only else
                    f"the survivors of {', '.join(f'`{Path(m).name}`' for m in kept)} again"
                    f"{only_gaps}" if kept else "")
            reruns.append(f"`--rerun-survivors{' --gaps-only' if gaps else ''} --shard {shard}"
                          f"{scope}{what}"
                          + (f"{', and ' if what else ''}every mutant of "
                             f"{', '.join(f'`{Path(m).name}`' for m in full)}"
                             " (changed since the full run)" if full else "")
                          + f", {wall} s")
    if reruns:
        lines += ["", "Re-runs against today's tests (their statuses override the full run's): "
                  + "; ".join(reruns) + "."]
    per_module: dict[str, list[str]] = {}
    for name in statuses:
        per_module.setdefault(name.rsplit(".", 1)[0], []).append(name)
    lines += [
        "",
        f"- mutants: {len(statuses)}; "
        f"{', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}",
        f"- **score: {100.0 * killed / max(1, judged):.1f}%** (killed + timeout over every "
        "judged mutant, survivors and 'no tests' included"
        + (f"; over the shards measured here only: {', '.join(statuses_by_shard)}; "
           f"{', '.join(missing)} keep{'s' if len(missing) == 1 else ''} the older figure in "
           "the table" if (missing := [s for s in SHARDS if s not in statuses_by_shard])
           else "") + ")",
        *([f"- the shards not re-run here: their per-module rows and survivors are in "
           f"{_earlier_results(not_here)}"] if not_here else []),
        *([f"- with the last figures of the shards not re-run here added ({', '.join(not_here)}: "
           f"{old_k} killed of {old_j} judged, each measured earlier, on its code of then): "
           f"{100.0 * (killed + old_k) / max(1, judged + old_j):.1f}%"] if old_j else []),
        f"- survivors: {len(survivors)}: {len(reasons)} equivalent (reason given), "
        f"{len(wording)} change only the wording of a message no test pins word for word, "
        f"{len(survivors) - len(reasons) - len(wording)} logic the tests do not observe "
        "(listed first: the remaining test gaps)",
        f"- score with the equivalent mutants left out: "
        f"{100.0 * killed / max(1, judged - len(reasons)):.1f}%; with the wording-only ones "
        f"left out too: {100.0 * killed / max(1, judged - len(reasons) - len(wording)):.1f}%",
        "",
        "| module | mutants | not yet run | killed | survived | no tests | score |",
        "|---|---|---|---|---|---|---|",
    ]
    for module in sorted(per_module):
        names = {n: statuses[n] for n in per_module[module]}
        k, j = score(names)
        lines.append(f"| `{module}` | {len(names)} | "
                     f"{sum(1 for s in names.values() if s == 'not checked')} | {k} | "
                     f"{sum(1 for s in names.values() if s == 'survived')} | "
                     f"{sum(1 for s in names.values() if s == 'no tests')} | "
                     f"{100.0 * k / max(1, j):.1f}% |")
    lines.append("")
    if survivors:
        gaps = [n for n in survivors if n not in wording and n not in reasons]
        lines += ["| survivor | mutation | reason |", "|---|---|---|"]
        for name in gaps + list(reasons) + wording:
            reason = reasons.get(name) or (
                "wording only: a message text no test pins word for word" if name in wording
                else "**not justified: a test gap**")
            lines.append(f"| `{name}` | `{shown[name][0]}` | {reason} |")
        lines.append("")
    if untested:
        lines += [f"'no tests' ({len(untested)}): " + ", ".join(f"`{n}`" for n in untested), ""]
    if driven:
        by_function: dict[str, int] = {}
        for name in driven:
            stem = name.rsplit("__mutmut_", 1)[0]
            by_function[stem] = by_function.get(stem, 0) + 1
        lines += ["Process-driven (left out of the score: these functions start processes, so "
                  "no process-free test reaches them; their owners are the process tests "
                  "named):", ""]
        lines += [f"- `{stem}`: {count} mutants; {process_driven(stem + '__mutmut_1')}"
                  for stem, count in sorted(by_function.items())]
        lines.append("")
    return "\n".join(lines)


DOC = ROOT / "docs" / "selfproof.md"
_BEGIN, _END = "<!-- mutmut summary: begin -->", "<!-- mutmut summary: end -->"


def _summarize_in_doc(text: str) -> None:
    """Put the shard table and the score lines between the summary markers of the doc."""
    doc = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if _BEGIN not in doc or _END not in doc:
        return
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| shard |"))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("- score with the equivalent"))
    summary = "\n".join(["Last result (every survivor with its reason: "
                         "`bench/results/selfproof.md`):", "", *lines[start:end + 1]])
    head, rest = doc.split(_BEGIN, 1)
    tail = rest.split(_END, 1)[1]
    DOC.write_text(f"{head}{_BEGIN}\n{summary}\n{_END}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--shard", action="append", choices=sorted(SHARDS),
                        help="run only this shard (repeatable); default: every shard")
    parser.add_argument("--resume", action="store_true",
                        help="continue each shard's interrupted full run (mutants not yet run)")
    parser.add_argument("--rerun-survivors", action="store_true",
                        help="re-run only the survivors of each shard's last full run")
    parser.add_argument("--module", action="append", default=[], metavar="PATH",
                        help="with --rerun-survivors: only this module's survivors "
                             "(deskcheck/x/y.py, repeatable)")
    parser.add_argument("--gaps-only", action="store_true",
                        help="with --rerun-survivors: leave out the survivors an equivalent "
                             "rule explains")
    parser.add_argument("--report-only", action="store_true",
                        help="re-read every shard's last results (no new mutmut run)")
    args = parser.parse_args()
    mutated = {m for shard in args.shard or list(SHARDS) for m in SHARDS[shard][0]}
    unknown = [m for m in args.module if m not in mutated]
    if args.gaps_only and not args.rerun_survivors:
        parser.error("--gaps-only only narrows --rerun-survivors")
    if unknown or (args.module and not args.rerun_survivors):
        parser.error(f"--module {', '.join(unknown)}: not a module the chosen shards mutate"
                     if unknown else "--module only narrows --rerun-survivors")
    if args.resume:
        for shard in args.shard or list(SHARDS):
            if (WORK_ROOT / shard / "pyproject.toml").is_file():
                wall, done = run_mutmut(WORK_ROOT / shard, args.max_children)
                print(f"{shard}: resumed, {wall:.0f} s (exit {done.returncode})", flush=True)
    elif args.rerun_survivors:
        for shard in args.shard or list(SHARDS):
            rerun_survivors(shard, args.max_children, args.module, args.gaps_only)
    elif not args.report_only:
        for shard in args.shard or list(SHARDS):
            work = prepare(shard)
            wall, done = run_mutmut(work, args.max_children)
            print(f"{shard}: {len(read_statuses(work))} mutants in {wall:.0f} s "
                  f"(exit {done.returncode})", flush=True)
    statuses = {shard: found for shard in SHARDS
                if (found := read_statuses(WORK_ROOT / shard))}
    if not statuses:
        print("no shard has results yet", file=sys.stderr)
        return 1
    text = report(statuses, args.max_children)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n", encoding="utf-8")
    _summarize_in_doc(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
