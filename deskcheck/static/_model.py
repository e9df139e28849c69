"""A production class as deskcheck sees it: its MRO of source classes, built statically
(from source, no import) or at runtime (the imported class's real ``__mro__``)."""

from __future__ import annotations

import ast
import difflib
import inspect
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.errors import SourceResolutionError, UnknownTargetError
from deskcheck.static._collect import first_param, function_facts
from deskcheck.static._members import ClassSource, Member, class_members
from deskcheck.static._nodes import subnodes
from deskcheck.static._sources import Sources
from deskcheck.static._static import External, StaticIndex, class_key


@dataclass
class ClassModel:
    qualname: str
    name: str
    mode: str
    mro: list[ClassSource | External]
    notes: list[str] = field(default_factory=list)
    _instance_attrs: dict[str, str] | None = None

    @property
    def sources(self) -> list[ClassSource]:
        return [k for k in self.mro if isinstance(k, ClassSource)]

    @property
    def location(self) -> str:
        head = self.mro[0]
        return head.location if isinstance(head, ClassSource) else self.qualname

    def lookup(self, name: str, after: ClassSource | None = None) -> tuple[ClassSource, Member] | None:
        """The first class in the MRO (after ``after``, for ``super()``) that defines ``name``."""
        started = after is None
        for klass in self.mro:
            if not started:
                started = class_key(klass) == class_key(after)
                continue
            if isinstance(klass, ClassSource) and name in klass.members:
                return klass, klass.members[name]
        return None

    def require_root(self, name: str) -> tuple[ClassSource, Member]:
        found = self.lookup(name)
        if found is None or found[1].kind in {"attribute", "annotation"}:
            known = sorted({n for k in self.sources for n, m in k.members.items()
                            if m.is_function or m.kind == "property"})
            close = difflib.get_close_matches(name, known, n=3)
            hint = f"did you mean {', '.join(close)}?" if close else "check the method name"
            raise UnknownTargetError(f"{self.name} has no method or property {name!r}",
                                     location=self.location, fix=hint)
        return found

    def instance_attributes(self) -> dict[str, str]:
        """Every ``self.X`` any method of the MRO touches (name -> first ``file:line``)."""
        if self._instance_attrs is None:
            found: dict[str, str] = {}
            for klass in self.sources:
                for member in klass.members.values():
                    for _role, hollow_node in member.functions():
                        node = klass.function(hollow_node)
                        self_name = None if member.kind == "staticmethod" else first_param(node)
                        for acc in function_facts(node, self_name).accesses:
                            if "." not in acc.name:
                                found.setdefault(acc.name, f"{klass.file}:{acc.line}")
            self._instance_attrs = found
        return self._instance_attrs

    def has_name(self, name: str) -> bool:
        return self.lookup(name) is not None or name in self.instance_attributes()


def split_spec(spec: str) -> tuple[str, str, str | None]:
    """``pkg.mod:Class.method`` -> (module, class qualname, method or None)."""
    module, sep, rest = spec.partition(":")
    if not sep or not module or not rest or ":" in rest:
        raise UnknownTargetError(f"bad target {spec!r}", location=spec,
                                 fix="write it as MODULE:Class or MODULE:Class.method")
    qualname, dot, method = rest.rpartition(".")
    return (module, qualname, method) if dot else (module, rest, None)


def build_static(module: str, qualname: str, roots: Sequence[str | Path],
                 sources: Sources) -> ClassModel:
    index = StaticIndex(roots, sources)
    notes: list[str] = []
    if index.find_module(module) is None:
        extra = installed_root(module)
        if extra is not None:
            index = StaticIndex([*roots, extra], sources)
            notes.append(f"{module.split('.')[0]} found installed at {extra} (added as a root)")
    cls = index.find_class(module, qualname)
    mro = index.mro(cls)
    return ClassModel(f"{module}:{qualname}", cls.name, "static", mro, notes + index.notes)


