"""deskcheck: prove that the tests guarding a distributed scheduler can fail.

Parts (one-way dependencies): ``drift_guard`` <- ``harness``/``stubs``; ``mutants`` -> ``report``;
``suites`` (the only part that imports torch, lazily); ``gate``; ``cli``/``pytest_plugin`` on top.

PYTEST_DONT_REWRITE: deskcheck is a pytest plugin (``pytest11``) that is often imported before
pytest starts (the sweep's warm parent, ``mutants run``, the coverage pass); its asserts are
not test asserts, and pytest must not warn (an error under ``-W error``) that it cannot
rewrite them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
