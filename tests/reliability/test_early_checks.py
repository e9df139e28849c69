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


# a conftest that leaves a file behind as soon as pytest loads it: the proof, without a
# clock, that the run stopped before any collection started
MARKS_COLLECTION = "import os\n\nopen(os.environ['COLLECTION_STARTED'], 'w').close()\n"


def test_an_unknown_module_and_a_dotdot_owner_are_reported_before_collection(
        bench: Bench) -> None:
    catalog = (bench.root / "mutants.toml").read_text()
    catalog = catalog.replace('target = "kpkg.mod:total"', 'target = "kpgk.mod:total"')
    catalog = catalog.replace('owners = ["tests/test_mod.py::test_total"]',
                              'owners = ["../tests/test_mod.py::test_total"]')
    bench.write({"mutants.toml": catalog, "tests/conftest.py": MARKS_COLLECTION})
    bench.commit("a misspelt module and an owner outside the project")
    bench.snapshot()
    started = bench.base / "collection-started"
    done = bench.run("sweep", "--no-store", "--workers", "1", COLLECTION_STARTED=str(started))
    lines = catalog.splitlines()
    target_line = lines.index('target = "kpgk.mod:total"') + 1
    owner_line = lines.index('owners = ["../tests/test_mod.py::test_total"]') + 1
    assert done.returncode == 2 and "Traceback" not in done.stderr, (
        f"exit {done.returncode}, expected 2:\n{done.stdout}{done.stderr}")
    assert not started.exists(), (
        f"pytest loaded the tests (collection started) before the catalog's unknown module "
        f"and '../' owner were reported:\n{done.stderr}")
    assert f"mutants.toml:{target_line}" in done.stderr and "'kpgk'" in done.stderr \
        and "did you mean 'kpkg'" in done.stderr, (
            f"the unknown module is not named at its line with the close name:\n{done.stderr}")
    assert f"mutants.toml:{owner_line}" in done.stderr and "../tests/test_mod.py" in \
        done.stderr and "'tests/test_mod.py::test_total'" in done.stderr, (
            f"the '../' owner is not named at its line with the node id that works:\n"
            f"{done.stderr}")
