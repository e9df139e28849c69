"""The sources view: which rank-local sources the RANK-LOCAL findings rest on, each with the
number of findings it reaches and where it is read -- what a user declares or fixes first
(SGLang: 91 findings rest on the same 16 sources). The same words in the terminal, Markdown
and JSON."""

from __future__ import annotations

import json
import subprocess
import sys

from deskcheck.uniformity import audit

CFG = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

_SCHED = """
class S:
    def step(self):
        if self.pool.available_size() > 2:
            dist.barrier(group=self.tp_group)
        if self.pool.available_size() > 4 or time.monotonic() > 9:
            dist.barrier(group=self.tp_group)
        if self.tp_size > 1:
            dist.barrier(group=self.tp_group)
"""


def _report(make_pkg):
    return audit("pkg.s:S", root=make_pkg({"s.py": _SCHED}, CFG))


def test_sources_are_counted_by_the_findings_they_reach_most_first(make_pkg):
    report = _report(make_pkg)
    rows = [(s.name, len(s.decisions)) for s in report.sources()]
    assert rows == [("self.pool.available_size", 2), ("time.monotonic", 1)], (
        f"two findings read the pool size and one the clock; the sources view should list "
        f"the pool first (2 findings) then the clock (1), got {rows}")
    pool = report.sources()[0]
    assert pool.reason == "per-rank resource size" and pool.read_at.endswith("s.py:7"), (
        f"the pool row should say why it is rank-local and where it is first read (s.py "
        f"line 7, after the fixture's three header lines), got reason {pool.reason!r} at {pool.read_at!r}")
    assert all(d.startswith("S.step:") for d in pool.decisions), pool.decisions


def test_a_uniform_audit_has_no_sources(make_pkg):
    report = audit("pkg.s:S", root=make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_size > 1:
                    dist.barrier(group=self.tp_group)
    """}, CFG))
    assert report.sources() == [], f"no finding, yet sources were listed: {report.sources()}"


def test_terminal_markdown_and_json_show_the_same_sources(make_pkg):
    root = make_pkg({"s.py": _SCHED}, CFG)
    run = [sys.executable, "-m", "deskcheck", "uniformity", "pkg.s:S", "--root", str(root),
           "--no-cache"]
    terminal = subprocess.run(run, capture_output=True, text=True, timeout=120,
                              env=_env()).stdout
    shown = subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=120,
                           env=_env()).stdout
    md_path = root / "audit.md"
    subprocess.run([*run, "--markdown", str(md_path)], capture_output=True, text=True,
                   timeout=120, env=_env())
    markdown = md_path.read_text()
    data = json.loads(shown)
    assert [(s["name"], s["decisions"]) for s in data["sources"]] == [
        ("self.pool.available_size", 2), ("time.monotonic", 1)], (
        f"--json should list each source with its finding count: {data.get('sources')}")
    for words in ("rank-local sources", "self.pool.available_size", "per-rank resource size"):
        assert words in terminal, f"the terminal report lacks {words!r}:\n{terminal}"
        assert words in markdown.lower() if words[0] == "r" else words in markdown, (
            f"the Markdown report lacks {words!r}:\n{markdown}")
    tables = [line for line in terminal.splitlines() if line[:1] in "┏┃┡│└"]
    assert tables and max(len(line) for line in tables) <= 80, (
        "the terminal tables should fit 80 columns:\n" + terminal)


def _env() -> dict[str, str]:
    import os
    return {k: v for k, v in os.environ.items() if k != "COLUMNS"} | {"COLUMNS": "80"}


def test_a_source_whose_every_witness_was_cut_shows_no_read_site():
    from deskcheck.uniformity.model import AuditReport, Decision, Input, InputClass, Verdict
    from deskcheck.uniformity.render import render_markdown

    cut = [f"a.py:{n} hop{n}" for n in range(24)]  # 24 hops, the source not reached
    whole = ["a.py:1 x (assign)", "b.py:7 time.monotonic"]
    decisions = [Decision("S.step", "a.py", 3, "x > 1", "if", verdict=Verdict.RANK_LOCAL,
                          inputs=[Input("self.pool.available_size", InputClass.RANK_LOCAL, cut,
                                        "per-rank resource size"),
                                  Input("time.monotonic", InputClass.RANK_LOCAL, whole,
                                        "clock")])]
    report = AuditReport("m:S", ["S.step"], decisions)
    rows = {s.name: s.read_at for s in report.sources()}
    assert rows == {"self.pool.available_size": "", "time.monotonic": "b.py:7"}, (
        f"a witness cut before its source must not name its last hop as the read site; "
        f"a whole one names the hop that reads the source: {rows}")
    assert "(witness cut before it)" in render_markdown(report), (
        "the Markdown sources table should say the read site is unknown when every "
        "witness was cut")


def test_a_holding_decisions_inputs_are_no_source(make_pkg):
    """Only RANK-LOCAL findings contribute sources (set L, 09: the rank id of a declared
    ROLE was listed as a source no finding rests on)."""
    cfg = CFG + ('[[tool.deskcheck.uniformity.role]]\ncondition = "self.tp_rank == 0"\n'
                 'why = "rank 0 writes the log"\n')
    report = audit("pkg.s:S", root=make_pkg({"s.py": """
        class S:
            def step(self):
                if self.tp_rank == 0:
                    dist.barrier(group=self.tp_group)
                if time.monotonic() > 9:
                    dist.barrier(group=self.tp_group)
    """}, cfg))
    verdicts = sorted(d.verdict.value for d in report.decisions)
    assert verdicts == ["RANK-LOCAL", "ROLE"], f"the fixture's verdicts changed: {verdicts}"
    names = [s.name for s in report.sources()]
    assert names == ["time.monotonic"], (
        f"the declared ROLE holds; its rank id is no source of a finding, yet the sources "
        f"view lists {names}")
