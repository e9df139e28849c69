"""deskcheck.screen: the one width rule and the id-aware layout every renderer uses."""

from __future__ import annotations

import pytest

from deskcheck import screen
from tests.ux.tokens import broken_ids

NODE = "tests/test_limits.py::TestAdmission::test_draining_rank_admits_nothing[world=3-nccl]"


def test_the_width_is_columns_else_80_off_a_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "132")
    assert screen.width() == 132, "COLUMNS is not honoured"
    monkeypatch.delenv("COLUMNS")
    assert screen.width() == 80, "off a terminal (pytest captures stdout) the width is not 80"



class _Terminal:
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_width_is_the_terminals_unless_columns_is_set(monkeypatch):
    import os
    import shutil

    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((101, 40)))
    monkeypatch.delenv("COLUMNS", raising=False)
    got = screen.width(_Terminal())  # type: ignore[arg-type]
    assert got == 101, (
        f"README: output fits the width of the terminal (101 columns here); it used {got}")
    monkeypatch.setenv("COLUMNS", "90")
    got = screen.width(_Terminal())  # type: ignore[arg-type]
    assert got == 90, f"COLUMNS=90 must win over the terminal's 101 columns; it used {got}"
    monkeypatch.setenv("COLUMNS", "0")
    got = screen.width(_Terminal())  # type: ignore[arg-type]
    assert got == 101, (
        f"COLUMNS=0 is no width: the terminal's 101 columns must be used; it used {got}")

@pytest.mark.parametrize("room", [20, 37, 60])
def test_an_id_breaks_only_after_a_separator_and_joins_back(room: int):
    lines = screen.id_lines(NODE, room)
    assert "".join(line.strip() for line in lines) == NODE, f"the id changed: {lines}"
    assert all(len(line) <= room for line in lines), f"a line is wider than {room}: {lines}"
    assert not broken_ids("\n".join(lines), [NODE], column=None), lines
    assert lines[-1].strip().endswith("[world=3-nccl]"), "the parametrization was split"


def test_wrap_keeps_prose_words_and_ids_whole():
    text = f"  FAIL GREEN_ON_BASE {NODE}  base: passed; branch: passed and more words here"
    lines = screen.wrap(text, 60)
    assert all(len(line) <= 60 for line in lines), lines
    assert "".join("".join(lines).split()) == "".join(text.split()), f"text was lost: {lines}"
    assert not broken_ids("\n".join(lines), [NODE, "GREEN_ON_BASE"], column=None), lines
    words = {word for line in lines for word in line.split()}
    for word in "base: passed; branch: passed and more words here".split():
        assert word in words, f"the word {word!r} was broken: {lines}"


def test_fit_table_drops_the_columns_that_matter_least_and_says_which():
    from io import StringIO

    from rich.console import Console

    columns = [screen.Column("run", keep=True, cells=["1"]),
               screen.Column("node", keep=True, ids=True, cells=[NODE]),
               screen.Column("branch", drop_order=1, cells=["feature/a-very-long-branch-name"]),
               screen.Column("tier", drop_order=0, cells=["DESK"])]
    table, dropped = screen.fit_table(columns, 60)
    out = StringIO()
    Console(file=out, width=60, color_system=None).print(table)
    text = out.getvalue()
    assert dropped == ["tier", "branch"], f"dropped {dropped}, expected the droppable ones"
    assert all(len(line) <= 60 for line in text.splitlines()), text
    assert not broken_ids(text, [NODE], column=1), text


def test_the_id_check_itself_sees_a_folded_id():
    """Can-fail arm of broken_ids: an id folded mid-word, and one cut with an ellipsis."""
    folded = "│ tests/test_limits.py::test_draining_ran │\n│ k_admits_nothing │"
    assert broken_ids(folded, ["tests/test_limits.py::test_draining_rank_admits_nothing"]), (
        "broken_ids missed an id folded mid-word across two table lines"
    )
    cut = "│ tests/test_limits.py::test_draining_ra… │"
    assert broken_ids(cut, ["tests/test_limits.py::test_draining_rank_admits_nothing"]), (
        "broken_ids missed an id cut with an ellipsis"
    )
