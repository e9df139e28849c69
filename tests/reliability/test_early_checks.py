"""Item 9: checks that need no collection run before anything heavy: a bad
``--changed-since`` ref is reported at once, before the catalog is even read (shown without
a clock: with a broken catalog too, the error is the ref's), and a test file of the
universe that does not collect is named, not skipped in silence."""

from __future__ import annotations

import pytest

from tests.reliability.battery import Bench

pytestmark = pytest.mark.xdist_group("reliability-early")


def test_a_bad_changed_since_ref_is_reported_before_the_catalog_is_read(bench: Bench) -> None:
    bench.write({"mutants.toml": "[[mutant]\nbroken = \n"})
    bench.commit("a broken catalog")
    bench.snapshot()
    done = bench.run("sweep", "--no-store", "--changed-since", "no-such-ref")
    assert done.returncode == 2, f"exit {done.returncode}:\n{done.stderr}"
    assert "no-such-ref" in done.stderr and "fix:" in done.stderr, done.stderr
    assert "not valid TOML" not in done.stderr, (
        f"the catalog was read before the bad ref was reported:\n{done.stderr}")


def test_a_universe_file_that_does_not_collect_is_named(bench: Bench) -> None:
    bench.write({"tests/test_broken.py": "import no_such_module_anywhere\n\n\n"
                                         "def test_never():\n    pass\n"})
    bench.commit("a test file that does not collect")
    bench.snapshot()
    done = bench.run("sweep", "--no-store", "--workers", "1")
    assert done.returncode == 0, f"the owner's file collects; the sweep should hold:\n" \
        f"{done.stdout}{done.stderr}"
    assert "tests/test_broken.py" in done.stderr and "does not collect" in done.stderr, (
        f"a test file of the universe that does not collect was skipped silently:\n"
        f"{done.stderr}")
