"""Item 9: ``deskcheck merge`` reports every bad source in one error and creates no output
store when it refuses."""

from __future__ import annotations

import pytest

from tests.reliability.battery import Bench

pytestmark = pytest.mark.xdist_group("reliability-merge")


def test_merge_names_every_bad_source_and_writes_nothing(bench: Bench) -> None:
    missing = bench.out / "missing.sqlite"
    garbage = bench.out / "garbage.sqlite"
    garbage.write_text("not a database at all\n" * 300)
    into = bench.out / "merged" / "results.sqlite"
    done = bench.run("merge", str(missing), str(garbage), "--into", str(into))
    assert done.returncode == 2 and "Traceback" not in done.stderr, (
        f"exit {done.returncode}:\n{done.stderr}")
    assert str(missing) in done.stderr and str(garbage) in done.stderr, (
        f"merge did not name every bad source:\n{done.stderr}")
    assert not into.exists() and not into.parent.exists(), (
        "merge created its output store although it refused the sources")
