"""deskcheck.uniformity: the decisions that gate a collective, their input sets, and whether
those inputs can differ between the ranks of the collective's group.

Stands on :mod:`deskcheck.static` (public names only); imports no production code.
"""

from deskcheck._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    **dict.fromkeys(("AuditReport", "CollectiveSite", "Decision", "DeclarationFinding",
                     "Input", "InputClass", "Verdict"), "model"),
    **dict.fromkeys(("Agreed", "CallPattern", "Replica", "Role", "UniformityConfig",
                     "load_uniformity_config"), "config"),
    "audit": "audit",
    **dict.fromkeys(("Changes", "changed_since"), "changed"),
    "run_can_fail": "canfail",
}, globals())
