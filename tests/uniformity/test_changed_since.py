"""--changed-since REF: what a branch adds or changes, the REF side read from git objects."""

from __future__ import annotations

import subprocess

from deskcheck.cli import main
from deskcheck.uniformity import changed_since

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"
BASE = """
    class S:
        def step(self):
            if self.server_args.on:
                dist.barrier(group=self.tp_cpu_group)
"""


def _git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _repo(make_pkg):
    root = make_pkg({"s.py": BASE}, CFG)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    return root


def test_a_branch_adding_a_rank_local_decision_is_reported(make_pkg, capsys):
    root = _repo(make_pkg)
    path = root / "pkg" / "s.py"
    path.write_text(path.read_text() + "            if self.tp_rank == 0:\n"
                    "                dist.barrier(group=self.tp_cpu_group)\n")
    changes = changed_since("pkg.s:S", root=root, ref="main")
    decisions = [(k, d.condition, d.verdict.value) for k, d in changes.decisions]
    assert decisions == [("added", "self.tp_rank == 0", "RANK-LOCAL")], (
        f"--changed-since must list the decision the branch adds, RANK-LOCAL; it listed "
        f"{decisions}:\n" + "\n".join(changes.lines()))
    inputs = [name for _d, name in changes.rank_local]
    assert inputs == ["self.tp_rank"], (
        "--changed-since lists the new rank-local inputs (docs/uniformity.md): the added "
        f"decision reads self.tp_rank, yet the new rank-local inputs are {inputs}:\n"
        + "\n".join(changes.lines()))
    assert main(["uniformity", "pkg.s:S", "--root", str(root), "--changed-since", "main"]) == 1, (
        "`deskcheck uniformity --changed-since main` must exit 1 when the branch adds a "
        "RANK-LOCAL decision"
    )
    out = capsys.readouterr().out
    assert "added RANK-LOCAL" in out, f"the report must say 'added RANK-LOCAL'; it printed {out!r}"


def test_a_branch_without_python_changes_answers_at_once(make_pkg):
    root = _repo(make_pkg)
    (root / "README.md").write_text("docs only\n")
    changes = changed_since("pkg.s:S", root=root, ref="main")
    assert changes.files == [] and changes.decisions == [] and changes.exit_code() == 0, (
        "a branch without Python changes must report no files, no decisions and exit 0; files "
        f"{changes.files}, decisions {changes.decisions}, exit {changes.exit_code()}"
    )


def test_an_unknown_ref_is_a_usage_error(make_pkg, capsys):
    root = _repo(make_pkg)
    assert main(["uniformity", "pkg.s:S", "--root", str(root), "--changed-since", "nope"]) == 2, (
        "`deskcheck uniformity --changed-since nope` (an unknown ref) must exit 2"
    )
    err = capsys.readouterr().err
    assert "nope" in err, f"an unknown ref must be named in the error; stderr: {err!r}"


