"""A throwaway project for the real sweep: functions, owners, a catalog, a git history."""

from __future__ import annotations

import subprocess
from pathlib import Path

COUNT = 8


def write_sweep_project(root: Path, pause: float) -> None:
    """COUNT one-line functions, one owner test each (sleeping ``pause`` s), a catalog of
    one `replace` mutant per function, all committed in a fresh git repository."""
    (root / "kpkg").mkdir()
    (root / "kpkg" / "__init__.py").write_text("")
    (root / "kpkg" / "mod.py").write_text("".join(
        f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(COUNT)))
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text("import time\n\n" + "".join(
        f"from kpkg.mod import f{i}\n\n\ndef test_f{i}():\n    time.sleep({pause})\n"
        f"    assert f{i}(1) == {1 + i}\n\n\n" for i in range(COUNT)))
    (root / "mutants.toml").write_text('[sweep]\ntests = ["tests"]\n\n' + "".join(
        f'[[mutant]]\nid = "k.M{i}"\ntitle = "offset {i}"\ntarget = "kpkg.mod:f{i}"\n'
        f'operator = "replace"\nold = "x + {i}"\nnew = "x - {i} - 1"\n'
        f'owners = ["tests/test_mod.py::test_f{i}"]\n\n' for i in range(COUNT)))
    (root / "pyproject.toml").write_text('[tool.deskcheck]\ncatalog = "mutants.toml"\n')
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "b"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
