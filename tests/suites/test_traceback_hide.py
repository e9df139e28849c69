"""A congruence failure's traceback goes from the user's test line to the rank table:
deskcheck's own frames are hidden (pytest's ``__tracebackhide__``)."""

from __future__ import annotations

import re

import pytest

# Imported before pytester snapshots sys.modules (torch cannot be imported twice).
import torch.distributed  # noqa: F401

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.xdist_group("deskcheck-suites")

INNER = """
import pytest

from deskcheck.suites import CongruenceArm, KillSwitch, check_arm


def rank_local(rank_input, enforce=True):
    return rank_input  # every rank decides from its own input: diverges


ARM = CongruenceArm("admit", rank_local, KillSwitch.from_keyword("enforce", False))


@pytest.mark.world(2)
@pytest.mark.backend("gloo")
def test_admit_agrees(rank_pool):
    check_arm(ARM, [1, 2], rank_pool)  # the user's line
"""


def test_a_congruence_failure_shows_no_deskcheck_frame(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--tb=long")
    text = result.stdout.str()
    assert "rank 1 diverged" in text, f"the failure does not name the rank:\n{text}"
    assert "check_arm(ARM, [1, 2], rank_pool)  # the user's line" in text, text
    frames = [line for line in text.splitlines()
              if re.search(r"deskcheck/suites/\S+\.py:\d+", line)]
    assert not frames, "deskcheck's own frames are in the user's traceback:\n" + "\n".join(
        frames) + "\n" + text
