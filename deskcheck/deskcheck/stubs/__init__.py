"""deskcheck.stubs: faithful stubs of collaborators (real methods/properties, supplied fields).

Public: :func:`stub` (one instance, optionally guarded on the spot) and :class:`StubSpec`
(a declared, registered stub the pytest plugin and ``deskcheck drift`` guard).
"""

from deskcheck.stubs._stub import StubSpec, production_members, stub

__all__ = ["StubSpec", "production_members", "stub"]
