"""What both gates establish before running anything: repo, base commit, layout, policy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskcheck.config import load_config
from deskcheck.errors import GitError
from deskcheck.gate.git import GitRepo
from deskcheck.gate.layout import TestLayout, load_layout

DIRTY_POLICY = ("the branch side runs the working tree as is: uncommitted changes and untracked "
                "(not ignored) files are part of the branch; pass --require-clean to refuse a "
                "dirty tree instead")


@dataclass(frozen=True)
class GateContext:
    """The repository, the two sides' commits, and where the pytest project lives."""

    repo: GitRepo
    ref: str
    base: str
    head: str
    dirty_paths: list[str]
    layout: TestLayout
    project_offset: str  # the pytest project (pyproject folder) relative to the git root

    @property
    def project_root(self) -> Path:
        return self.repo.root / self.project_offset if self.project_offset else self.repo.root

    def project_root_in(self, tree: Path) -> Path:
        return tree / self.project_offset if self.project_offset else tree

    def to_rootdir(self, git_path: str) -> str | None:
        """A git-root-relative path (or node id) relative to the pytest rootdir; None: outside."""
        if not self.project_offset:
            return git_path
        prefix = self.project_offset + "/"
        return git_path[len(prefix):] if git_path.startswith(prefix) else None

    def side_modules(self, tree: Path, own: dict[str, str],
                     other: dict[str, str]) -> dict[str, str | None]:
        """Production names -> absolute import roots in ``tree``; the other side's extra
        names map to None so importing them fails instead of reaching the other tree."""
        modules: dict[str, str | None] = {name: None for name in other}
        for name, root in own.items():
            modules[name] = str((tree / root).resolve()) if root else str(tree.resolve())
        return modules

    def describe(self) -> dict[str, Any]:
        return {
            "ref": self.ref, "merge_base": self.base, "head": self.head,
            "repository": str(self.repo.root),
            "dirty": bool(self.dirty_paths), "dirty_paths": self.dirty_paths[:50],
            "dirty_policy": DIRTY_POLICY,
        }


def prepare(ref: str, *, cwd: Path | None = None, require_clean: bool = False) -> GateContext:
    """Check the git preconditions (each error names its fix) and load the layout."""
    repo = GitRepo.discover(cwd)
    base = repo.merge_base(ref)
    head = repo.head()
    dirty = repo.dirty_paths()
    if dirty and require_clean:
        shown = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
        raise GitError(f"the working tree is dirty ({len(dirty)} paths: {shown})",
                       location=str(repo.root),
                       fix="commit or stash the changes, or drop --require-clean to gate the "
                           "working tree as is")
    config = load_config(cwd or Path.cwd())
    config_root = config.root.resolve()
    if config.pyproject is None or not config_root.is_relative_to(repo.root):
        config_root = repo.root
    offset = config_root.relative_to(repo.root).as_posix()
    offset = "" if offset == "." else offset
    if config_root != config.root.resolve():
        config = load_config(repo.root)
    return GateContext(repo=repo, ref=ref, base=base, head=head, dirty_paths=dirty,
                       layout=load_layout(config, repo.root), project_offset=offset)
