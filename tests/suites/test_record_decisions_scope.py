"""docs/suites.md, your own multi-rank tests: "`record_decisions(folder, rank, include=,
functions=)` records the project code of the loaded modules and of your module; `include`
narrows it (path fragments or a predicate on file names), `functions` names more (built by
`exec`, not in any module)." Read back through ``split_in`` only: a decision that was not
recorded is in no split."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deskcheck.suites import record_decisions, split_in

DECIDE = "def decide(free):\n    if free >= 2:\n        return 1\n    return 0\n"


def _two_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    tag = "".join(c for c in tmp_path.name if c.isalnum())
    for name in ("alpha", "beta"):
        (tmp_path / f"scope_{name}_{tag}.py").write_text(DECIDE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return (importlib.import_module(f"scope_alpha_{tag}"),
            importlib.import_module(f"scope_beta_{tag}"))


def _split(folder: Path, include: Any, deciders: list[Callable[[int], int]],
           functions: tuple[Callable[..., Any], ...] = ()) -> str:
    for rank, free in enumerate([3, 1]):
        with record_decisions(folder, rank, include=include, functions=functions):
            for decide in deciders:
                decide(free)
    split = split_in(folder, 2)
    return split.render() if split else "no split"


@pytest.mark.parametrize("kind", ["fragment", "predicate"])
def test_include_narrows_the_recording_to_the_files_it_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    alpha, beta = _two_modules(tmp_path, monkeypatch)
    name = Path(alpha.__file__).name
    include = [name] if kind == "fragment" else (lambda file: file.endswith(name))
    folder = tmp_path / "log"
    folder.mkdir()
    text = _split(folder, include, [alpha.decide, beta.decide])
    assert f"{name}:2 in decide: if free >= 2" in text and "scope_beta" not in text, (
        f"include as a {kind} naming {name} must record that module's decision and not the "
        f"other module's (scope_beta_*); the split read back is:\n{text}")


def test_functions_are_recorded_beyond_what_include_names(tmp_path: Path) -> None:
    source = tmp_path / "built_by_exec.py"  # its source on disk, in no module
    source.write_text(DECIDE)
    namespace: dict[str, Any] = {}
    exec(compile(DECIDE, str(source), "exec"), namespace)
    folder = tmp_path / "log"
    folder.mkdir()
    text = _split(folder, ["no-file-matches-this"], [namespace["decide"]],
                  functions=(namespace["decide"],))
    assert "in decide: if free >= 2" in text, (
        "a function named in functions= (built by exec, in no module) is recorded even where "
        f"include names no file of it; the split read back is:\n{text}")
    bare = tmp_path / "bare"
    bare.mkdir()
    assert _split(bare, ["no-file-matches-this"], [namespace["decide"]]) == "no split", (
        "without functions= the same exec-built function, in no included file, must not be "
        "recorded")


def test_a_named_function_whose_source_cannot_be_read_is_an_error_not_a_silent_skip(
        tmp_path: Path) -> None:
    """`functions=` names functions to record; one built by `exec` from a string with no file
    behind it cannot be instrumented (its source is nowhere): record_decisions says so, naming
    the function and the fix, instead of recording nothing."""
    namespace: dict[str, Any] = {}
    exec(compile(DECIDE, "<generated decide>", "exec"), namespace)
    folder = tmp_path / "log"
    folder.mkdir()
    with pytest.raises(ValueError) as info:
        with record_decisions(folder, 0, functions=(namespace["decide"],)):
            namespace["decide"](3)
    text = str(info.value)
    assert "decide" in text and "<generated decide>" in text and "source" in text, (
        "a functions= entry whose source cannot be read must be named with where it came from "
        f"and why it cannot be recorded; the error said: {text}")
