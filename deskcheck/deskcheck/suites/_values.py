"""How a recorded value is shown: short, stable across processes, never running user code."""

from __future__ import annotations

import enum
import functools
import hashlib
import os
import sysconfig
import types
from pathlib import Path
from typing import Any

_MAX_VALUE = 48
_BY_TYPE: dict[type, str] = {}  # types shown by their name alone
_LIBRARY_ROOTS = tuple(sorted({str(Path(p).resolve()) + os.sep for p in (
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"], str(Path(__file__).resolve().parents[1]))}))
NOT_AN_INPUT = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                types.MethodType, type)


_PACKAGE_FOLDERS = frozenset({"site-packages", "dist-packages"})


@functools.cache
def is_project_file(filename: str) -> bool:
    """True for code a test's decision reaches: not the stdlib, site-packages or deskcheck.

    Any site-packages folder counts, not only this interpreter's: the packages of a
    ``.venv`` inside the project, or of one whose packages are symlinks into another venv,
    are never project code."""
    if filename.startswith("<"):
        return False
    path = Path(filename)
    resolved = path.resolve()
    return not (str(resolved).startswith(_LIBRARY_ROOTS)
                or _PACKAGE_FOLDERS.intersection(path.parts + resolved.parts))


_SCALARS = (bool, int, float, str, bytes, type(None))
_NUMBERS = (bool, int, float, type(None))
_MASK = 0xFFFFFFFF
_NUMBER_KINDS = frozenset((bool, int, float, type(None)))
_SCALAR_KINDS = frozenset((bool, int, float, str, bytes, type(None)))


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:8]


def _user_repr(value: Any) -> bool:
    """Whether ``repr(value)`` would run a ``__repr__`` written in project code (a user
    subclass of ``str`` or ``int``); the built-in and standard-library ones (enums) are safe."""
    return _user_repr_of(type(value))


@functools.cache
def _user_repr_of(klass: type) -> bool:
    code = getattr(klass.__repr__, "__code__", None)
    return code is not None and is_project_file(code.co_filename)


def show(value: Any) -> str:
    """A short, stable rendering that never runs user code: scalars and small containers of
    scalars by their repr (a digest when long), anything else by its type (and length)."""
    kind = type(value)
    if kind is int or kind is bool or value is None:  # the commonest inputs, fast
        text = repr(value)
        return text if len(text) <= _MAX_VALUE else f"<int sha1:{_sha1(text)}>"
    plain = _BY_TYPE.get(kind)
    if plain is not None:  # a user object: its type, known already
        return plain
    if isinstance(value, enum.Enum):  # its class and member name: no user repr runs
        return f"{kind.__name__}.{value._name_}"
    if isinstance(value, _SCALARS) and not _user_repr(value):
        text = repr(value)
        if len(text) <= _MAX_VALUE:
            return text
        return f"<{kind.__name__} sha1:{_sha1(text)}>"
    if (kind is tuple or kind is list) and len(value) <= 256:
        kinds = set(map(type, value))
        if kinds <= _NUMBER_KINDS:  # hash() of numbers is the same in every process
            if len(value) <= 8:
                return repr(value)
            return f"<{kind.__name__} len={len(value)} #{hash(tuple(value)) & _MASK:08x}>"
        if kinds <= _SCALAR_KINDS or not any(map(_user_repr_of, kinds)) \
                and all(isinstance(v, _SCALARS) for v in value):
            text = repr(value)
            return text if len(text) <= _MAX_VALUE \
                else f"<{kind.__name__} len={len(value)} sha1:{_sha1(text)}>"
    if not isinstance(value, (tuple, list, dict, set, frozenset, str, bytes, enum.Enum)):
        plain = _BY_TYPE[kind] = f"<{kind.__name__}>"
        return plain
    try:
        size = f" len={len(value)}"
    except TypeError:
        size = ""
    return f"<{kind.__name__}{size}>"
