"""Item 9: ``deskcheck drift`` never skips a test file in silence. Every file that declares
guards and cannot be imported is named in one pass (file:line, why, the fix; exit 2); a file
pytest would skip at import (``pytest.importorskip``) is named with its reason and the run
does not hold (its guards were never checked); a file in a declared encoding is read, not
passed over."""

from __future__ import annotations

import json

import pytest

from tests.reliability.battery import Bench

pytestmark = pytest.mark.xdist_group("reliability-drift")

SCHEDULER = '''class Sched:
    def __init__(self):
        self.limit = 3

    def step(self):
        return self.limit
'''

HARNESS = '''from deskcheck.harness import Harness, bind, state
from kpkg.sched import Sched


class {name}(Harness, model=Sched, roots=["step"]):
    step = bind(Sched.step)
    limit = state(3)
'''


def _project(bench: Bench, files: dict[str, str | bytes]) -> None:
    bench.write({"kpkg/sched.py": SCHEDULER, "tests/test_guarded.py": HARNESS.format(
        name="Guarded"), **files})
    bench.commit("harness files")
    bench.snapshot()


def test_every_guard_file_that_cannot_be_imported_is_named_in_one_pass(bench: Bench) -> None:
    broken = "from deskcheck.harness import Harness\n\nimport {module}\n"
    _project(bench, {"tests/test_one.py": broken.format(module="no_such_module_one"),
                     "tests/test_two.py": broken.format(module="no_such_module_two")})
    done = bench.run("drift")
    assert "Traceback" not in done.stderr and done.returncode == 2, (
        f"exit {done.returncode}, expected 2:\n{done.stdout}{done.stderr}")
    named = [f for f in ("tests/test_one.py:3", "tests/test_two.py:3") if f in done.stderr]
    assert len(named) == 2 and "no_such_module_two" in done.stderr \
        and "fix:" in done.stderr, (
            f"both files drift cannot import must be named in one pass, named {named}:\n"
            f"{done.stderr}")


def test_a_guard_file_skipped_at_import_is_named_and_the_run_does_not_hold(
        bench: Bench) -> None:
    _project(bench, {"tests/test_optional.py": "import pytest\n\n"
                     "pytest.importorskip('no_such_optional_dependency')\n\n"
                     + HARNESS.format(name="Optional")})
    done = bench.run("drift")
    out = done.stdout + done.stderr
    assert "Traceback" not in out, f"a module-level skip broke drift:\n{out}"
    assert done.returncode == 1, (
        f"a guard file was skipped at import, so its guards were never checked: the run "
        f"does not hold, but drift exited {done.returncode}:\n{out}")
    assert "tests/test_optional.py" in out and "no_such_optional_dependency" in out, (
        f"the skipped file and why it was skipped are not named:\n{out}")
    as_json = bench.run("drift", "--json")
    assert as_json.returncode == 1, f"--json exited {as_json.returncode}:\n{as_json.stderr}"
    data = json.loads(as_json.stdout)
    assert [s["file"].endswith("tests/test_optional.py") for s in data["skipped"]] == [True], (
        f"drift --json does not list the skipped file: {data.get('skipped')}")


def test_a_guard_file_in_a_declared_encoding_is_guarded(bench: Bench) -> None:
    latin = ("# -*- coding: latin-1 -*-\n# r\xe9glage: the owner's notes\n"
             + HARNESS.format(name="Latin")).encode("latin-1")
    _project(bench, {"tests/test_latin.py": latin})
    done = bench.run("drift")
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stdout}{done.stderr}"
    assert "Latin" in done.stdout, (
        f"a harness file with a coding declaration was skipped (read as UTF-8 only):\n"
        f"{done.stdout}{done.stderr}")


def test_a_bad_changed_since_ref_is_reported_before_any_guard_file_is_imported(
        bench: Bench) -> None:
    """Shown without a clock: a guard file that cannot be imported is there too, and the
    error is the ref's (nothing was imported before the ref was checked)."""
    _project(bench, {"tests/test_one.py": "from deskcheck.harness import Harness\n\n"
                                          "import no_such_module_one\n"})
    done = bench.run("drift", "--changed-since", "no-such-ref")
    assert done.returncode == 2 and "Traceback" not in done.stderr, (
        f"exit {done.returncode}, expected 2:\n{done.stderr}")
    assert "unknown ref 'no-such-ref'" in done.stderr and "fix:" in done.stderr, (
        f"the bad ref is not named with a fix:\n{done.stderr}")
    assert "no_such_module_one" not in done.stderr, (
        f"the guard files were imported before the bad ref was reported:\n{done.stderr}")
