"""The red-first report (text and the PR comment's Markdown) keeps the failure line that
names ranks ("rank 1 diverged: ..."): why each test was red on base, as a reviewer reads it."""

from __future__ import annotations

from pathlib import Path

from deskcheck.cli import main

from .gitproject import GitProject

BASE = "def decide(rank):\n    return 2 + (rank == 1)\n"
FIXED = "def decide(rank):\n    return 2\n"
TEST = '''from calc import decide


def test_every_rank_decides_the_same():
    decisions = [decide(rank) for rank in range(3)]
    if len(set(decisions)) > 1:
        raise AssertionError(
            "congruence arm 'admit' (gloo, world 3) failed:\\n"
            "  rank 1 diverged: decided 3 where ranks 0, 2 decided 2\\n"
            "rank by rank (enforcer on):\\n"
            "  rank 0: input 0 | decided: 2\\n  rank 1: input 1 | decided: 3")
'''
RANK_LINE = "rank 1 diverged: decided 3 where ranks 0, 2 decided 2"


def test_the_markdown_keeps_the_line_that_names_the_ranks(tmp_path: Path, monkeypatch,
                                                          capsys):
    project = GitProject(tmp_path / "repo")
    project.write("pyproject.toml", '[project]\nname = "calc"\nversion = "0"\n')
    project.write(".gitignore", ".deskcheck/\n")
    project.write("calc/__init__.py", BASE)
    project.write("tests/test_seed.py", "def test_seed():\n    pass\n")
    project.commit("base")
    project.git("checkout", "-q", "-b", "pr")
    project.write("calc/__init__.py", FIXED)
    project.write("tests/test_congruence.py", TEST)
    project.commit("agree")
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    markdown = tmp_path / "redfirst.md"
    assert main(["redfirst", "--base", "main", "--no-store", "--markdown", str(markdown)]) == 0, (
        "`deskcheck redfirst --base main --no-store --markdown F` must exit 0 (holds); it said:\n"
        f"{capsys.readouterr()}"
    )
    text = capsys.readouterr().out
    assert RANK_LINE in markdown.read_text(), (
        f"the PR comment drops the line naming the ranks:\n{markdown.read_text()}")
    assert RANK_LINE in " ".join(text.split()), f"the terminal report drops it:\n{text}"


def test_the_failure_line_is_the_rank_lines_else_the_first():
    from deskcheck.gate.redfirst import failure_line

    assert failure_line("x failed:\n  rank 2 diverged: a\n  rank 0 admitted 7\nrank by rank "
                        "(enforcer on):\n  rank 0: input 1") == (
        "rank 2 diverged: a; rank 0 admitted 7"), "the rank-by-rank table leaked in"
    assert failure_line("assert 3 == 2\n where 3 = f()") == "assert 3 == 2", (
        "with no rank lines the failure line must be the first line, assert 3 == 2"
    )
    assert failure_line("") == "", "the failure line of an empty text must be empty"


SPLIT_NOTE = ("first split: calc/__init__.py:2 in decide: if rank == 1\n"
              "  rank 0: false (rank=0)\n  rank 1: true (rank=1)\n  rank 2: false (rank=2)\n"
              "  call path: decide")
SPLIT_WORDS = ("first split: calc/__init__.py:2 in decide: if rank == 1 (rank 0: false "
               "(rank=0); rank 1: true (rank=1); rank 2: false (rank=2))")


def test_the_failure_line_gains_the_first_split_with_each_ranks_way():
    from deskcheck.gate.redfirst import failure_line

    message = ("congruence arm 'admit' failed:\n  rank 1 diverged: a\nrank by rank (enforcer "
               "on):\n  rank 0: input 0 | decided: 2\n" + SPLIT_NOTE)
    said = failure_line(message)
    assert said == f"rank 1 diverged: a; {SPLIT_WORDS}", (
        f"the failure line is {said!r}: it must keep the rank line and gain the first split "
        "with each rank's way and inputs (not the table, not the call path)")


def test_a_long_rank_line_is_cut_before_the_split_is():
    from deskcheck.gate.redfirst import FAILURE_LINE_MAX, failure_line

    message = "x failed:\n  rank 1 diverged: " + "7" * 400 + "\n" + SPLIT_NOTE
    said = failure_line(message)
    assert len(said) <= FAILURE_LINE_MAX and said.endswith(SPLIT_WORDS), (
        f"a long rank line pushed the split out of the failure line ({len(said)} chars): "
        f"{said!r}")


SPLIT_TEST = TEST.replace(
    '            "  rank 0: input 0 | decided: 2\\n  rank 1: input 1 | decided: 3")',
    '            "  rank 0: input 0 | decided: 2\\n  rank 1: input 1 | decided: 3")\n'
).replace("        raise AssertionError(", "        error = AssertionError(").rstrip("\n") + \
    "\n        error.add_note(" + repr(SPLIT_NOTE) + ")\n        raise error\n"


def test_the_pr_comment_keeps_the_rank_line_and_gains_the_split(tmp_path: Path, monkeypatch,
                                                                 capsys):
    project = GitProject(tmp_path / "repo")
    project.write("pyproject.toml", '[project]\nname = "calc"\nversion = "0"\n')
    project.write(".gitignore", ".deskcheck/\n")
    project.write("calc/__init__.py", BASE)
    project.write("tests/test_seed.py", "def test_seed():\n    pass\n")
    project.commit("base")
    project.git("checkout", "-q", "-b", "pr")
    project.write("calc/__init__.py", FIXED)
    project.write("tests/test_congruence.py", SPLIT_TEST)
    project.commit("agree")
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("DESKCHECK_SCRATCH_DIR", str(tmp_path))
    markdown = tmp_path / "redfirst.md"
    assert main(["redfirst", "--base", "main", "--no-store", "--markdown", str(markdown)]) == 0, (
        "`deskcheck redfirst --base main --no-store --markdown F` must exit 0 (holds); it said:\n"
        f"{capsys.readouterr()}"
    )
    text = " ".join(capsys.readouterr().out.split())
    comment = " ".join(markdown.read_text().split())
    for where, said in (("PR comment", comment), ("terminal report", text)):
        assert RANK_LINE in said and SPLIT_WORDS in said, (
            f"the {where} must keep the rank line and gain the first split:\n{said}")


def test_the_probe_keeps_a_failures_notes():
    from deskcheck.gate.probe_plugin import failure_message

    error = AssertionError("congruence arm 'admit' failed:\n  rank 1 diverged: a")
    error.add_note(SPLIT_NOTE)
    said = failure_message(error)
    assert said.startswith(str(error)) and SPLIT_NOTE in said, (
        f"the probe dropped the notes of the failure (the first split):\n{said}")
