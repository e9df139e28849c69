"""In-memory injection into closures built before the tests ran (issue 30, case 4)."""

from __future__ import annotations

import importlib
import sys

import pytest

from deskcheck.mutants.injection import inject
from deskcheck.mutants.mutated import MutatedFunction, NotInjectable
from deskcheck.mutants.mutation import locate, scope_path_of
from deskcheck.mutants.target import resolve

MODULE = '''\
def scaled_by(factor):
    def scale(x):
        return x * factor
    return scale


class Box:
    triple = staticmethod(scaled_by(3))
'''


@pytest.fixture
def box_module(tmp_path, monkeypatch):
    name = f"closure_box_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module
    sys.modules.pop(name, None)


def _mutant(module, old: str, new: str) -> MutatedFunction:
    live = resolve(f"{module.__name__}:scaled_by")
    code = live.function.__code__
    source = locate(code.co_filename, scope_path_of(code.co_qualname), code.co_firstlineno)
    assert old in source.text, (
        f"the mutant's old text {old!r} must occur in the located source of scaled_by; it is "
        f"{source.text!r}"
    )
    return MutatedFunction("m", f"{module.__name__}:scaled_by", source.file, source.start_line,
                           source.end_line, source.indent, source.text,
                           source.text.replace(old, new), source.file_sha)


def test_a_closure_built_in_a_class_body_runs_the_mutant(box_module) -> None:
    injection = inject(_mutant(box_module, "x * factor", "x + factor"))
    try:
        assert box_module.Box.triple(5) == 8, (
            "the closure the class body built before the mutant still runs the old code")
    finally:
        injection.restore()
    assert box_module.Box.triple(5) == 15, "restore() left the closure mutated"


def test_a_mutant_that_changes_a_live_closures_free_variables_is_not_injectable(
        box_module) -> None:
    with pytest.raises(NotInjectable) as caught:
        inject(_mutant(box_module, "x * factor", "x * 2"))
    assert "free variables ('factor',) -> ()" in str(caught.value), (
        f"NOT_INJECTABLE must say why: {caught.value}")
    assert box_module.Box.triple(5) == 15, "a refused injection left something mutated"
