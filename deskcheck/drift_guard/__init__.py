"""deskcheck.drift_guard: the production surface of methods, and drift verdicts on stand-ins.

Public: :func:`surface` (static: from source, nothing imported; runtime: the real MRO),
:func:`guard` / :func:`can_fail` (verdicts), :func:`assert_faithful` (one line in an existing
test, any object), :func:`provision_of` (what any object provides), :func:`judge_paths`
(path-precise verdicts: drift, silent skips, unexercised, unknown, context, reverse),
:func:`check_pointers` (citation drift), and the result types. Everything else is private.
"""

from deskcheck.drift_guard._sources import clear_cache
from deskcheck.drift_guard._surface import NameUse, ReachedMethod, Site, Surface, surface
from deskcheck.drift_guard.objects import assert_faithful, provision_of
from deskcheck.drift_guard.paths import PathRecord, PathVerdict, judge_paths
from deskcheck.drift_guard.pointers import PointerReport, check_pointers
from deskcheck.drift_guard.registry import register, registered
from deskcheck.drift_guard.verdicts import (
    MISSING,
    CanFailResult,
    DriftVerdict,
    Finding,
    Provision,
    StandIn,
    can_fail,
    guard,
    signature_misfit,
)

__all__ = [
    "MISSING", "CanFailResult", "DriftVerdict", "Finding", "NameUse", "PathRecord",
    "PathVerdict", "PointerReport", "Provision", "ReachedMethod", "Site", "StandIn", "Surface",
    "assert_faithful", "can_fail", "check_pointers", "clear_cache", "guard", "judge_paths",
    "provision_of", "register", "registered", "signature_misfit", "surface",
]
