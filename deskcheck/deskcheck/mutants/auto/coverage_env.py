"""The environment variables between the owners coverage pass (``owners``) and its pytest
plugin (``coverage_plugin``), apart so that the caller does not import pytest for them."""

from deskcheck.rank_hooks import COVERAGE_CONTEXT_ENV as CONTEXT_ENV  # noqa: F401 - the test's id

OUTCOMES_ENV = "DESKCHECK_AUTO_OUTCOMES"  # where the plugin writes outcomes and the rootdir
RCFILE_ENV = "DESKCHECK_AUTO_RCFILE"  # set: the plugin starts coverage at the first test
CHILDREN_ENV = "DESKCHECK_AUTO_CHILDREN"  # set (with RCFILE_ENV): measure child processes
LINES_ENV = "DESKCHECK_AUTO_LINES"  # (RCFILE_ENV mode) a JSON request: root, paths, data, out
