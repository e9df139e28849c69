"""The options of ``deskcheck uniformity`` that choose what is audited and what is shown:
TARGET, --roots, --config, --verbose, --can-fail; each ignored fails here, by name."""

from __future__ import annotations

import json

from deskcheck.cli import main

SRC = {"s.py": """
    class S:
        def step(self):
            if self.server_args.enabled:
                dist.barrier(group=self.tp_group)
        def tick(self):
            if self.server_args.other:
                dist.barrier(group=self.tp_group)

    class B:
        def step(self):
            if self.server_args.b_only:
                dist.barrier(group=self.tp_group)
"""}
CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"


def _audited(capsys, *argv: str) -> list[str]:
    main(["uniformity", *argv, "--json"])
    return [d["function"] for d in json.loads(capsys.readouterr().out)["decisions"]]


def test_the_target_names_the_class_audited(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    got = (_audited(capsys, "pkg.s:S", "--root", str(root)),
           _audited(capsys, "pkg.s:B", "--root", str(root)))
    assert got == (["S.step"], ["B.step"]), (
        f"expected pkg.s:S to audit S.step and pkg.s:B to audit B.step, got {got}")


def test_roots_on_the_command_line_replace_the_configured_roots(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    got = _audited(capsys, "pkg.s:S", "--root", str(root), "--roots", "tick")
    assert got == ["S.tick"], f"expected --roots tick to audit S.tick only, got {got}"


def test_config_names_the_pyproject_read(make_pkg, capsys, tmp_path):
    root = make_pkg(SRC, CFG)
    other = tmp_path / "elsewhere.toml"
    other.write_text("[tool.deskcheck.uniformity]\nroots = [\"tick\"]\n")
    got = _audited(capsys, "pkg.s:S", "--root", str(root), "--config", str(other))
    assert got == ["S.tick"], (
        f"expected --config {other.name} (roots = tick) to be read, not the project's "
        f"pyproject.toml (roots = step); audited {got}")


def test_verbose_lists_every_decision(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    main(["uniformity", "pkg.s:S", "--root", str(root)])
    quiet = capsys.readouterr().out
    main(["uniformity", "pkg.s:S", "--root", str(root), "--verbose"])
    verbose = capsys.readouterr().out
    line = "S.step: if `self.server_args.enabled`"
    assert (line in quiet, line in verbose) == (False, True), (
        f"expected the UNIFORM decision listed only under --verbose:\n{quiet}\n---\n{verbose}")


def test_can_fail_runs_the_arm_for_each_decision(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    for flags, expected in (((), ""), (("--can-fail",), "LIVE")):
        main(["uniformity", "pkg.s:S", "--root", str(root), "--json", *flags])
        arms = [d["can_fail"] for d in json.loads(capsys.readouterr().out)["decisions"]]
        assert arms == [expected], (
            f"expected the can-fail arm {expected or 'not run'} with flags {flags}, got {arms}")


def test_can_fail_re_audits_from_the_roots_given_on_the_command_line(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    main(["uniformity", "pkg.s:S", "--root", str(root), "--roots", "tick", "--json",
          "--can-fail"])
    arms = {d["function"]: d["can_fail"] for d in json.loads(capsys.readouterr().out)["decisions"]}
    assert arms == {"S.tick": "LIVE"}, (
        "with --roots tick (config roots: step) the can-fail re-audit must start from tick too, "
        f"or the planted read in S.tick is never seen; the arms were {arms}")
