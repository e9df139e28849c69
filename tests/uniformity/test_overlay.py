"""Auditing source held in memory (docs/uniformity.md, Stable API): ``overlay={path: text}``
(shorthand for ``sources=Sources(overlay=...)``) audits that text instead of the file, and
nothing is written; ``report.files_read`` lists the files the audit entered."""

from __future__ import annotations

from deskcheck.static import Sources
from deskcheck.uniformity import Verdict, audit

SRC = {"ov.py": """
    class S:
        def step(self):
            if self.server_args.on:
                dist.barrier(group=self.tp_group)
"""}
CFG = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'


def test_an_overlay_is_audited_in_place_of_the_file_and_nothing_is_written(make_pkg):
    root = make_pkg(SRC, CFG)
    path = root / "pkg" / "ov.py"
    clean = path.read_text()
    mutated = clean.replace("self.server_args.on", "time.monotonic() > 1")
    for how, kwargs in (("overlay=", {"overlay": {str(path): mutated}}),
                        ("sources=Sources(overlay=...)", {"sources": Sources({str(path): mutated})})):
        report = audit("pkg.ov:S", root=root, **kwargs)
        verdicts = [(d.condition, d.verdict) for d in report.decisions]
        assert verdicts == [("time.monotonic() > 1", Verdict.RANK_LOCAL)], (
            f"audit(..., {how}) must audit the text held in memory (a clock read, RANK-LOCAL) "
            f"instead of the file on disk; it reported {verdicts}")
        assert path.read_text() == clean, f"audit(..., {how}) wrote the overlay to disk"
    report = audit("pkg.ov:S", root=root)
    assert [d.verdict for d in report.decisions] == [Verdict.UNIFORM], (
        f"the clean file must audit UNIFORM after the overlays: {report.decisions}")
    assert str(path) in report.files_read, (
        f"report.files_read lists every source file the audit entered; {path} is missing "
        f"from {report.files_read}")
