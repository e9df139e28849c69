"""docs/drift.md: "`deskcheck standins` reads every test module under the paths (`test_*.py`,
`*_test.py`...)": both pytest naming styles are read, and a module named neither way is not."""

from __future__ import annotations

from pathlib import Path

from deskcheck.drift_guard.standins.finder import test_files as find_test_files


def test_both_test_module_name_styles_are_read(tmp_path: Path):
    for name in ("test_prefix.py", "engine_test.py", "helpers.py"):
        (tmp_path / "tests" / "sub").mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests" / "sub" / name).write_text("def test_x():\n    pass\n")
    found = {p.name for p in find_test_files([tmp_path / "tests"])}
    assert "engine_test.py" in found, (
        f"a test module named `*_test.py` (engine_test.py) was not read by deskcheck standins; "
        f"the docs promise both `test_*.py` and `*_test.py`; read: {sorted(found)}")
    assert "test_prefix.py" in found, f"a `test_*.py` module was not read; read: {sorted(found)}"
    assert "helpers.py" not in found, f"helpers.py is not a test module; read: {sorted(found)}"
