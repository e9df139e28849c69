"""Every option ``deskcheck redfirst`` / ``regress`` hands to its gate reaches it: each one
ignored fails here, by name, without a worktree (the gates are replaced by recorders)."""

from __future__ import annotations

import pytest

import deskcheck.gate.redfirst as redfirst
import deskcheck.gate.regress as regress
from deskcheck.cli import main


class _Stop(Exception):
    """Raised by a stand-in gate once it has its arguments."""


def _recorder(seen: list[dict]):
    def record(base, paths, **options):
        options.pop("progress", None)
        seen.append({"base": base, "paths": list(paths), **options})
        raise _Stop
    return record


def _wrong(got: dict, expected: dict) -> dict:
    return {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}


def test_redfirst_hands_every_option_to_the_gate(monkeypatch):
    seen: list[dict] = []
    monkeypatch.setattr(redfirst, "run_redfirst", _recorder(seen))
    for argv in (["redfirst", "--base", "origin/dev", "tests/unit", "tests/e2e", "--strict",
                  "--require-clean", "--parallel", "--require-tests", "--no-store"],
                 ["redfirst", "--base", "main"]):
        with pytest.raises(_Stop):
            main(argv)
    told, plain = seen
    wrong = _wrong(told, {"base": "origin/dev", "paths": ["tests/unit", "tests/e2e"],
                          "strict": True, "require_clean": True, "parallel": True,
                          "require_tests": True})
    wrong |= {f"default {k}": v for k, v in _wrong(plain, {
        "paths": [], "strict": False, "require_clean": False, "parallel": False,
        "require_tests": False}).items()}
    assert not wrong, f"options of redfirst not handed to the gate (got, passed): {wrong}"


def test_regress_hands_every_option_to_the_gate(monkeypatch):
    seen: list[dict] = []
    monkeypatch.setattr(regress, "run_regress", _recorder(seen))
    for argv in (["regress", "--base", "origin/dev", "tests/unit", "-n", "3", "--strict",
                  "--require-clean", "--parallel", "--no-rerun"],
                 ["regress", "--base", "main"]):
        with pytest.raises(_Stop):
            main(argv)
    told, plain = seen
    wrong = _wrong(told, {"base": "origin/dev", "paths": ["tests/unit"], "workers": 3,
                          "strict": True, "require_clean": True, "parallel": True,
                          "rerun": False})
    wrong |= {f"default {k}": v for k, v in _wrong(plain, {
        "paths": [], "workers": None, "strict": False, "require_clean": False,
        "parallel": False, "rerun": True}).items()}
    assert not wrong, f"options of regress not handed to the gate (got, passed): {wrong}"


@pytest.mark.parametrize("command", ["redfirst", "regress"])
def test_json_and_markdown_are_written_where_they_are_told(command, tmp_path):
    import argparse

    from deskcheck.gate.commands import _common, _write_outputs

    parser = argparse.ArgumentParser()
    _common(parser, command)
    args = parser.parse_args(["--base", "main", "--json", str(tmp_path / "a" / "gate.json"),
                              "--markdown", str(tmp_path / "b" / "gate.md")])
    _write_outputs(args, {"command": command, "holds": True}, f"## {command} holds\n")
    json_file, md_file = tmp_path / "a" / "gate.json", tmp_path / "b" / "gate.md"
    written = (json_file.read_text().count('"holds": true') if json_file.exists() else None,
               md_file.read_text() if md_file.exists() else None)
    assert written == (1, f"## {command} holds\n"), (
        f"expected {command} --json and --markdown written to the paths given (folders "
        f"made), got {written}")
