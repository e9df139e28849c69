"""`deskcheck standins` on the command line: exit codes, JSON shape, the 80-column table."""

from __future__ import annotations

import json

import pytest

from deskcheck.cli import main

STANDIN_KEYS = {"built_at", "kind", "form", "through", "model", "status", "holds", "sets",
                "dynamic_sets", "driven", "needed", "drift", "silent_skips", "unexercised",
                "unknown", "context", "reverse", "verdicts", "elapsed_s", "decided", "undecided",
                "signature"}
RECORD_KEYS = {"name", "site", "call_path", "condition", "detail", "why"}


def _run(proj, monkeypatch, capsys, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(proj)
    code = main(["standins", *args])
    return code, capsys.readouterr().out


def test_json_has_stable_keys(proj, monkeypatch, capsys):
    code, out = _run(proj, monkeypatch, capsys, "--json", "tests/test_new_form.py")
    data = json.loads(out)
    assert set(data) == {"ok", "mode", "strict", "elapsed_s", "roots", "files", "counts",
                         "standins", "problems", "run"}, f"top-level keys: {sorted(data)}"
    assert data["counts"] == {"files": 1, "tests": 3, "standins": 3, "drifted": 0,
                              "problems": 0}, f"counts: {data['counts']}"
    first = data["standins"][0]
    assert set(first) == STANDIN_KEYS, f"stand-in keys: {sorted(first)}"
    assert first["built_at"] == "tests/test_new_form.py:8" and first["kind"] == "new", (
        "the first stand-in must be the __new__ instance built at tests/test_new_form.py:8 (kind "
        f"new); got {first['built_at']} kind {first['kind']}"
    )
    assert first["sets"]["pending"] == {"line": 9, "value": "'a'", "text": "'a'"}, first["sets"]
    assert first["driven"] == [{"method": "abort", "how": "obj.method()",
                                "tests": ["tests/test_new_form.py::test_abort_on_a_new_instance"],
                                "sites": ["tests/test_new_form.py:13"]}], first["driven"]
    assert {tuple(sorted(r)) for r in first["unexercised"]} == {tuple(sorted(RECORD_KEYS))}, (
        f"each unexercised record must have the keys {sorted(RECORD_KEYS)}; records: "
        f"{first['unexercised']}"
    )
    assert code == 0 and data["ok"] is True, "all hold: exit 0"


def test_problems_exit_1_and_are_listed_in_json(proj, monkeypatch, capsys):
    code, out = _run(proj, monkeypatch, capsys, "--json")
    data = json.loads(out)
    assert code == 1, "bad inputs in tests/test_bad_inputs.py make the run fall short"
    assert {p["kind"] for p in data["problems"]} == {"too-dynamic", "unresolved-model"}, (
        f"problem kinds: {[p['kind'] for p in data['problems']]}")
    assert all(set(p) == {"kind", "file", "line", "message", "fix"} for p in data["problems"]), (
        "each problem in the JSON must have exactly kind, file, line, message, fix; problems: "
        f"{data['problems']}"
    )


def test_drift_exits_1_and_the_table_fits_80_columns(proj, monkeypatch, capsys):
    engine = proj / "shopcore" / "engine.py"
    engine.write_text(engine.read_text().replace(
        "        self._log(f\"abort {rid}\")\n",
        "        self._log(f\"abort {rid}\")\n        self.abort_count += 1\n"))
    code, out = _run(proj, monkeypatch, capsys, "tests/test_new_form.py")
    assert code == 1, f"drift on the driven path exits 1:\n{out}"
    assert "DRIFT" in out and "abort_count" in out, out
    table = out.split("tests/test_new_form.py:8 Engine")[0]
    too_wide = [line for line in table.splitlines() if len(line) > 80]
    assert table.strip() and not too_wide, f"the table is 80 columns wide: {too_wide}"


def test_usage_errors_exit_2(proj, monkeypatch, capsys):
    monkeypatch.chdir(proj)
    assert main(["standins", "no/such/tests"]) == 2, "a missing test path is a usage error"
    err = capsys.readouterr().err
    assert "no such test path" in err, f"a missing test path must be named 'no such test path'; stderr: {err!r}"
    assert main(["standins", "--root", "nowhere"]) == 2, "a missing --root is a usage error"


@pytest.mark.parametrize("flag", ["--strict"])
def test_strict_fails_on_unexercised(proj, monkeypatch, capsys, flag):
    code, out = _run(proj, monkeypatch, capsys, flag, "tests/test_new_form.py")
    assert code == 1, f"slow_queue is unexercised; with {flag} that fails:\n{out}"
    assert "FAILS" in out, out
