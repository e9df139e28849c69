"""Fingerprints at scale (issue 13): a mutant whose owners are the whole test universe
(``-k``/``-m``, kills markers) shares the universe's file list and digests instead of
walking the universe again, and gets the very fingerprint it got before."""

from __future__ import annotations

from pathlib import Path

from deskcheck.mutants import reuse
from deskcheck.mutants.catalog import load_catalog
from deskcheck.mutants.reuse import fingerprint

CATALOG = '''[sweep]
tests = ["tests"]

[[mutant]]
id = "wide"
title = "owned by an expression"
target = "pkg.mod:f"
operator = "replace"
old = "return 1"
new = "return 2"
owners = ["-k test_f"]

[[mutant]]
id = "narrow"
title = "owned by a node id"
target = "pkg.mod:f"
operator = "replace"
old = "return 1"
new = "return 2"
owners = ["tests/test_a.py::test_f"]
'''


def test_a_wide_mutant_shares_the_universe_and_keeps_its_fingerprint(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    (tmp_path / "tests" / "conftest.py").write_text("", encoding="utf-8")
    for name in ("tests/test_a.py", "tests/sub/test_b.py"):
        (tmp_path / name).write_text("def test_f():\n    pass\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()  # the target's module exists (an unknown one is refused)
    (tmp_path / "pkg" / "mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (tmp_path / "mutants.toml").write_text(CATALOG, encoding="utf-8")
    catalog = load_catalog(tmp_path / "mutants.toml")
    universe = reuse.TestUniverse(catalog, roots=[tmp_path])
    wide, narrow = catalog.get("wide"), catalog.get("narrow")
    files = universe.owner_files(wide)
    assert files is universe.files, "a wide mutant's owner files are the universe's own list"
    assert universe.fingerprint(wide, "src", files) == fingerprint(wide, "src", list(files)), (
        "the shared digests must give the fingerprint computed file by file (stored "
        "verdicts stay reusable)")
    narrow_files = universe.owner_files(narrow)
    assert narrow_files == sorted([(tmp_path / "tests/test_a.py").resolve(),
                                   (tmp_path / "tests/conftest.py").resolve()]), (
        f"a node-id owner depends on its file and its conftest chain only: {narrow_files}")
    assert universe.fingerprint(narrow, "src", narrow_files) == fingerprint(
        narrow, "src", narrow_files), "a narrow mutant's fingerprint is unchanged too"
