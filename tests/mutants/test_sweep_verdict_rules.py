"""Sharp arms for the sweep engine's verdicts, from one real sweep of a tiny project.

The project is written to a temporary folder; ``deskcheck sweep`` runs in a fresh python (a
sweep forks; under a self-mutant that python gets the mutant through the import hook). Each
mutant of the tiny catalog is built to earn exactly one verdict; each test names the verdict
the engine must not hand out instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.xdist_group("selfproof-sweep")

CALC = '''
def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def plugin_name():
    return "base"


def answer():
    return 42


def ready():
    return True
'''
CHECKS = '''
import time

from spk import calc


def test_low():
    assert calc.clamp(-5, 0, 10) == 0


def test_high():
    assert calc.clamp(50, 0, 10) == 10


def test_middle():
    assert calc.clamp(5, 0, 10) == 5


def test_red():
    assert calc.clamp(5, 0, 10) == 6, "red on clean code"


def test_plugin():
    name = calc.plugin_name()
    if name != "base":
        __import__(f"spk.plugins_{name}")  # ModuleNotFoundError: a crash, not a kill


def test_answer():
    if calc.answer() != 42:
        raise TimeoutError("rank 1 did not answer")


def test_ready():
    while not calc.ready():
        time.sleep(0.05)  # hangs under its mutant
'''
CATALOG = '''
[sweep]
tests = ["checks"]
timeout_factor = 3.0
timeout_s = 20.0

[[mutant]]
id = "killed"
title = "lower bound never applied"
target = "spk.calc:clamp"
operator = "force-branch"
condition = "value < low"
to = false
owners = ["checks/check_calc.py::test_low"]

[[mutant]]
id = "owner_missed"
title = "upper bound never applied; owned by a test that never reaches it"
target = "spk.calc:clamp"
operator = "force-branch"
condition = "value > high"
to = false
owners = ["checks/check_calc.py::test_middle"]

[[mutant]]
id = "baseline_red"
title = "owned by a test that is red on clean code"
target = "spk.calc:clamp"
operator = "return"
value = "0"
owners = ["checks/check_calc.py::test_red"]

[[mutant]]
id = "import_crash"
title = "the owner crashes with ModuleNotFoundError"
target = "spk.calc:plugin_name"
operator = "return"
value = '"gone"'
owners = ["checks/check_calc.py::test_plugin"]

[[mutant]]
id = "timeout_raised"
title = "the owner raises TimeoutError"
target = "spk.calc:answer"
operator = "return"
value = "0"
owners = ["checks/check_calc.py::test_answer"]

[[mutant]]
id = "hung"
title = "the owner hangs"
target = "spk.calc:ready"
operator = "return"
value = "False"
owners = ["checks/check_calc.py::test_ready"]
timeout_s = 1.5
'''


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("sp_sweep")
    (root / "spk").mkdir()
    (root / "spk" / "__init__.py").write_text("")
    (root / "spk" / "calc.py").write_text(textwrap.dedent(CALC))
    (root / "checks").mkdir()
    (root / "checks" / "check_calc.py").write_text(textwrap.dedent(CHECKS))
    (root / "pytest.ini").write_text("[pytest]\npython_files = check_*.py\n"
                                     "addopts = -p no:cacheprovider\npythonpath = .\n")
    (root / "mutants.toml").write_text(textwrap.dedent(CATALOG))
    out = root / "sweep.json"
    proc = subprocess.run(
        [sys.executable, "-m", "deskcheck.cli", "sweep", "--catalog", "mutants.toml",
         "--json", str(out), "--no-store", "--workers", "2"],
        cwd=root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert out.exists(), f"the sweep wrote no JSON\n{proc.stdout}\n{proc.stderr}"
    return {m["id"]: m for m in json.loads(out.read_text())["mutants"]}


def _verdict(verdicts: dict[str, dict], mutant_id: str) -> str:
    return verdicts[mutant_id]["verdict"]


def test_an_assertion_failure_of_the_owner_is_killed(verdicts):
    got = _verdict(verdicts, "killed")
    assert got == "KILLED", f"sweep judged a plain owner kill as {got}, not KILLED"


def test_a_kill_by_a_non_owner_is_owner_missed(verdicts):
    got = _verdict(verdicts, "owner_missed")
    assert got == "OWNER_MISSED", (
        f"sweep judged a mutant killed only by a non-owner as {got}, not OWNER_MISSED")


def test_an_owner_red_on_clean_code_is_baseline_red(verdicts):
    got = _verdict(verdicts, "baseline_red")
    assert got == "BASELINE_RED", (
        f"sweep did not check the baseline: an owner red on clean code gave {got}, "
        "not BASELINE_RED")


def test_an_import_error_of_the_owner_is_a_wrong_failure(verdicts):
    got = _verdict(verdicts, "import_crash")
    assert got == "WRONG_FAILURE", (
        f"sweep counted an owner's ModuleNotFoundError as {got}, not WRONG_FAILURE")


def test_a_timeout_raised_by_the_owner_is_a_timeout(verdicts):
    got = _verdict(verdicts, "timeout_raised")
    assert got == "TIMEOUT", f"sweep counted an owner's TimeoutError as {got}, not TIMEOUT"


def test_a_hung_owner_is_a_timeout(verdicts):
    got = _verdict(verdicts, "hung")
    assert got == "TIMEOUT", f"sweep counted a hung owner as {got}, not TIMEOUT"
    assert verdicts["hung"]["killed_by"] == [], "a TIMEOUT names no killer"
