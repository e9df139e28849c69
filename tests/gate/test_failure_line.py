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
    assert main(["redfirst", "--base", "main", "--no-store", "--markdown", str(markdown)]) == 0
    text = capsys.readouterr().out
    assert RANK_LINE in markdown.read_text(), (
        f"the PR comment drops the line naming the ranks:\n{markdown.read_text()}")
    assert RANK_LINE in " ".join(text.split()), f"the terminal report drops it:\n{text}"


def test_the_failure_line_is_the_rank_lines_else_the_first():
    from deskcheck.gate.redfirst import failure_line

    assert failure_line("x failed:\n  rank 2 diverged: a\n  rank 0 admitted 7\nrank by rank "
                        "(enforcer on):\n  rank 0: input 1") == (
        "rank 2 diverged: a; rank 0 admitted 7"), "the rank-by-rank table leaked in"
    assert failure_line("assert 3 == 2\n where 3 = f()") == "assert 3 == 2"
    assert failure_line("") == ""
