"""Stand-ins for the gates' impure inputs, shared by the pure gate tests: ``FakeRepo`` answers
what ``changed_tests`` asks git, ``selected`` runs the selection on it, and ``side`` builds the
``SideResult`` of one pytest side from its outcomes."""

from __future__ import annotations

import textwrap
from pathlib import Path

from deskcheck.gate.layout import TestLayout
from deskcheck.gate.runner import SideResult
from deskcheck.gate.selection import changed_tests


class FakeRepo:
    """What ``changed_tests`` asks git: the base tree's blobs, the working files, their blob
    ids, and a file's text at a commit."""

    def __init__(self, root: Path, base: dict[str, str], work: dict[str, str]):
        self.root, self.base, self.work = root, base, work
        for path, text in work.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(textwrap.dedent(text), encoding="utf-8")

    def tree_blobs(self, commit: str) -> dict[str, str]:
        assert commit == "base", f"the base tree was read at {commit!r}, not the base commit"
        return {p: f"blob:{hash(textwrap.dedent(t))}" for p, t in self.base.items()}

    def working_files(self) -> list[str]:
        return sorted(self.work)

    def working_blob_ids(self, paths: list[str]) -> dict[str, str]:
        return {p: f"blob:{hash(textwrap.dedent(self.work[p]))}" for p in paths}

    def show(self, commit: str, path: str) -> str:
        assert commit == "base", f"{path} was read at {commit!r}, not the base commit"
        return textwrap.dedent(self.base[path])


def selected(tmp_path: Path, base: dict[str, str], work: dict[str, str],
             limit_to: list[str] | None = None):
    change = changed_tests(FakeRepo(tmp_path, base, work), "base", TestLayout(), limit_to)
    return change, {s.id: s.change for s in change.selected}



def side(name: str, outcomes: dict[str, str], records: dict[str, dict] | None = None,
         collection_errors: tuple[tuple[str, str], ...] = ()) -> SideResult:
    tests = {k: {"outcome": v, **(records or {}).get(k, {})} for k, v in outcomes.items()}
    return SideResult(name, 1, tests, [{"nodeid": n, "message": m}
                                       for n, m in collection_errors], None)

