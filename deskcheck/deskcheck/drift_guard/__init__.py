"""deskcheck.drift_guard: the production surface of methods, and drift verdicts on stand-ins.

Public: :func:`surface` (static: from source, nothing imported; runtime: the real MRO),
:func:`guard` / :func:`can_fail` (verdicts), :func:`assert_faithful` (one line in an existing
test, any object), :func:`provision_of` (what any object provides), :func:`judge_paths`
(path-precise verdicts: drift, silent skips, unexercised, unknown, context, reverse),
:func:`check_pointers` (citation drift), and the result types. Everything else is private.
"""

from deskcheck._lazy import lazy_exports

# Resolved on first use (PEP 562): ``deskcheck standins`` and the pytest plugin import parts of
# this package without paying for unittest.mock / asyncio (``objects``) or the verdict machinery.
__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "clear_cache": "deskcheck.static",
    **dict.fromkeys(("NameUse", "ReachedMethod", "Site", "Surface", "surface"), "deskcheck.static"),
    **dict.fromkeys(("assert_faithful", "provision_of"), "objects"),
    **dict.fromkeys(("PathRecord", "PathVerdict", "judge_paths"), "paths"),
    **dict.fromkeys(("PointerReport", "check_pointers"), "pointers"),
    **dict.fromkeys(("register", "registered"), "registry"),
    **dict.fromkeys(("MISSING", "CanFailResult", "DriftVerdict", "Finding", "Provision",
                     "StandIn", "can_fail", "guard", "signature_misfit"), "verdicts"),
}, globals())
