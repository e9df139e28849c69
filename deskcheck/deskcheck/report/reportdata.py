"""What every renderer reads: one run, its mutants and the source text of the mutated files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.report.locations import mutated_file, read_source
from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store
from deskcheck.report.summary import summarize


@dataclass
class ReportData:
    run: RunRecord
    mutants: list[MutantRecord]
    sources: dict[str, str] = field(default_factory=dict)
    root: Path = field(default_factory=Path.cwd)
    _module_files: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def summary(self) -> dict:
        """The recorded summary when the run finished, else counted from the mutants."""
        return self.run.summary or summarize(self.mutants)

    def relative_path(self, source_file: str) -> str:
        """The path of a mutated file relative to the project root, posix style."""
        path = Path(source_file)
        if path.is_absolute():
            try:
                path = path.resolve().relative_to(self.root.resolve())
            except ValueError:
                return path.as_posix()
        return path.as_posix()

    def mutated_file(self, mutant: MutantRecord) -> str:
        """The file the mutant changes: from its diff, else a Python ``source_file``, else the
        target's module found under the project root (a STALE mutant has no diff)."""
        return mutated_file(mutant) or self._module_file(mutant.target.partition(":")[0])

    def _module_file(self, module: str) -> str:
        if not module:
            return ""
        if module not in self._module_files:
            self._module_files[module] = _find_module_file(self.root, module)
        return self._module_files[module]

    def source_text(self, source_file: str) -> str | None:
        """The file as it was during the run (snapshot), else as it is on disk, else None."""
        if not source_file:
            return None
        if source_file in self.sources:
            return self.sources[source_file]
        return read_source(self.root, source_file)


def _find_module_file(root: Path, module: str) -> str:
    """``a.b`` -> ``a/b.py`` (or ``a/b/__init__.py``) under ``root`` or one or two folders
    below it (``src/``, ``examples/<name>/``), relative to ``root``; '' when not found."""
    relative = Path(*module.split("."))
    for pattern in ("", "*/", "*/*/"):
        for suffix in (relative.with_suffix(".py"), relative / "__init__.py"):
            for found in sorted(root.glob(pattern + suffix.as_posix())):
                if ".venv" not in found.parts and "site-packages" not in found.parts:
                    return found.relative_to(root).as_posix()
    return ""


def load_report(store: Store, run_id: int) -> ReportData:
    run = store.run(run_id)
    return ReportData(run=run, mutants=store.mutants(run_id), sources=store.sources(run_id),
                      root=store.root)
