"""Two GPU-only imports of SGLang, stood in for on a CPU machine (bench/sglang_env.py installs
this module into the SGLang venv's site-packages, with a ``.pth`` line that imports it).

- ``triton``: SGLang ships its own triton mock for macOS in ``sglang/_platform_stubs.py``,
  inside ``install_platform_stubs()`` behind a platform gate (``darwin``/``arm64``, MPS). This
  finder loads that file by path (``import sglang`` is not triggered), takes the body of the
  function's ``if "triton" not in sys.modules ...:`` block from its syntax tree and runs it in
  the file's own namespace: SGLang's mock, not a copy, without the gate and without the MPS
  patches that follow it.
- ``torchvision``: the only wheel for torch 2.13 here is a CUDA build. A catch-all module
  stands in: every attribute is a child module, a CamelCase name a class, a call returns None.
  It has no distribution metadata, so libraries that check ``importlib.metadata`` (transformers)
  still see torchvision as absent and take their no-torchvision paths.

Only the first ``import triton`` / ``import torchvision`` pays for this; the ``.pth`` import
itself only appends a finder to ``sys.meta_path``.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from pathlib import Path

_STUBS_NAME = "_deskcheck_sglang_platform_stubs"


class StandinError(ImportError):
    """SGLang's triton mock could not be loaded; the message names the file and the fix."""


def _stubs_file() -> Path:
    for entry in sys.path:
        candidate = Path(entry or ".") / "sglang" / "_platform_stubs.py"
        if candidate.is_file():
            return candidate
    raise StandinError("sglang/_platform_stubs.py is not on sys.path: install sglang==0.5.23 "
                       "(pip install --no-deps sglang==0.5.23) before importing triton")


def _triton_block(tree: ast.Module, path: Path) -> list[ast.stmt]:
    """The statements of ``install_platform_stubs``' ``if "triton" not in sys.modules`` body."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "install_platform_stubs":
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.If) and "triton" in ast.unparse(stmt.test):
                    return stmt.body
    raise StandinError(f"{path}: no `if \"triton\" not in sys.modules` block in "
                       "install_platform_stubs(); this SGLang version ships no triton mock. "
                       "Install triton instead: pip install --no-deps triton")


def install_sglang_triton_mock() -> types.ModuleType:
    """Run SGLang's own triton mock (no platform gate); returns the ``triton`` module."""
    path = _stubs_file()
    spec = importlib.util.spec_from_file_location(_STUBS_NAME, path)
    assert spec is not None and spec.loader is not None
    stubs = importlib.util.module_from_spec(spec)
    sys.modules[_STUBS_NAME] = stubs
    spec.loader.exec_module(stubs)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    block = ast.Module(body=_triton_block(tree, path), type_ignores=[])
    exec(compile(block, str(path), "exec"), vars(stubs))  # noqa: S102 - SGLang's own code
    # The block puts SGLang's own finder first; its specs have no loader, so the import system
    # would replace each mock submodule by an empty namespace module. This module's finder
    # builds submodules with the same ``_make_mock`` instead.
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_TritonFinder"]
    return sys.modules["triton"]


class _CatchAllMember:
    """A named value of a catch-all class (``InterpolationMode.BILINEAR``): hashable, distinct."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"<torchvision stand-in {self._name}>"


class _CatchAllMeta(type):
    """A class whose every public class attribute is a distinct named member."""

    def __getattr__(cls, name: str) -> object:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        member = _CatchAllMember(f"{cls.__module__}.{cls.__qualname__}.{name}")
        setattr(cls, name, member)
        return member


class CatchAllModule(types.ModuleType):
    """A module whose every attribute is a child module or, for CamelCase names, a class.

    Calling a child module returns its argument when used as a bare decorator, else None.
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []
        self.__file__ = __file__

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name[:1].isupper():
            value: object = _CatchAllMeta(name, (), {"__module__": self.__name__})
        else:
            value = sys.modules.get(f"{self.__name__}.{name}") or _child(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value

    def __call__(self, *args: object, **kwargs: object) -> object:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return None


def _child(name: str) -> CatchAllModule:
    module = CatchAllModule(name)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    sys.modules[name] = module
    return module


class _ExistingModuleLoader(importlib.abc.Loader):
    """Hands the import system a module that was already built."""

    def __init__(self, build: object) -> None:
        self._build = build

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = self._build(spec.name)  # type: ignore[operator]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def _build_triton(name: str) -> types.ModuleType:
    if name == "triton":
        return sys.modules.get("triton") or install_sglang_triton_mock()
    return sys.modules.get(name) or sys.modules[_STUBS_NAME]._make_mock(name)


TORCHVISION_VERSION = "0.28.0+deskcheck.standin"  # the release that pairs with torch 2.13


def _build_torchvision(name: str) -> types.ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    module = _child(name)
    if name == "torchvision":
        module.__version__ = TORCHVISION_VERSION
    return module


class SGLangStandinFinder(importlib.abc.MetaPathFinder):
    """Finds ``triton`` and ``torchvision`` (and their submodules) when no real one is there."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        root = fullname.partition(".")[0]
        builders = {"triton": _build_triton, "torchvision": _build_torchvision}
        if root not in builders:
            return None
        return importlib.machinery.ModuleSpec(
            fullname, _ExistingModuleLoader(builders[root]), is_package=True)


def install() -> None:
    """Append the finder (last, so a real triton or torchvision installed later wins)."""
    if not any(isinstance(f, SGLangStandinFinder) for f in sys.meta_path):
        sys.meta_path.append(SGLangStandinFinder())


install()
