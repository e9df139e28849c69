"""docs/contributing.md: which blocks of the docs run, and how. "Mark a fenced block runnable
with an HTML comment on the line right before its opening fence"; in a `console` block only
the `$ ` lines are commands; every command must exit 0 unless its trailing comment says
otherwise. Pure: the parser the runnable-docs test uses (tests/ux/docblocks.py)."""

from __future__ import annotations

from pathlib import Path

from tests.ux.docblocks import runnable_blocks

MARK = "<!-- runnable -->"


def _blocks(tmp_path: Path, text: str) -> list:
    doc = tmp_path / "doc.md"
    doc.write_text(text)
    return runnable_blocks(doc)


def test_only_a_block_whose_fence_follows_the_mark_directly_runs(tmp_path: Path) -> None:
    blocks = _blocks(tmp_path, f"{MARK}\n```python\nprint(1)\n```\n\n{MARK}\n\n```python\n"
                               "print(2)\n```\n\n```python\nprint(3)\n```\n")
    assert [(b.line, b.text) for b in blocks] == [(2, "print(1)\n")], (
        "only a fence on the line right after <!-- runnable --> is runnable (not one after a "
        f"blank line, not an unmarked one); the parser found {[(b.line, b.text) for b in blocks]}")


def test_a_marked_block_shown_inside_a_longer_fence_is_an_example_not_run(tmp_path: Path) -> None:
    blocks = _blocks(tmp_path, f"````markdown\n{MARK}\n```python\nraise SystemExit(3)\n```\n"
                               f"````\n\n{MARK}\n```python\nprint(1)\n```\n")
    assert [b.text for b in blocks] == ["print(1)\n"], (
        "docs/contributing.md shows the marking inside a ````markdown fence: that shown block "
        f"is text, not a runnable block; the parser found {[(b.line, b.text) for b in blocks]}")


def test_console_blocks_run_only_their_dollar_lines_and_a_comment_sets_the_exit(
        tmp_path: Path) -> None:
    (console,) = _blocks(tmp_path, f"{MARK}\n```console\n$ deskcheck mutants list\nid  title\n"
                                   "$ deskcheck mutants run X -- tests/  # exit 1: survives\n"
                                   "KILLED\n```\n")
    assert console.commands == [("deskcheck mutants list", 0),
                                ("deskcheck mutants run X -- tests/  # exit 1: survives", 1)], (
        "in a console block only the `$ ` lines are commands (the rest is output), each must "
        "exit 0 unless its trailing comment says `exit N`; the parser made "
        f"{console.commands}")


def test_sh_blocks_run_every_command_line_but_comments(tmp_path: Path) -> None:
    (sh,) = _blocks(tmp_path, f"{MARK}\n```sh\n# set up\nmake setup\n\nfalse  # exit 1\n```\n")
    assert sh.commands == [("make setup", 0), ("false  # exit 1", 1)], (
        "an sh block runs command by command (comment lines and blank lines are not commands), "
        f"each expected to exit 0 unless its trailing comment says `exit N`; got {sh.commands}")
