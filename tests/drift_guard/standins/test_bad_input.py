"""Bad input is named with file:line and why, in one pass; the rest is still judged."""

from __future__ import annotations

from tests.drift_guard.standins.helpers import discover_in, standin


def _problems(found) -> dict[str, str]:
    return {p.where: f"{p.kind}: {p.message}" for p in found.problems}


def test_syntax_error_unresolvable_model_and_dynamic_factory_in_one_pass(proj):
    (proj / "tests" / "test_bad_syntax.py").write_text(
        "from shopcore.engine import Engine\n\n\ndef test_broken(:\n    Engine.__new__(Engine)\n")
    found = discover_in(proj)
    problems = _problems(found)
    assert problems.get("tests/test_bad_syntax.py:4", "").startswith("syntax-error"), (
        f"the syntax error is named at its line: {problems}")
    assert problems.get("tests/test_bad_inputs.py:16", "").startswith("unresolved-model"), (
        f"Vanished.__new__(Vanished) from a module that does not exist: {problems}")
    assert "shopcore.gone" in problems["tests/test_bad_inputs.py:16"], (
        "the message names the module it looked for")
    assert problems.get("tests/test_bad_inputs.py:12", "").startswith("too-dynamic"), (
        f"cls.__new__(cls) in a factory taking the class as a parameter: {problems}")
    assert problems.get("tests/test_bad_inputs.py:27", "").startswith("too-dynamic"), (
        f"obj from FACTORIES['engine']() passed as self to Engine.drain: {problems}")
    assert "FACTORIES['engine']()" in problems["tests/test_bad_inputs.py:27"], (
        "the message shows the call it could not follow")
    assert len(problems) == 4, f"exactly the four bad inputs, got {problems}"
    assert not found.holds, "problems make the run fall short"
    # the rest is still judged, in the same pass
    still = standin(found, "tests/test_bad_inputs.py:31")
    assert still.model == "shopcore.engine:Engine" and still.holds, (
        "a stand-in in a file with bad inputs must still be judged: model shopcore.engine:Engine, "
        f"holding; got {still.model}, holds {still.holds}"
    )
    assert len(found.reports) >= 10, f"the other files' stand-ins are judged: {len(found.reports)}"


def test_every_problem_carries_a_fix(proj):
    found = discover_in(proj)
    assert found.problems, "the fixture project has bad inputs"
    for problem in found.problems:
        assert problem.fix and problem.message, f"{problem.where} lacks a message or a fix"
        assert problem.render().startswith(f"{problem.where}: "), problem.render()


def test_unknown_method_driven_through_the_class_is_named(proj):
    (proj / "tests" / "test_renamed.py").write_text(
        "from types import SimpleNamespace\n\nfrom shopcore.engine import Engine\n\n\n"
        "def test_old_name():\n    Engine.flush(SimpleNamespace(queue=[]))\n")
    problems = _problems(discover_in(proj, "tests/test_renamed.py"))
    assert "shopcore.engine:Engine has no method 'flush'" in problems.get(
        "tests/test_renamed.py:7", ""), f"a driven method that no longer exists: {problems}"
