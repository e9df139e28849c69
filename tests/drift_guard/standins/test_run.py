"""`deskcheck standins --run`: the driving tests run once under coverage; verdicts follow the
lines they executed."""

from __future__ import annotations

import json
from pathlib import Path

from deskcheck.cli import main


def test_run_finds_the_same_standins_and_judges_on_executed_lines(proj, monkeypatch, capsys):
    engine = proj / "shopcore" / "engine.py"
    engine.write_text(engine.read_text().replace(
        "        self._log(f\"abort {rid}\")\n",
        "        self._log(f\"abort {rid}\")\n        self.abort_count += 1\n"))
    monkeypatch.chdir(proj)
    assert main(["standins", "--json"]) == 1, (
        "`deskcheck standins --json` must exit 1 on drift and bad inputs"
    )
    static = json.loads(capsys.readouterr().out)
    code = main(["standins", "--json", "--run"])
    ran = json.loads(capsys.readouterr().out)
    assert code == 1, "drift and the bad inputs make --run fall short too"
    assert ran["mode"] == "executed" and ran["run"]["tests"] == len(
        {t for s in static["standins"] for d in s["driven"] for t in d["tests"]}), (
        f"--run runs each driving test once: {ran['run']}")
    assert [s["built_at"] for s in ran["standins"]] == \
        [s["built_at"] for s in static["standins"]], "the same stand-ins, statically and with --run"
    by_site = {s["built_at"]: s for s in ran["standins"]}
    new = by_site["tests/test_new_form.py:8"]
    assert [r["name"] for r in new["drift"]] == ["abort_count"], (
        f"abort_count is read on a line test_abort_on_a_new_instance executed: {new['drift']}")
    assert [r["name"] for r in new["unexercised"]] == ["slow_queue"], (
        f"the SLOW branch never ran: {new['unexercised']}")
    assert all(v["mode"] == "executed" for v in new["verdicts"]), (
        "with --run every verdict must be judged on executed lines (mode executed); verdicts: "
        f"{new['verdicts']}"
    )
    factory = by_site["tests/test_factory_form.py:11"]
    assert "queue" in {r["name"] for r in factory["unexercised"]}, (
        "abort returns early when pending is None: queue is read only on lines that never ran")
    assert ran["run"]["not_run"] == ["tests/test_bad_inputs.py::test_still_judged"], (
        f"a driving test whose file cannot be imported is named as not run: {ran['run']}")
    assert not list(proj.rglob(".coverage*")), "the coverage pass leaves no data files behind"


def test_run_on_the_reference_targets_adhoc_tests(monkeypatch, capsys):
    root = Path(__file__).resolve().parents[3]
    monkeypatch.chdir(root)
    target = "examples/tp_scheduler/tests/test_adhoc_standins.py"
    assert main(["standins", "--json", target]) == 0, (
        f"`deskcheck standins --json {target}` must exit 0: the reference target's ad-hoc "
        "stand-ins hold"
    )
    static = json.loads(capsys.readouterr().out)
    code = main(["standins", "--json", "--run", target])
    ran = json.loads(capsys.readouterr().out)
    assert code == 0, f"the reference target's ad-hoc stand-ins hold with --run: {ran['standins']}"
    assert [s["built_at"] for s in ran["standins"]] == [s["built_at"] for s in static["standins"]], (
        "--run must find the same stand-ins as the static pass, in the same order, yet they differ"
    )
    assert len(ran["standins"]) == 5, f"all five found with --run: {[s['built_at'] for s in ran['standins']]}"
    assert ran["run"]["not_run"] == [] and ran["run"]["failed"] == [], ran["run"]
    modes = {v["mode"] for s in ran["standins"] for v in s["verdicts"]}
    assert modes == {"executed"}, f"every verdict is judged on executed lines: {modes}"
