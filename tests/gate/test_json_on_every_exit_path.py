"""docs/gate.md: ``--json PATH`` is written on every exit path: a gate that could not run
writes ``holds: false``, its ``exit_code`` (2) and ``error`` (``message``, ``location``,
``fix``); an interrupted one exits 128 + the signal (130 for Ctrl-C) and says so there too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.gate import redfirst as redfirst_module
from deskcheck.gate import regress as regress_module


@pytest.mark.parametrize("command", ["redfirst", "regress"])
def test_a_gate_that_could_not_run_still_writes_its_json(tmp_path: Path, monkeypatch, capsys,
                                                         command: str) -> None:
    monkeypatch.chdir(tmp_path)  # not a git repository
    out = tmp_path / "gate" / f"{command}.json"
    code = main([command, "--base", "main", "--json", str(out), "--no-store"])
    capsys.readouterr()
    assert code == 2 and out.is_file(), (
        f"docs/gate.md: --json is written on every exit path; `{command}` outside a repository "
        f"exited {code} and wrote the JSON: {out.is_file()}")
    data = json.loads(out.read_text())
    error = data.get("error") or {}
    got = (data.get("command"), data.get("holds"), data.get("exit_code"), sorted(error))
    assert got == (command, False, 2, ["fix", "location", "message"]), (
        f"a gate that could not run writes command, holds: false, exit_code 2 and error "
        f"(message, location, fix); the JSON has {got}")
    assert "not a git repository" in error["message"] and error["fix"], (
        f"the JSON's error must say what was wrong and its fix; it is {error}")


@pytest.mark.parametrize(("command", "module", "function"), [
    ("redfirst", redfirst_module, "run_redfirst"), ("regress", regress_module, "run_regress")])
def test_an_interrupted_gate_writes_exit_code_130_in_its_json(tmp_path: Path, monkeypatch,
                                                              capsys, command, module,
                                                              function) -> None:
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, function, interrupted)
    out = tmp_path / f"{command}.json"
    code = main([command, "--base", "main", "--json", str(out), "--no-store"])
    capsys.readouterr()
    assert code == 130, (
        f"docs/gate.md: `{command}` interrupted by Ctrl-C must exit 130; it exited {code}")
    data = json.loads(out.read_text()) if out.is_file() else {}
    got = (data.get("holds"), data.get("exit_code"), (data.get("error") or {}).get("message"))
    assert got == (False, 130, "interrupted"), (
        f"docs/gate.md: exit 128 + the signal when interrupted (130 Ctrl-C), written in the "
        f"--json on every exit path; `{command}` interrupted wrote {got}")
