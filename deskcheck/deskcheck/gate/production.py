"""Which production files a branch changes (the working tree against the base commit)."""

from __future__ import annotations

from deskcheck.gate.git import GitRepo
from deskcheck.gate.layout import TestLayout


def changed_production_files(repo: GitRepo, base: str, layout: TestLayout) -> list[str]:
    """Production files (the layout's rules: ``.py``, not a test file, under the source
    paths) added, removed or changed between ``base`` and the working tree."""
    before = {p: sha for p, sha in repo.tree_blobs(base).items()
              if layout.is_production_file(p)}
    now = repo.working_blob_ids([p for p in repo.working_files()
                                 if layout.is_production_file(p)])
    return sorted(p for p in before.keys() | now.keys() if before.get(p) != now.get(p))
