"""deskcheck: prove that the tests guarding a distributed scheduler can fail.

Parts (one-way dependencies): ``drift_guard`` <- ``harness``/``stubs``; ``mutants`` -> ``report``;
``suites`` (the only part that imports torch, lazily); ``gate``; ``cli``/``pytest_plugin`` on top.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
