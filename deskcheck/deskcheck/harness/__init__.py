"""deskcheck.harness: stand-ins that bind REAL production functions, drift-guarded.

Public: :class:`Harness` (or the :func:`harness` decorator), :func:`bind`, :func:`stand_in`,
:func:`state`, and :func:`ranks` / :class:`InProcessGroup` for in-process multi-rank sets.
"""

from deskcheck.harness._declare import bind, stand_in, state
from deskcheck.harness._harness import Harness, harness
from deskcheck.harness.ranks import InProcessGroup, RankSet, ranks

__all__ = ["Harness", "InProcessGroup", "RankSet", "bind", "harness", "ranks", "stand_in", "state"]
