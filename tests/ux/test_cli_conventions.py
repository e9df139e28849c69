"""Issue 16 items 6, 7 (GREEN_ON_BASE) and 12: the conventions users know from pytest/mutmut."""

from __future__ import annotations

import argparse
import subprocess
import sys

from deskcheck.cli import build_parser
from deskcheck.gate.redfirst import RedFirstReport, TestVerdict
from deskcheck.gate.render import redfirst_markdown, redfirst_text


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                for child, grandchild in _subparsers(sub):
                    yield f"{name} {child}", grandchild


def test_sweep_takes_dash_n_like_regress_and_pytest_xdist():
    args = build_parser().parse_args(["sweep", "-n", "2"])
    assert args.workers == 2, f"`deskcheck sweep -n 2` did not set 2 workers: {args.workers}"


def test_python_dash_m_deskcheck_is_the_command():
    done = subprocess.run([sys.executable, "-m", "deskcheck", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("deskcheck "), (
        f"`python -m deskcheck --version` failed: rc={done.returncode} {done.stderr[-500:]}")


def test_every_command_has_a_description_and_every_option_a_help_text():
    missing = []
    for name, sub in _subparsers(build_parser()):
        if not sub.description:
            missing.append(f"`deskcheck {name} --help` has no description line")
        for action in sub._actions:
            if action.option_strings and action.help is None:
                missing.append(f"`deskcheck {name}` option {'/'.join(action.option_strings)} "
                               "has no help text")
    assert not missing, "\n".join(missing)


def test_sweep_and_mutants_help_open_with_their_own_description():
    parser = build_parser()
    subs = dict(_subparsers(parser))
    for name in ("sweep", "mutants"):
        text = subs[name].format_help()
        description = subs[name].description or ""
        assert len(description) > 60 and " ".join(description.split()[:5]) in " ".join(text.split()), (
            f"`deskcheck {name} --help` has no description of what it does:\n{text}")


def _report(verdict: str) -> RedFirstReport:
    test = TestVerdict(id="tests/test_x.py::test_y", function="tests/test_x.py::test_y",
                       change="added", base="passed", branch="passed", verdict=verdict,
                       pin=None, detail="base: passed; branch: passed")
    context = {"ref": "origin/main", "merge_base": "a" * 40, "head": "b" * 40, "dirty": False}
    return RedFirstReport(context=context, tests=[test], selected=[], changed_test_files=[],
                          strict=False)


def test_green_on_base_hints_the_pin_marker_in_text_and_markdown():
    report = _report("GREEN_ON_BASE")
    for name, text in (("text", redfirst_text(report)), ("markdown", redfirst_markdown(report))):
        assert '@pytest.mark.pin("' in text, (
            f"a GREEN_ON_BASE test gets no hint to mark it @pytest.mark.pin(\"why\") in the "
            f"{name} report:\n{text}")
