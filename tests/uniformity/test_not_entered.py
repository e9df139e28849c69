"""The calls the audit could not follow are reported, never dropped in silence (docs/
uniformity.md "Reading a report"): a call whose receiver does not resolve may hold a
collective the audit cannot see. Found on torchtitan's trainer and SGLang (225 calls on the
Scheduler's walk, 65 of them on ``self.tree_cache``): they were collected and shown nowhere.
Listed by why in the terminal and Markdown, one by one in --json."""

from __future__ import annotations

import json
import subprocess
import sys

from deskcheck.uniformity import audit
from deskcheck.uniformity.render import render_markdown

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SRC = """
    from helpers import make_helper

    class Helper:
        def sync(self):
            return 1

    class S:
        def __init__(self):
            self.helper = HELPER
            self.other = make_helper()

        def step(self):
            self.helper.sync()
            self.other.flush()
            dist.barrier(group=self.tp_cpu_group)
            self.helper.sync()
"""


def _report(make_pkg, helper: str):
    root = make_pkg({"s.py": SRC.replace("HELPER", helper)}, ROOTS)
    return root, audit("pkg.s:S", root=root)


def test_a_call_on_an_unresolved_receiver_is_listed_with_why(make_pkg):
    _root, report = _report(make_pkg, "make_helper()")
    calls = sorted((c.call, c.line) for c in report.not_entered)
    assert calls == [("self.helper.sync", 17), ("self.helper.sync", 20),
                     ("self.other.flush", 18)], (
        "self.helper and self.other are built by make_helper(), a function from outside the "
        "roots: the audit cannot follow self.helper.sync() (called at two lines) or "
        "self.other.flush(), so each call must be listed as not entered, once per line; got "
        f"{calls}")
    why = {c.call: c.why for c in report.not_entered}
    assert "self.helper" in why["self.helper.sync"], (
        f"the reason must name the receiver that did not resolve; got {why}")


def test_a_resolved_receiver_is_not_listed(make_pkg):
    _root, report = _report(make_pkg, "Helper()")
    calls = [c.call for c in report.not_entered]
    assert "self.helper.sync" not in calls and "self.other.flush" in calls, (
        "self.helper = Helper() resolves (Helper.sync is entered): only self.other.flush() "
        f"is not entered; got {calls}")


def test_json_markdown_and_terminal_say_the_same(make_pkg):
    root, report = _report(make_pkg, "make_helper()")
    listed = report.to_json()["not_entered"]
    assert sorted((c["call"], c["line"]) for c in listed) == [
            ("self.helper.sync", 17), ("self.helper.sync", 20), ("self.other.flush", 18)], (
        f"--json must list every call not entered, once per line; got {listed}")
    md = render_markdown(report)
    row = next((line for line in md.splitlines()
                if line.startswith("| receiver self.helper unresolved |")), "")
    assert "### Calls not entered" in md and "3 calls not entered" in md \
        and row.startswith("| receiver self.helper unresolved | 2 |") \
        and row.endswith("pkg/s.py:17 |"), (
            "the Markdown report must say how many calls were not entered (3, for two "
            "reasons) and, per reason, how many and where the first one is (line 17, not "
            f"20):\n{md}")
    out = subprocess.run([sys.executable, "-m", "deskcheck", "uniformity", "pkg.s:S",
                          "--root", str(root)], cwd=root, capture_output=True, text=True,
                         timeout=120)
    text = " ".join(out.stdout.split())
    assert "3 calls not entered" in text and "2 x receiver self.helper unresolved (first at" \
        in text and "pkg/s.py:17)" in text and "pkg/s.py:20)" not in text, (
        f"the terminal report must say how many calls were not entered and why:\n{out.stdout}"
        f"\n{out.stderr}")
    assert json.loads(json.dumps(listed)) == listed
