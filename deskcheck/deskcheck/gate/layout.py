"""Which files are tests and which are production code, and where production imports from.

Configured in ``[tool.deskcheck]``:

- ``test_paths``: folders/files (relative to the pyproject folder) that hold tests and test
  support. Default: pytest's ``testpaths`` plus any folder named ``tests`` or ``test``.
- ``source_paths``: import roots of the production code (``"src"``, ``"."``,
  ``"examples/tp_scheduler"``). Default: every package (folder with ``__init__.py``) outside
  the tests, its import root found by walking up through ``__init__.py`` files, plus the
  modules at the project root; loose scripts in other folders (``bench/``) are not importable
  and are left alone.

Files named like pytest's ``python_files`` (default ``test_*.py``, ``*_test.py``) and
``conftest.py`` are always tests.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from deskcheck.config import ProjectConfig
from deskcheck.errors import ConfigError
from deskcheck.pytest_ini import DEFAULT_DOCTEST_GLOBS, pytest_config

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
DEFAULT_TEST_FOLDER_NAMES = frozenset({"tests", "test"})
_EXAMPLE = {"test_paths": "tests", "source_paths": "src"}


@dataclass(frozen=True)
class PytestNaming:
    """pytest's collection naming rules (``python_files/classes/functions``)."""

    files: tuple[str, ...] = DEFAULT_PYTHON_FILES
    classes: tuple[str, ...] = ("Test",)
    functions: tuple[str, ...] = ("test",)

    def is_test_class(self, name: str) -> bool:
        return any(_name_matches(name, p) for p in self.classes)

    def is_test_function(self, name: str) -> bool:
        return any(_name_matches(name, p) for p in self.functions)


def _name_matches(name: str, pattern: str) -> bool:
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return name.startswith(pattern)


@dataclass(frozen=True)
class TestLayout:
    """Test/production classification for paths relative to the git top-level folder."""

    __test__ = False  # not a pytest test class

    test_paths: tuple[str, ...] = ()
    source_paths: tuple[str, ...] = ()
    naming: PytestNaming = field(default_factory=PytestNaming)
    folder_heuristic: bool = True
    project_root: str = ""  # the pyproject folder, git-root-relative
    doctest_modules: bool = False  # ``--doctest-modules``: docstrings are tests too
    doctest_globs: tuple[str, ...] = DEFAULT_DOCTEST_GLOBS  # text files of doctests
    collected_paths: tuple[str, ...] = ()  # pytest's testpaths (empty: the whole project)

    def is_doctest_file(self, path: str) -> bool:
        """A text file pytest collects doctests from (``--doctest-glob``)."""
        name = PurePosixPath(path).name
        return (not path.endswith(".py") and self.is_collected(path)
                and any(fnmatch.fnmatchcase(name, g) or fnmatch.fnmatchcase(path, g)
                        for g in self.doctest_globs))

    def is_collected(self, path: str) -> bool:
        """Under pytest's ``testpaths`` (or the project, without them)."""
        roots = self.collected_paths or (self.project_root,)
        return any(_under(path, r) for r in roots)

    def is_test_module(self, path: str) -> bool:
        """A file pytest collects tests from."""
        name = PurePosixPath(path).name
        return path.endswith(".py") and any(fnmatch.fnmatchcase(name, p)
                                            for p in self.naming.files)

    def is_test_file(self, path: str) -> bool:
        """Tests and test support: run from the branch on both sides of ``redfirst``."""
        pure = PurePosixPath(path)
        if pure.name == "conftest.py" or self.is_test_module(path):
            return True
        if any(_under(path, prefix) for prefix in self.test_paths):
            return True
        return self.folder_heuristic and bool(DEFAULT_TEST_FOLDER_NAMES & set(pure.parts[:-1]))

    def is_production_file(self, path: str) -> bool:
        pure = PurePosixPath(path)
        if pure.suffix != ".py" or any(p.startswith(".") for p in pure.parts):
            return False
        if self.is_test_file(path):
            return False
        return not self.source_paths or any(_under(path, s) for s in self.source_paths)

    def production_modules(self, files: Iterable[str]) -> tuple[dict[str, str], list[str]]:
        """``{top-level import name: import root}`` for the production files among ``files``.

        Returns the map and notes about names left out (stdlib shadows, ambiguous roots).
        """
        all_files = set(files)
        found: dict[str, set[str]] = {}
        for path in sorted(all_files):
            if not self.is_production_file(path):
                continue
            name, root = self._import_name_and_root(path, all_files)
            if name and name.isidentifier():
                found.setdefault(name, set()).add(root)
        modules: dict[str, str] = {}
        notes: list[str] = []
        for name, roots in sorted(found.items()):
            if name in sys.stdlib_module_names:
                notes.append(f"{name}: shadows a standard-library module; not redirected")
                continue
            chosen = min(roots, key=lambda r: (r.count("/"), r))
            if len(roots) > 1:
                notes.append(f"{name}: found under {sorted(roots)}; using {chosen!r} "
                             "(set source_paths to choose)")
            modules[name] = chosen
        return modules, notes

    def _import_name_and_root(self, path: str, all_files: set[str]) -> tuple[str, str]:
        pure = PurePosixPath(path)
        for source in sorted(self.source_paths, key=len, reverse=True):
            if _under(path, source):
                rel = pure.relative_to(source) if source not in ("", ".") else pure
                head = rel.parts[0]
                return (head[:-3] if len(rel.parts) == 1 else head), _norm(source)
        package = pure.parent
        if pure.name != "__init__.py" and (package / "__init__.py").as_posix() not in all_files:
            folder = _norm(package.as_posix())
            if folder != self.project_root:  # a script folder (bench/, docs/): not importable
                return "", ""
            return pure.stem, folder  # a top-level module of the project
        while (package.parent / "__init__.py").as_posix() in all_files:
            package = package.parent
        return package.name, _norm(package.parent.as_posix())


