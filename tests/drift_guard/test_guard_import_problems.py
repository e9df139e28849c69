"""Importing the guard modules (docs/drift.md, *Where the guards are found*): every file that
cannot be imported is one error of a single ConfigError, all of them in one pass, named at
the pyproject; a module pytest would skip at import is reported as skipped with its file, line
and reason, and is not imported; a conftest that is skipped or fails stops the guard modules
under it, as in pytest. Gaps mutmut found in drift_guard/_discover.py
(``import_guard_modules``)."""

from __future__ import annotations

import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from deskcheck.config import ProjectConfig
from deskcheck.drift_guard._discover import import_guard_modules
from deskcheck.errors import ConfigError

GUARD = "from deskcheck.harness import Harness\n"


def _project(root: Path, files: dict[str, str],
             harnesses: str = '["checks"]') -> ProjectConfig:
    pyproject = f"[tool.deskcheck]\nharnesses = {harnesses}\n"
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(textwrap.dedent(text), encoding="utf-8")
    values = tomllib.loads(pyproject)["tool"]["deskcheck"]
    return ProjectConfig(root=root, pyproject=root / "pyproject.toml", values=values)


@pytest.fixture
def clean_modules(monkeypatch, tmp_path):
    """The project root on sys.path; every module imported by the test forgotten after it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        sys.modules.pop(name, None)


def _names(paths: list[str]) -> list[str]:
    return [Path(p).name for p in paths]


def test_a_module_pytest_would_skip_is_reported_with_its_file_line_and_reason(
        tmp_path, clean_modules):
    config = _project(tmp_path, {
        "checks/test_dc_ip_gpu.py": GUARD + "import pytest\n"
                                    "pytest.skip('needs a GPU', allow_module_level=True)\n",
        "checks/test_dc_ip_bare.py": GUARD + "import pytest\n"
                                     "pytest.skip('', allow_module_level=True)\n",
        "checks/test_dc_ip_fine.py": GUARD,
    })
    skipped: list[dict] = []
    imported = import_guard_modules(config, skipped=skipped)
    assert _names(imported) == ["test_dc_ip_fine.py"], (
        f"only the module that imports is imported; got {_names(imported)}")
    want = [{"file": str(tmp_path / "checks" / name), "line": 3, "reason": reason}
            for name, reason in (("test_dc_ip_bare.py", "skipped"),
                                 ("test_dc_ip_gpu.py", "needs a GPU"))]
    got = sorted(skipped, key=lambda s: s["file"])
    assert got == want, (
        "a module pytest skips at import is reported with its file, the line of the skip and "
        f"the reason ('skipped' when none is given); expected {want}, got {got}")


def test_a_skipped_conftest_stops_the_guard_modules_under_it(tmp_path, clean_modules):
    config = _project(tmp_path, {
        "checks/conftest.py": "import pytest\n"
                              "pytest.skip('no cluster', allow_module_level=True)\n",
        "checks/test_dc_ip_under.py": GUARD,
    })
    skipped: list[dict] = []
    imported = import_guard_modules(config, skipped=skipped)
    assert imported == [] and [Path(s["file"]).name for s in skipped] == ["conftest.py"], (
        "a conftest pytest skips at import skips its folder: the guard module under it is "
        f"not imported and the conftest is the one skipped; imported {_names(imported)}, "
        f"skipped {skipped}")


def test_a_conftest_that_fails_stops_the_guard_modules_under_it(tmp_path, clean_modules):
    config = _project(tmp_path, {
        "checks/conftest.py": "raise RuntimeError('conftest broke')\n",
        "checks/test_dc_ip_also_bad.py": GUARD + "raise RuntimeError('module broke')\n",
    })
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    assert "conftest broke" in str(caught.value) and not caught.value.errors, (
        "a conftest that cannot be imported stops its folder as in pytest: the one error is "
        f"the conftest's, the module under it is not imported; got {caught.value} with "
        f"{[str(e) for e in caught.value.errors]}")


def test_every_file_that_cannot_be_imported_is_named_in_one_error(tmp_path, clean_modules):
    config = _project(tmp_path, {
        "checks/test_dc_ip_one.py": GUARD + "raise RuntimeError('one broke')\n",
        "checks/test_dc_ip_two.py": GUARD + "raise ValueError('two broke')\n",
    })
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    error = caught.value
    assert str(error).startswith("2 file(s) that declare guards cannot be imported") and \
        error.location == str(config.pyproject), (
            "two guard modules that fail must be one ConfigError that counts them, named at "
            f"the pyproject; got {str(error).splitlines()[0]!r} at {error.location}")
    named = sorted(e.location.rpartition("/")[2] for e in error.errors)
    assert named == ["test_dc_ip_one.py:2", "test_dc_ip_two.py:2"], (
        f"each failing module must be one error at its failing line; got {named}")


def test_every_dotted_entry_that_cannot_be_imported_is_named_in_one_error(tmp_path):
    config = _project(tmp_path, {}, harnesses='["no_such_dc_a.guards", "no_such_dc_b.guards"]')
    with pytest.raises(ConfigError) as caught:
        import_guard_modules(config)
    messages = [str(e) for e in caught.value.errors]
    assert len(messages) == 2 and "no_such_dc_b.guards" in messages[1], (
        "a dotted entry that cannot be imported must not stop the next one: both are named "
        f"in one pass; got {messages or str(caught.value)}")
