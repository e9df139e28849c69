"""In a scratch copy: a new read on a driven path is drift (named with file:line, call path and
the construction site); on a branch no test enters it is unexercised; a getattr default read on
the driven path is a silent skip."""

from __future__ import annotations

from tests.drift_guard.standins.helpers import discover_in, names, standin

ENGINE = "shopcore/engine.py"


def _edit(proj, old: str, new: str) -> None:
    path = proj / ENGINE
    text = path.read_text()
    assert old in text, f"fixture drifted: {old!r} not in {ENGINE}"
    path.write_text(text.replace(old, new, 1))


def test_a_new_read_on_the_driven_path_is_drift_with_site_path_and_construction(proj):
    _edit(proj, "        self._log(f\"abort {rid}\")\n",
          "        self._log(f\"abort {rid}\")\n        self.abort_count += 1\n")
    found = discover_in(proj, "tests/test_new_form.py")
    report = standin(found, "tests/test_new_form.py:8")
    drift = report.records("drift")
    assert [r.name for r in drift] == ["abort_count"], (
        f"abort_count is read (+=) on the path test_abort_on_a_new_instance drives: {drift}")
    assert drift[0].site.endswith(f"{ENGINE}:22"), f"named at its production line: {drift[0].site}"
    assert drift[0].call_path == ("Engine.abort",), f"call path from the driven method: {drift[0].call_path}"
    assert not report.holds and not found.holds, "drift on the driven path fails"
    message = report.judgments[0].verdict.render()
    assert "tests/test_new_form.py:8" in message, f"the construction site is named: {message}"


def test_a_new_read_behind_a_branch_the_test_does_not_enter_is_unexercised(proj):
    _edit(proj, "            self.slow_queue.remove(rid)\n",
          "            self.slow_queue.remove(rid)\n            self.slow_hits += 1\n")
    report = standin(discover_in(proj, "tests/test_new_form.py"), "tests/test_new_form.py:8")
    assert "slow_hits" in names(report, "unexercised"), (
        f"slow_hits is read only under mode == Mode.SLOW: {names(report, 'unexercised')}")
    assert report.holds, "unexercised is information, not failure"
    strict = standin(discover_in(proj, "tests/test_new_form.py", strict=True),
                     "tests/test_new_form.py:8")
    assert not strict.holds, "--strict makes unexercised fail"


def test_a_getattr_default_read_on_the_driven_path_is_a_silent_skip(proj):
    # production's own __init__ sets audit (else the masked read is as faithful as production)
    _edit(proj, '        raise RuntimeError("needs a real backend")\n',
          '        self.audit = []\n        raise RuntimeError("needs a real backend")\n')
    _edit(proj, "        self._log(f\"abort {rid}\")\n",
          "        self._log(f\"abort {rid}\")\n"
          "        if getattr(self, \"audit\", None) is not None:\n"
          "            self.audit.append(rid)\n")
    report = standin(discover_in(proj, "tests/test_new_form.py"), "tests/test_new_form.py:8")
    assert "audit" in names(report, "silent_skips"), (
        f"getattr(self, 'audit', None) on the driven path: silent_skips="
        f"{names(report, 'silent_skips')} drift={names(report, 'drift')}")
    assert not report.holds, "a silent skip on the driven path fails loudly"


def test_a_spec_mock_missing_a_method_it_needs_is_a_silent_skip(proj):
    _edit(proj, "    def budget(self):\n        return self.limit - self.used\n",
          "    def budget(self):\n        return self.limit - self.used\n\n"
          "    def refill(self):\n        return self.drain() + self.budget()\n")
    (proj / "tests" / "test_refill.py").write_text(
        "from unittest.mock import MagicMock\n\nfrom shopcore.engine import Engine\n\n\n"
        "def test_refill():\n    engine = MagicMock(spec=Engine)\n    engine.limit = 3\n"
        "    engine.used = 1\n    Engine.refill(engine)\n")
    report = standin(discover_in(proj, "tests/test_refill.py"), "tests/test_refill.py:7")
    assert "drain" in names(report, "silent_skips"), (
        f"drain is served by an auto-created MagicMock child: {names(report, 'silent_skips')}")


def test_a_specless_mock_passed_as_self_serves_every_name_silently(proj):
    (proj / "tests" / "test_specless.py").write_text(
        "from unittest.mock import MagicMock\n\nfrom shopcore.engine import Engine\n\n\n"
        "def test_abort_on_a_bare_mock():\n    engine = MagicMock()\n    engine.pending = 'a'\n"
        "    Engine.abort(engine, 'x')\n")
    report = standin(discover_in(proj, "tests/test_specless.py"), "tests/test_specless.py:7")
    assert (report.construction.kind, report.model) == ("mock", "shopcore.engine:Engine"), (
        f"a bare MagicMock passed as self to Engine.abort stands in for Engine: "
        f"{report.construction.kind} {report.model}")
    assert {"mode", "queue"} <= names(report, "silent_skips"), (
        f"every name it was not given is an auto-created child: silent skips "
        f"{names(report, 'silent_skips')}, drift {names(report, 'drift')}")
    assert not report.holds, (
        "names a bare MagicMock serves only with auto-created children are silent skips that fail "
        f"the stand-in; it holds: {report.records('silent_skips')}"
    )
