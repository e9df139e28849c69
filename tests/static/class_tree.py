"""The production tree the static class resolution tests read (docs/drift.md, *The
production surface*, ``--static``): a package ``dcs`` whose classes and bases come through
every form (nested classes, re-exports, relative imports, namespace packages, builtins,
installed and missing external packages, ``try/except ImportError``), and the model of one
of its classes read from source alone. The ``root`` fixture (tests/static/conftest.py) writes
it to a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import SourceResolutionError
from deskcheck.static._static import class_key
from deskcheck.static._surface import build_model

FILES = {
    "dcs/__init__.py": """\
from dcs.base import Base

try:
    from . import accel
except ImportError:
    accel = None
""",
    "dcs/accel.py": "",
    "dcs/deco.py": """\
import functools


def stage(fn):
    @functools.wraps(fn)
    def wrapper(self, *args):
        self.stage_calls += 1
        return fn(self, *args)

    return wrapper
""",
    "dcs/base.py": """\
from dcs.deco import stage


class Base:
    def run(self):
        return self.base_field


class Outer:
    class Inner:
        @stage
        def step(self):
            self.touched = 1
            return self.inner_field


def helper():
    return 1
""",
    "dcs/starred.py": "from dcs.reexport import *\n",
    "dcs/reexport.py": "from dcs.base import Base\n",
    "dcs/sibling.py": "class SibBase:\n    pass\n",
    "dcs/sub/__init__.py": "",
    "dcs/sub/base_rel.py": "class RelBase:\n    pass\n",
    "dcs/sub/pkg/__init__.py": "from ...base import Base as PkgBase\n",
    "dcs/sub/pkg/mod.py": """\
from ..base_rel import RelBase
from ... import sibling
from . import PkgBase


class TwoUp(RelBase):
    pass


class ViaDotImport(sibling.SibBase):
    pass


class FromOwnPackage(PkgBase):
    pass
""",
    "ns/mod.py": "class NsBase:\n    pass\n",
    "ns/sub/deep.py": "class DeepBase:\n    pass\n",
    "dcs/shop.py": """\
import collections.abc as cabc
from collections import abc

import libcst
import notinstalled_dc as ni
import ns.mod
from libcst import CSTNode
from notinstalled_dc import Thing
from ns import sub
from ns.gone import Vanished

from dcs.base import Outer


class Nested(Outer.Inner):
    pass


class BuiltinBase(Exception):
    pass


class ExternalAttr(abc.Mapping):
    pass


class ExternalModule(cabc.Sequence):
    pass


class InstalledModule(libcst.CSTNode):
    pass


class InstalledName(CSTNode):
    pass


class MissingByFrom(Thing):
    pass


class MissingByImport(ni.Thing):
    pass


class Namespace(ns.mod.NsBase):
    pass


class NestedNamespace(sub.deep.DeepBase):
    pass


class GoneFromNamespace(Vanished):
    pass


class Undefined(NoSuchName):
    pass


class NoSuchInner(Outer.Missing):
    pass


class Loop(Loop2):
    pass


class Loop2(Loop):
    pass


class X:
    pass


class Y(X):
    pass


class BadOrder(X, Y):
    pass
""",
    "dcs/fallbacks.py": """\
import contextlib
import sys

from dcs.base import Base as Top

try:
    from dcs.fast_missing import Base as Chosen
except ImportError:
    with contextlib.suppress(Exception):
        from dcs.base import Base as InWith
    if sys.version_info >= (3, 8):
        from dcs.base import Base as InIf
    else:
        from dcs.base import Base as InElse
    try:
        from dcs.base import Base as InPlainTry
    finally:
        pass
    import dcs.base as imported
    Aliased = Top

    class Local(Top):
        pass


class A1(InWith):
    pass


class A2(InIf):
    pass


class A3(InElse):
    pass


class A4(InPlainTry):
    pass


class A5(imported.Base):
    pass


class A6(Aliased):
    pass


class A7(Local):
    pass
""",
    "dcs/tries.py": """\
import json

try:
    from dcs.base import NotThere
except ImportError:
    from dcs.base import Base as NameFallback

try:
    import dcs.fast_missing as impl
except ImportError:
    import dcs.base as impl

try:
    from dcs.fast_missing import Base as TupleChosen
except (AttributeError, ImportError):
    from dcs.base import Base as TupleChosen

try:
    from dcs.fast_missing import Base as BareChosen
except:  # noqa: E722
    from dcs.base import Base as BareChosen

try:
    from dcs.base import Base as Guarded
except json.JSONDecodeError:
    Guarded = None
else:
    from dcs.base import Base as ElseBound

try:
    from dcs.base import *
    from dcs.starred import Base as ViaStar
    from dcs import base as base_module
    import os.path
    from . import sibling
except ImportError:
    ViaStar = None


class MissingName(NameFallback):
    pass


class MissingModule(impl.Base):
    pass


class TupleHandler(TupleChosen):
    pass


class BareHandler(BareChosen):
    pass


class NotAnImportGuard(Guarded):
    pass


class ElseOfAGuard(ElseBound):
    pass


class AllResolve(ViaStar):
    pass
""",
}


def mro(root: Path, spec: str) -> list[str]:
    return [class_key(k) for k in build_model(spec, roots=[root], mode="static").mro]


def notes(root: Path, spec: str) -> list[str]:
    return build_model(spec, roots=[root], mode="static").notes


def error(root: Path, spec: str, kind: type[Exception] = SourceResolutionError):
    with pytest.raises(kind) as caught:
        build_model(spec, roots=[root], mode="static")
    return caught.value
