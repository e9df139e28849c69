"""Issue 30, case 9: generation splices each mutant into the file's text instead of rewriting
the whole module per mutant; what it produces must be exactly what the whole-file way gives
(the engine cuts the function from the mutated file and finds the generated text unchanged)."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

from deskcheck.mutants.auto.changes import ChangedFile, ChangeSet
from deskcheck.mutants.auto.generate import generate_auto_mutants
from deskcheck.mutants.source import locate_in_text

BENCH = Path(__file__).resolve().parents[2] / "bench" / "auto_generation.py"
TABS = "class Tabbed:\n\tdef clamp(self, x, hi):\n\t\t\"\"\"Tabs.\n\n\t\tIndented.\n\t\t\"\"\"\n" \
       "\t\treturn 'low' if x not in (1, 2) and x < hi else 'high'\n"
CRLF = TABS.replace("\t", "    ").replace("\n", "\r\n")


def _bench_source() -> str:
    spec = importlib.util.spec_from_file_location("bench_auto_generation", BENCH)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None, f"the bench script {BENCH} must be loadable as a module"
    spec.loader.exec_module(module)
    return "import functools\n" + "".join(module.UNIT.format(n=n) for n in range(3))


@pytest.mark.parametrize("name", ["bench", "tabs", "crlf"])
def test_every_mutant_is_what_the_whole_file_gives(tmp_path, name) -> None:
    text = {"bench": _bench_source, "tabs": lambda: TABS, "crlf": lambda: CRLF}[name]()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_bytes(text.encode())
    lines = text.replace("\r\n", "\n").splitlines(keepends=True)
    changed = frozenset(range(1, len(lines) + 1))
    generation = generate_auto_mutants(ChangeSet(root=tmp_path, base="b", files=[
        ChangedFile("pkg/m.py", changed)]), per_line=3, max_mutants=-1)
    assert generation.mutants, "no mutant generated"
    for mutant in generation.mutants:
        scope = tuple(mutant.function.split("."))
        original = locate_in_text(text, "pkg/m.py", scope, mutant.function_line)
        assert mutant.function_source == original.text, f"{mutant.id}: original cut differs"
        indented = "".join(original.indent + ln if ln.strip() else ln
                           for ln in mutant.mutated_function_source.splitlines(keepends=True))
        mutated_file = "".join(lines[:original.start_line - 1]) + indented + "".join(
            lines[original.end_line:])
        again = locate_in_text(mutated_file, "pkg/m.py", scope, mutant.function_line)
        assert again.text == mutant.mutated_function_source, (
            f"{mutant.id}: the mutated function is not what the engine cuts from the mutated "
            "file")
        whole = "".join(difflib.unified_diff(lines, mutated_file.splitlines(keepends=True),
                                             fromfile="a/pkg/m.py", tofile="b/pkg/m.py", n=2))
        assert mutant.diff.replace("\r\n", "\n") == whole, (
            f"{mutant.id}: the windowed diff differs from the whole-file diff:\n{mutant.diff}\n"
            f"---\n{whole}")