def installed_root(module: str) -> Path | None:
    """The folder holding an installed top-level package, located by the import system's
    finders (``find_spec`` of a top-level name runs no package code)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve().parent
    return Path(spec.origin).resolve().parent if spec.origin and spec.has_location else None


def build_runtime(cls: type, sources: Sources) -> ClassModel:
    mro: list[ClassSource | External] = []
    notes: list[str] = []
    for klass in cls.__mro__:
        found = _runtime_source(klass, sources)
        if found is None:
            mro.append(External(f"{klass.__module__}.{klass.__qualname__}", klass.__module__))
            if klass is not object and klass.__module__ != "builtins":
                notes.append(f"{klass.__module__}.{klass.__qualname__}: no source, not followed")
        else:
            mro.append(found)
    return ClassModel(f"{cls.__module__}:{cls.__qualname__}", cls.__name__, "runtime", mro, notes)


def _runtime_source(klass: type, sources: Sources) -> ClassSource | None:
    if klass is object or klass.__module__ == "builtins":
        return None
    try:
        file = inspect.getsourcefile(klass)
    except (TypeError, OSError):
        return None
    if not file or not Path(file).is_file():
        return None
    parsed = sources.parse(file)
    if parsed.bodies and "<locals>" in klass.__qualname__.split("."):
        parsed = parsed.full()  # defined in a function body: the hollow parse left it out
    node = _find_class_node(parsed.tree, klass)
    if node is None and parsed.bodies:  # a class defined inside a function body
        parsed = parsed.full()
        node = _find_class_node(parsed.tree, klass)
    if node is None:
        return None
    return ClassSource(klass.__module__, klass.__qualname__, str(Path(file).resolve()), node,
                       class_members(node), parsed)


def _find_class_node(tree: ast.Module, klass: type) -> ast.ClassDef | None:
    parts = klass.__qualname__.split(".")
    if "<locals>" not in parts:
        body: list[ast.stmt] = tree.body
        node = None
        for part in parts:
            node = next((s for s in _walk_defs(body) if isinstance(s, ast.ClassDef)
                         and s.name == part), None)
            if node is None:
                break
            body = node.body
        if node is not None:
            return node
    candidates = [n for n in subnodes(tree) if isinstance(n, ast.ClassDef) and n.name == klass.__name__]
    if len(candidates) > 1:
        try:
            line = inspect.getsourcelines(klass)[1]
            return next((n for n in candidates if n.lineno == line
                         or (n.decorator_list and n.decorator_list[0].lineno == line)), candidates[0])
        except (OSError, TypeError):
            pass
    return candidates[0] if candidates else None


def _walk_defs(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If | ast.Try):
            out += _walk_defs(stmt.body) + _walk_defs(stmt.orelse)
        else:
            out.append(stmt)
    return out


def import_class(module: str, qualname: str) -> type:
    import importlib

    try:
        obj: object = importlib.import_module(module)
    except ImportError as exc:
        raise UnknownTargetError(f"cannot import {module!r}: {exc}", location=module,
                                 fix="install the package, or use --static with --root") from exc
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise UnknownTargetError(f"no class {qualname!r} in module {module}",
                                     location=getattr(sys.modules.get(module), "__file__", module),
                                     fix="check the class name (MODULE:Class.method)")
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise UnknownTargetError(f"{module}:{qualname} is not a class", location=module,
                                 fix="name a class (MODULE:Class.method)")
    return obj


def default_roots(cls: type) -> list[Path]:
    """The folder above ``cls``'s top-level package (what static mode needs as a root)."""
    top = sys.modules.get(cls.__module__.split(".")[0])
    file = getattr(top, "__file__", None)
    if not file:
        raise SourceResolutionError(f"cannot locate the source of {cls.__module__}",
                                    location=cls.__module__, fix="pass roots explicitly")
    path = Path(file).resolve()
    return [path.parent.parent if path.name == "__init__.py" else path.parent]