def _norm(path: str) -> str:
    return "" if path in (".", "") else path.rstrip("/")


def _under(path: str, prefix: str) -> bool:
    prefix = _norm(prefix)
    if prefix == "":
        return True
    if any(ch in prefix for ch in "*?["):
        return fnmatch.fnmatchcase(path, prefix) or fnmatch.fnmatchcase(path, prefix + "/*")
    return path == prefix or path.startswith(prefix + "/")


def load_layout(config: ProjectConfig, git_root: Path) -> TestLayout:
    """The layout from ``[tool.deskcheck]`` and pytest's ini, as git-root-relative paths."""
    offset = config.root.resolve().relative_to(git_root.resolve()).as_posix()
    offset = "" if offset == "." else offset
    pytest_ini = pytest_config(config.root)
    test_paths = _string_list(config, "test_paths")
    source_paths = _string_list(config, "source_paths")
    heuristic = test_paths is None
    testpaths = pytest_ini.args("testpaths")
    if test_paths is None:  # testpaths that hold production packages (doctests) are not tests
        test_paths = [p for p in testpaths if not _holds_production(config.root / p)]
    naming = PytestNaming(
        files=tuple(pytest_ini.args("python_files")) or DEFAULT_PYTHON_FILES,
        classes=tuple(pytest_ini.args("python_classes")) or ("Test",),
        functions=tuple(pytest_ini.args("python_functions")) or ("test",),
    )
    return TestLayout(
        test_paths=tuple(_join(offset, p) for p in test_paths),
        source_paths=tuple(_join(offset, p) for p in (source_paths or [])),
        naming=naming,
        folder_heuristic=heuristic,
        project_root=_norm(offset),
        doctest_modules=pytest_ini.doctest_modules(),
        doctest_globs=pytest_ini.doctest_globs(),
        collected_paths=tuple(_join(offset, p) for p in testpaths),
    )


def _holds_production(folder: Path) -> bool:
    """A ``testpaths`` entry listed for its doctests: it is, or directly holds, a package
    with no test module of its own (``src``, ``src/pkg``)."""
    if not folder.is_dir() or folder.name in DEFAULT_TEST_FOLDER_NAMES:
        return False
    packages = [folder] if (folder / "__init__.py").is_file() else []
    packages += [p for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()]
    return any(p.name not in DEFAULT_TEST_FOLDER_NAMES
               and not any(fnmatch.fnmatchcase(f.name, g) for f in p.glob("*.py")
                           for g in DEFAULT_PYTHON_FILES) for p in packages)


def _join(offset: str, path: str) -> str:
    joined = PurePosixPath(offset, path).as_posix() if offset else PurePosixPath(path).as_posix()
    return _norm(joined)


def _string_list(config: ProjectConfig, key: str) -> list[str] | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.deskcheck] {key} must be a list of paths",
                          location=f"{config.pyproject}:{_key_line(config.pyproject, key)}",
                          fix=f'write it as a list: {key} = ["{_EXAMPLE[key]}"]')
    return value


def _key_line(pyproject: Path | None, key: str) -> int | str:
    if pyproject is None:
        return "?"
    for number, line in enumerate(pyproject.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith(f"{key}") and "=" in line:
            return number
    return "?"
