"""An owner fails in a mutant child exactly as it would in a plain pytest run, and an
``expect`` regex decides the same on every checkout.

Found red in CI: a clone at a longer path than the developer's moved pytest's ``...`` cut
into the words a self-mutant's ``expect`` named, so a kill on the laptop was a WRONG_FAILURE
in CI. The children also skipped the wrappers plugins put around a test (assertion
explanations, ``filterwarnings``), so an ``expect`` written from a plain run's output could
miss, and a ``-W error`` owner could not kill."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .conftest import sweep_json

pytestmark = pytest.mark.xdist_group("mutants-expect-checkout")

SOURCE = """\
def limit_ok(value, bound):
    return value <= bound


def shares(total):
    return [total // 2, total - total // 2]
"""

OWNERS = '''\
import pytest

from boundpkg.bounds import limit_ok, shares


def render(ok):
    """What a harness error says: where first, then the verdict, then a long fix."""
    verdict = "bound holds" if ok else "bound broken at the limit"
    return f"{__file__}:5: {verdict}\\n  fix: " + "keep the bound inclusive; " * 12


def test_bound_is_inclusive():
    assert "bound holds" in render(limit_ok(10, 10))


@pytest.mark.filterwarnings("error")
def test_bound_warns_nothing():
    assert limit_ok(3, 10)


def test_shares_split_evenly():
    assert shares(7) == [3, 4]
'''

MUTANT = """
[[mutant]]
id = "{id}"
title = "a defect"
target = "{target}"
operator = "replace"
old = {old!r}
new = {new!r}
owners = ["checks/check_bounds.py::{owner}"]
expect = {expect!r}
"""

STRICT = dict(id="bound.strict", target="boundpkg.bounds:limit_ok", old="value <= bound",
              new="value < bound", owner="test_bound_is_inclusive")
WARNS = dict(id="bound.warns", target="boundpkg.bounds:limit_ok", old="value <= bound",
             new="__import__('warnings').warn('limit fell back', UserWarning) or value <= bound",
             owner="test_bound_warns_nothing")
SHARES = dict(id="shares.floor", target="boundpkg.bounds:shares", old="total - total // 2",
              new="total // 2", owner="test_shares_split_evenly")


def make_project(base: Path, mutant: dict[str, str], expect: str) -> Path:
    """The project at a path long enough that pytest's default repr limit (240 characters)
    would cut the middle of the rendered message out."""
    root = base.joinpath(*["a_checkout_folder_with_a_long_name"] * 6, "proj")
    (root / "boundpkg").mkdir(parents=True)
    (root / "checks").mkdir()
    (root / "boundpkg" / "__init__.py").write_text("")
    (root / "boundpkg" / "bounds.py").write_text(SOURCE)
    (root / "checks" / "check_bounds.py").write_text(OWNERS)
    (root / "pytest.ini").write_text(textwrap.dedent("""\
        [pytest]
        python_files = check_*.py
        addopts = -p no:cacheprovider
        pythonpath = .
        """))
    (root / "mutants.toml").write_text('[sweep]\ntests = ["checks"]\n'
                                       + MUTANT.format(**mutant, expect=expect))
    assert len(str(root)) > 240, (
        "the checkout path must be longer than 240 characters for this test; it has "
        f"{len(str(root))}"
    )
    return root


def swept(tmp_path: Path, mutant: dict[str, str], expect: str) -> tuple[dict, str]:
    root = make_project(tmp_path, mutant, expect)
    proc, document = sweep_json(tmp_path, catalog=root / "mutants.toml", cwd=root)
    [record] = document["mutants"]
    return record, (f"{record['id']} judged {record['verdict']}, not KILLED; expect {expect!r}"
                    f"\n{record['excerpt']}\n{proc.stderr}")


@pytest.mark.parametrize("expect", [
    # words in the middle of a long value: pytest's default repr keeps only its two ends
    pytest.param(r"bound broken at the limit", id="middle-of-a-long-value"),
    # the project's folder is written relative, so the pattern holds on any checkout
    pytest.param(r"in 'checks/check_bounds\.py:5: bound broken at the limit",
                 id="relative-path"),
])
def test_expect_sees_the_whole_value_with_relative_paths(tmp_path, expect):
    record, why = swept(tmp_path, STRICT, expect)
    assert record["verdict"] == "KILLED", why
    assert "a_checkout_folder_with_a_long_name" not in record["excerpt"], (
        f"the excerpt still shows the checkout's folder:\n{record['excerpt']}")


def test_a_filterwarnings_error_owner_kills_a_mutant_that_warns(tmp_path):
    record, why = swept(tmp_path, WARNS, r"UserWarning: limit fell back")
    assert record["verdict"] == "KILLED", why


def test_expect_sees_pytest_s_own_comparison_explanation(tmp_path):
    record, why = swept(tmp_path, SHARES, r"At index 1 diff: 3 != 4")
    assert record["verdict"] == "KILLED", why