def test_two_decisions_with_one_key_are_compared_each_with_its_own(make_pkg):
    """Two decisions of one function with the same condition text share a key; a branch that
    changes neither must report neither (each paired with its own, in order)."""
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                x = self.tp_rank
                if x:
                    dist.barrier(group=self.tp_cpu_group)
                x = self.server_args.on
                if x:
                    dist.barrier(group=self.tp_cpu_group)
    """}, CFG)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    path = root / "pkg" / "s.py"
    path.write_text(path.read_text() + "\n    def other(self):\n        pass\n")
    changes = changed_since("pkg.s:S", root=root, ref="main")
    assert changes.files == ["pkg/s.py"], changes.files
    assert changes.decisions == [] and changes.rank_local == [], (
        "a branch that changes no decision reported: " + " | ".join(changes.lines()[1:]))


def _decision(line, condition, verdict, *local):
    from deskcheck.uniformity.model import Decision, Input, InputClass, Verdict

    inputs = [Input(name, InputClass.RANK_LOCAL) for name in local]
    return Decision("S.step", "s.py", line, condition, "if", inputs=inputs,
                    verdict=Verdict(verdict))


def _site(line, call, group="self.tp_group"):
    from deskcheck.uniformity.model import CollectiveSite

    return CollectiveSite("S.step", "s.py", line, call, "collective", group, "tp")


def test_the_pr_view_lists_what_the_branch_adds_or_changes_and_nothing_that_only_moved():
    from deskcheck.uniformity.changed import Changes, _compare
    from deskcheck.uniformity.model import AuditReport

    base = AuditReport("m:S", ["step"], decisions=[
        _decision(3, "self.a", "UNIFORM"), _decision(5, "self.b", "RANK-LOCAL", "self.tp_rank"),
        _decision(7, "self.c", "UNIFORM")],
        sites=[_site(4, "dist.barrier"), _site(8, "dist.all_reduce")])
    head = AuditReport("m:S", ["step"], decisions=[
        _decision(13, "self.a", "UNIFORM"),                       # moved only
        _decision(15, "self.b", "RANK-LOCAL", "self.tp_rank", "time.monotonic"),
        _decision(17, "self.c", "RANK-LOCAL", "self.pool"),        # verdict changed
        _decision(19, "self.d", "UNIFORM")],                       # added
        sites=[_site(14, "dist.barrier"), _site(18, "dist.all_reduce"),
               _site(20, "dist.broadcast")])
    changes = Changes("m:S", "main")
    _compare(base, head, changes)
    listed = [(kind, d.condition) for kind, d in changes.decisions]
    assert listed == [("changed", "self.b"), ("changed", "self.c"), ("added", "self.d")], (
        "--changed-since lists the decisions the branch adds or changes (a new rank-local "
        "input or a new verdict), never one that only moved lines (the key has no line); "
        f"it listed {listed}")
    new_inputs = [(d.condition, name) for d, name in changes.rank_local]
    assert new_inputs == [("self.b", "time.monotonic"), ("self.c", "self.pool")], (
        f"only the new rank-local inputs are listed; it listed {new_inputs}")
    new_sites = [s.call for s in changes.sites]
    assert new_sites == ["dist.broadcast"], (
        f"only the new collective sites are listed, not the ones that moved; it listed {new_sites}")


def test_a_branch_touching_only_python_the_audit_does_not_read_is_answered_after_one_audit(
        make_pkg, monkeypatch):
    import importlib

    audit_module = importlib.import_module("deskcheck.uniformity.audit")
    root = _repo(make_pkg)
    (root / "pkg" / "unrelated.py").write_text("VALUE = 1\n")
    real, calls = audit_module.audit, []

    def counted(*args, **kwargs):
        calls.append(kwargs.get("sources"))
        return real(*args, **kwargs)

    monkeypatch.setattr(audit_module, "audit", counted)
    changes = changed_since("pkg.s:S", root=root, ref="main")
    assert changes.files == ["pkg/unrelated.py"] and changes.decisions == [], (
        f"files {changes.files}, decisions {changes.decisions}")
    assert len(calls) == 1, (
        "a branch that touches no file the audit reads answers at once (docs/uniformity.md): "
        f"the work tree's audit only, yet the audit ran {len(calls)} times (REF side audited)")


def test_strict_fails_a_branch_adding_an_unknown_decision(make_pkg):
    root = _repo(make_pkg)
    path = root / "pkg" / "s.py"
    path.write_text(path.read_text() + "            try:\n                self.poll()\n"
                    "            except Exception:\n"
                    "                dist.barrier(group=self.tp_cpu_group)\n"
                    "        def poll(self):\n            pass\n")
    argv = ["uniformity", "pkg.s:S", "--root", str(root), "--changed-since", "main"]
    got = (main(argv), main([*argv, "--strict"]))
    assert got == (0, 1), (
        "docs/uniformity.md: UNKNOWN exits 1 with --strict; a branch adding an `except` "
        f"decision (UNKNOWN) under --changed-since exits {got[0]} plain and {got[1]} with "
        "--strict, expected 0 and 1")
