"""``deskcheck standins``: find the stand-ins existing tests build, and judge each on the paths
its tests drive.

One job per module: :mod:`.module` reads a test file (``ast``), :mod:`.forms` recognises the
construction forms, :mod:`.flow` follows stand-ins through bodies, helpers and fixtures to the
tests that drive them, :mod:`.finder` walks test files, :mod:`.resolve` finds the model class in
production source (nothing imported), :mod:`.judge` calls ``drift_guard.paths.judge_paths``,
:mod:`.run` is the ``--run`` coverage pass, :mod:`.discover` ties them together,
:mod:`.render` / :mod:`.command` are the terminal view and the CLI.
"""

from deskcheck._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__, {"Discovery": "discover", "discover": "discover", "find": "discover"}, globals())
