"""The reference catalog stays honest: >= 24 named, owned mutants that still match today's
source of examples/tp_scheduler, and a real sweep of it kills every one by its owner."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.mutants.catalog import load_catalog
from deskcheck.mutants.mutation import build_mutation

from .conftest import by_id, sweep_json

REFERENCE = Path(__file__).resolve().parents[2] / "examples" / "tp_scheduler" / "mutants.toml"
RANK_ONLY = ("tp_scheduler.scheduler_budget_mixin:SchedulerBudgetMixin._all_reduce_min",)


def test_reference_catalog_has_24_owned_mutants_matching_todays_source():
    catalog = load_catalog(REFERENCE)
    assert len(catalog.mutants) >= 24
    for mutant in catalog.mutants:
        assert mutant.owners, f"{mutant.id} has no owner"
        for owner in mutant.owners:
            path = owner.split("::")[0]
            assert (REFERENCE.parent / path).is_file(), f"{mutant.id}: no file {path}"
        build_mutation(mutant)  # raises StaleOperator/BrokenMutant when it no longer matches


@pytest.mark.xdist_group("mutants-reference-sweep")
def test_reference_sweep_kills_every_mutant_by_its_owner(tmp_path):
    proc, document = sweep_json(tmp_path, catalog=REFERENCE)
    verdicts = {m["id"]: m["verdict"] for m in document["mutants"]}
    assert set(verdicts.values()) == {"KILLED"}, {k: v for k, v in verdicts.items()
                                                 if v != "KILLED"}
    assert proc.returncode == 0
    mutants = by_id(document)
    for mutant in mutants.values():
        assert set(mutant["killed_by"]) <= set(mutant["owners"])
    rank_only = [m for m in mutants.values() if m["target"] in RANK_ONLY]
    assert rank_only and all(
        all("test_gloo_" in k or "suites" in k for k in m["killed_by"]) for m in rank_only)
