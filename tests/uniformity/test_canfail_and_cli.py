"""The can-fail arm and the command line."""

from __future__ import annotations

import json

from deskcheck.cli import main
from deskcheck.uniformity import audit, run_can_fail

SRC = {"s.py": """
    class S:
        def step(self):
            if self.server_args.enabled:
                dist.barrier(group=self.tp_group)
"""}
CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"


def test_a_planted_rank_local_read_is_reported_for_that_decision(make_pkg):
    root = make_pkg(SRC, CFG)
    report = audit("pkg.s:S", root=root)
    run_can_fail(report, "pkg.s:S", root=root)
    assert [d.can_fail for d in report.decisions] == ["LIVE"], (
        f"the can-fail arm did not see its planted clock read: {report.to_json()['decisions']}")
    assert "monotonic" not in (root / "pkg" / "s.py").read_text(), "the plant touched the disk"


def test_the_cli_prints_json_and_exits_by_verdict(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    code = main(["uniformity", "pkg.s:S", "--root", str(root), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["counts"]["UNIFORM"] == 1, f"exit {code}, {data['counts']}"


def test_a_bad_config_is_a_usage_error_naming_the_line(make_pkg, capsys):
    root = make_pkg(SRC, CFG + "bogus = 1\n")
    assert main(["uniformity", "pkg.s:S", "--root", str(root)]) == 2, (
        "`deskcheck uniformity` with an unknown config key must exit 2 (usage error)"
    )
    assert "pyproject.toml:3" in capsys.readouterr().err, "the error does not name file:line"


UNKNOWN_SRC = {"s.py": """
    class S:
        def __init__(self, thing):
            self.mystery = thing
        def step(self):
            if self.mystery.value():
                dist.barrier(group=self.tp_group)
"""}


def test_unknown_fails_only_under_strict_and_markdown_uses_the_same_words(make_pkg, capsys):
    root = make_pkg(UNKNOWN_SRC, CFG)
    assert main(["uniformity", "pkg.s:S", "--root", str(root)]) == 0, "UNKNOWN failed without --strict"
    out = capsys.readouterr().out
    assert "1 UNKNOWN decisions" in out, out
    md = root / "audit.md"
    assert main(["uniformity", "pkg.s:S", "--root", str(root), "--strict", "--markdown", str(md)]) == 1, (
        "`deskcheck uniformity --strict` must exit 1 when a decision is UNKNOWN"
    )
    text = md.read_text()
    assert "UNKNOWN" in text and "self.mystery" in text, text


def test_a_failing_declaration_is_named_in_the_terminal_and_the_markdown(make_pkg, capsys):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.server_args.on:
                    dist.barrier(group=self.tp_group)
    """}, CFG + """
[[tool.deskcheck.uniformity.role]]
condition = "self.tp_rank == 0"
why = "the leader logs"
""")
    md = root / "audit.md"
    code = main(["uniformity", "pkg.s:S", "--root", str(root), "--markdown", str(md)])
    out, text = capsys.readouterr().out, md.read_text()
    words = "stale: role `self.tp_rank == 0`"
    assert code == 1 and "declaration stale: role self.tp_rank == 0" in out, (
        f"a stale role must fail the audit (exit {code}) and be named in the terminal:\n{out}")
    assert words in text, (
        "docs/uniformity.md: each failing declaration fails the audit, and the Markdown report "
        f"uses the terminal's words; {words!r} is missing from the Markdown:\n{text}")


def test_the_terminal_counts_the_decisions_no_congruence_arm_exercises(make_pkg, capsys):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.pool.available_size() > 0:
                    dist.barrier(group=self.tp_group)
    """}, CFG)
    main(["uniformity", "pkg.s:S", "--root", str(root)])
    out = " ".join(capsys.readouterr().out.split())
    words = "1 decisions with a rank-local or sanctioned input are exercised by no congruence arm"
    assert words in out, (
        "docs/uniformity.md: the report lists the decisions with a rank-local input no replica "
        f"arm covers; the terminal does not say {words!r}:\n{out}")


def test_strict_lists_the_unknown_decision_in_the_terminal_and_falls_short(make_pkg, capsys):
    root = make_pkg(UNKNOWN_SRC, CFG)
    main(["uniformity", "pkg.s:S", "--root", str(root), "--strict"])
    out = " ".join(capsys.readouterr().out.split())
    shown = ("S.step: if `self.mystery.value()`" in out, "input UNKNOWN self.mystery" in out,
             out.rstrip().endswith("falls short"))
    assert shown == (True, True, True), (
        "docs/uniformity.md: UNKNOWN fails with --strict, and a finding names each UNKNOWN "
        "input with its witness; the terminal must list the decision, its UNKNOWN input "
        f"self.mystery, and say the audit falls short: (listed, input named, falls short) = "
        f"{shown}:\n{out}")


def test_an_unknown_decision_with_a_vacuous_arm_is_listed_without_strict(make_pkg, capsys):
    from deskcheck.uniformity.render import render_terminal

    report = audit("pkg.s:S", root=make_pkg(UNKNOWN_SRC, CFG))
    (d,) = report.decisions
    d.can_fail = "VACUOUS: a rank-local read planted into this condition was not reported"
    render_terminal(report, strict=False)
    out = " ".join(capsys.readouterr().out.split())
    assert "S.step: if `self.mystery.value()`" in out and "can-fail: VACUOUS" in out, (
        "a VACUOUS can-fail arm fails the audit whatever the verdict, so the terminal lists "
        "that decision even when it is UNKNOWN and --strict is not given; it printed:\n" + out)


def test_without_strict_the_markdown_lists_no_unknown_finding(make_pkg):
    root = make_pkg(UNKNOWN_SRC, CFG)
    md = root / "plain.md"
    main(["uniformity", "pkg.s:S", "--root", str(root), "--markdown", str(md)])
    text = md.read_text()
    assert "### Findings" not in text and "holds" in text, (
        "docs/uniformity.md: UNKNOWN fails only with --strict; without it the Markdown's "
        "findings (the decisions that fail) must not list the UNKNOWN decision, and the audit "
        f"holds; the Markdown reads:\n{text}")
