"""Find modules and classes from source alone: no production module is ever imported.

Follows ``import``/``from`` (absolute and relative), re-exports through ``__init__``,
module-level aliases, star imports and ``try/except ImportError`` fallbacks (the branch
taken is reported), then computes the C3 MRO.
"""

from __future__ import annotations

import ast
import builtins
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deskcheck.errors import SourceResolutionError, UnknownTargetError
from deskcheck.static._members import ClassSource, class_members
from deskcheck.static._sources import ParsedFile, Sources

_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


@dataclass(frozen=True)
class Binding:
    """What a module-level name is bound to, and how (``note`` says which try branch)."""

    kind: str  # class | from | import | alias | other
    line: int
    node: ast.AST | None = None
    module: str | None = None
    name: str | None = None
    note: str | None = None
    statement: str = ""


@dataclass(frozen=True)
class External:
    """A base outside the roots (stdlib, third party, builtins): terminal, not followed."""

    qualname: str
    where: str

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass
class ModuleInfo:
    name: str
    file: str
    is_package: bool
    bindings: dict[str, Binding] = field(default_factory=dict)
    parsed: ParsedFile | None = None
    stars: list[str] = field(default_factory=list)


def probe_module(name: str, roots: Sequence[Path]) -> tuple[Path, bool] | None:
    """(file or folder, is package) of module ``name`` in the first of ``roots`` holding it."""
    parts = name.split(".")
    for root in roots:  # os.path: a cached audit re-runs thousands of these lookups
        base = os.path.normpath(os.path.join(root, *parts))
        if os.path.isfile(os.path.join(base, "__init__.py")):
            return Path(base, "__init__.py"), True
        if os.path.isfile(base + ".py"):
            return Path(base + ".py"), False
        if os.path.isdir(base) and len(parts) > 0 and os.path.isdir(os.path.join(root, parts[0])):
            return Path(base), True  # namespace package
    return None


COMPILED_PROBE = "\x00compiled:"  # a probe's name: "is this module a compiled extension"


def probe_compiled(module: str, roots: Sequence[Path]) -> Path | None:
    """The compiled extension file of ``module`` (``_core.cpython-311-x86_64-linux-gnu.so``,
    ``_core.so``, ``_core.pyd``) in the first of ``roots`` holding one, else None."""
    *package, last = module.split(".")
    for root in roots:
        folder = Path(root).joinpath(*package)
        if not folder.is_dir():
            continue
        for pattern in (f"{last}.so", f"{last}.pyd", f"{last}.*.so", f"{last}.*.pyd"):
            found = sorted(p for p in folder.glob(pattern) if p.is_file())
            if found:
                return found[0]
    return None


def probe_again(name: str, roots: Sequence[Path]) -> str | None:
    """What a lookup recorded in ``Sources.probes`` finds now (the file, or None): a module
    lookup, or (a name starting ``COMPILED_PROBE``) a compiled extension's."""
    if name.startswith(COMPILED_PROBE):
        found = probe_compiled(name.removeprefix(COMPILED_PROBE), roots)
        return str(found) if found else None
    module = probe_module(name, roots)
    return str(module[0]) if module else None


class StaticIndex:
    """Module files under ``roots`` (then ``sys.path``, for telling external from missing)."""

    def __init__(self, roots: Sequence[str | Path], sources: Sources | None = None) -> None:
        self.roots = [Path(r).resolve() for r in roots]
        self.sources = sources or Sources()
        self._files: dict[str, tuple[Path, bool] | None] = {}
        self._modules: dict[str, ModuleInfo] = {}
        self._compiled_of: dict[str, bool] = {}
        self._installed: list[Path] | None = None  # the folders of sys.path, looked up once
        self.notes: list[str] = []

    # -- modules -------------------------------------------------------------------------
    def find_module(self, name: str, paths: Sequence[Path] | None = None) -> tuple[Path, bool] | None:
        key = name if paths is None else f"{name}@external"
        if key in self._files:
            return self._files[key]
        searched = list(paths if paths is not None else self.roots)
        found = probe_module(name, searched)
        self.sources.probes[(name, tuple(str(r) for r in searched))] = \
            str(found[0]) if found else None
        self._files[key] = found
        return found

    def loaded_modules(self) -> set[str]:
        """The modules read so far (found under the roots)."""
        return {name for name, info in self._modules.items() if info is not None}

    def exists_outside(self, name: str) -> bool:
        top = name.split(".")[0]
        if top in sys.builtin_module_names or top in sys.stdlib_module_names:
            return True
        if self._installed is None:
            self._installed = [Path(p) for p in sys.path if p and os.path.isdir(p)]
        return self.find_module(name, self._installed) is not None

    def module(self, name: str) -> ModuleInfo | None:
        if name in self._modules:
            return self._modules[name]
        found = self.find_module(name)
        if found is None:
            return None
        path, is_package = found
        info = ModuleInfo(name, str(path), is_package)
        if path.is_file():
            info.parsed = self.sources.parse(path)
            self._bind_block(info, info.parsed.tree.body, note=None)
        self._modules[name] = info
        return info

    def _absolute(self, info: ModuleInfo, module: str | None, level: int) -> str:
        if level == 0:
            return module or ""
        package = info.name if info.is_package else info.name.rpartition(".")[0]
        parts = package.split(".") if package else []
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(parts + ([module] if module else []))

    def _bind_block(self, info: ModuleInfo, body: list[ast.stmt], note: str | None) -> None:
        for stmt in body:
            self._bind_statement(info, stmt, note)

    def _bind_statement(self, info: ModuleInfo, stmt: ast.stmt, note: str | None) -> None:
        text = ""
        if isinstance(stmt, ast.ClassDef):
            info.bindings[stmt.name] = Binding("class", stmt.lineno, node=stmt, note=note)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            info.bindings[stmt.name] = Binding("other", stmt.lineno, node=stmt, note=note)
        elif isinstance(stmt, ast.ImportFrom):
            text = ast.unparse(stmt)
            module = self._absolute(info, stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    info.stars.append(module)
                    continue
                info.bindings[alias.asname or alias.name] = Binding(
                    "from", stmt.lineno, module=module, name=alias.name, note=note, statement=text)
        elif isinstance(stmt, ast.Import):
            text = ast.unparse(stmt)
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else alias.name.split(".")[0]
                info.bindings[bound] = Binding("import", stmt.lineno, module=target, note=note,
                                               statement=text)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    info.bindings[target.id] = Binding("alias", stmt.lineno, node=stmt.value,
                                                       note=note, statement=ast.unparse(stmt))
        elif isinstance(stmt, ast.If):
            self._bind_block(info, stmt.body, note)
            self._bind_block(info, stmt.orelse, note)
        elif isinstance(stmt, ast.Try):
            self._bind_try(info, stmt, note)
        elif isinstance(stmt, ast.With):
            self._bind_block(info, stmt.body, note)

    def _bind_try(self, info: ModuleInfo, stmt: ast.Try, note: str | None) -> None:
        handler = next((h for h in stmt.handlers if _catches_import_error(h)), None)
        if handler is None:
            self._bind_block(info, stmt.body + stmt.orelse, note)
            return
        failing = self._first_unresolvable_import(info, stmt.body)
        where = f"{info.file}:{stmt.lineno}"
        if failing is None:
            taken = f"{where}: try/except ImportError took the try branch"
            self._bind_block(info, stmt.body + stmt.orelse, taken)
        else:
            taken = (f"{where}: try/except ImportError took the except branch "
                     f"(`{failing}` does not resolve)")
            self._bind_block(info, handler.body, taken)

    def _first_unresolvable_import(self, info: ModuleInfo, body: list[ast.stmt]) -> str | None:
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom):
                module = self._absolute(info, stmt.module, stmt.level)
                if not self._importable(module):
                    return ast.unparse(stmt)
                target = self.module(module) if module != info.name else None
                for alias in stmt.names:
                    if (target is not None and target.file.endswith(".py")
                            and alias.name != "*" and alias.name not in target.bindings
                            and not target.stars
                            and self.find_module(f"{module}.{alias.name}") is None):
                        return ast.unparse(stmt)
            elif isinstance(stmt, ast.Import):
                if any(not self._importable(a.name) for a in stmt.names):
                    return ast.unparse(stmt)
        return None

    def _importable(self, module: str) -> bool:
        return self.find_module(module) is not None or self.exists_outside(module)

    # -- names ---------------------------------------------------------------------------
    def resolve_name(self, module: str, name: str, trail: list[str],
                     depth: int = 0) -> ClassSource | External | str | None:
        """A class, an external base, a module name (``str``) or ``None`` (not found)."""
        if depth > 40:
            return None
        info = self.module(module)
        if info is None:
            return self._outside(module, name)
        binding = info.bindings.get(name)
        if binding is None:
            for star in info.stars:
                found = self.resolve_name(star, name, trail, depth + 1)
                if found is not None:
                    return found
            sub = f"{module}.{name}"
            return sub if self.find_module(sub) else None
        if binding.note and binding.note not in self.notes:
            self.notes.append(binding.note)
        if binding.statement:
            trail.append(f"{info.file}:{binding.line}: {binding.statement}")
        if binding.kind == "class":
            node = binding.node
            assert isinstance(node, ast.ClassDef)
            return ClassSource(module, node.name, info.file, node, class_members(node), info.parsed)
        if binding.kind == "import":
            # the module's names are resolved in it: classes under the roots, external leaves
            # outside them (installed or not, with a note), None if missing under the roots
            return binding.module
        if binding.kind == "from":
            assert binding.module is not None and binding.name is not None
            if self.find_module(binding.module) is None:
                return self._outside(binding.module, binding.name)
            found = self.resolve_name(binding.module, binding.name, trail, depth + 1)
            return found
        if binding.kind == "alias":
            assert isinstance(binding.node, ast.expr)
            return self.resolve_expr(module, binding.node, trail, depth + 1)
        # a def: say so, and which branch of a try/except ImportError bound it
        branch = f" ({binding.note})" if binding.note else ""
        trail.append(f"{info.file}:{binding.line}: {name!r} is a function, not a class{branch}")
        return None

    def _outside(self, module: str, name: str) -> External | None:
        """A name from a module not under the roots: an external leaf, unless its top-level
        package IS under the roots (then the module is missing: ``None``, an error upstream,
        or a compiled extension of that package, ``msgspec._core``: an external leaf)."""
        if self.find_module(module.split(".")[0]) is not None:
            if not self._compiled(module):
                return None
            note = (f"{module} is a compiled extension module: {module}.{name} is treated as "
                    "an external base, not followed")
            if note not in self.notes:
                self.notes.append(note)
            return External(f"{module}.{name}", module)
        if not self.exists_outside(module):
            note = (f"{module} is not under the roots and not installed here: "
                    f"{module}.{name} is treated as an external base, not followed")
            if note not in self.notes:
                self.notes.append(note)
        return External(f"{module}.{name}", module)

    def _compiled(self, module: str) -> bool:
        """Whether ``module`` is a compiled extension (``_core.cpython-311-x86_64-linux-gnu.so``,
        ``_core.pyd``) in a package under the roots."""
        found = self._compiled_of.get(module)
        if found is None:
            found = self._compiled_of[module] = self._compiled_uncached(module)
        return found

    def _compiled_uncached(self, module: str) -> bool:
        found = probe_compiled(module, self.roots)
        # noted like a module lookup: a cached answer holds while the extension is still there
        key = (COMPILED_PROBE + module, tuple(str(r) for r in self.roots))
        self.sources.probes[key] = str(found) if found else None
        return found is not None

    def resolve_expr(self, module: str, expr: ast.expr, trail: list[str],
                     depth: int = 0) -> ClassSource | External | str | None:
        if isinstance(expr, ast.Subscript):  # Generic[T], Base[int]
            return self.resolve_expr(module, expr.value, trail, depth)
        if isinstance(expr, ast.Name):
            found = self.resolve_name(module, expr.id, trail, depth)
            if found is None and hasattr(builtins, expr.id):
                return External(f"builtins.{expr.id}", "builtins")
            return found
        if isinstance(expr, ast.Attribute):
            owner = self.resolve_expr(module, expr.value, trail, depth)
            if isinstance(owner, str):
                return self.resolve_name(owner, expr.attr, trail, depth + 1)
            if isinstance(owner, External):
                return External(f"{owner.qualname}.{expr.attr}", owner.where)
            if isinstance(owner, ClassSource):
                inner = next((s for s in owner.node.body if isinstance(s, ast.ClassDef)
                              and s.name == expr.attr), None)
                if inner is not None:
                    return ClassSource(owner.module, f"{owner.qualname}.{inner.name}", owner.file,
                                       inner, class_members(inner), owner.parsed)
        return None

    # -- classes and the MRO -------------------------------------------------------------
    def find_class(self, module: str, qualname: str) -> ClassSource:
        info = self.module(module)
        if info is None:
            raise UnknownTargetError(
                f"module {module!r} not found under the roots {[str(r) for r in self.roots]}",
                location=module, fix="pass the folder that holds the top-level package with --root")
        parts = qualname.split(".")
        found = self.resolve_name(module, parts[0], [])
        for part in parts[1:]:
            if not isinstance(found, ClassSource):
                break
            found = nested_class(found, part)
        if not isinstance(found, ClassSource):
            raise UnknownTargetError(
                f"no class {qualname!r} in module {module}", location=info.file,
                fix="check the class name (MODULE:Class.method)")
        return found

    def mro(self, cls: ClassSource) -> list[ClassSource | External]:
        return _c3(cls, self._bases)

    def _bases(self, cls: ClassSource) -> list[ClassSource | External]:
        if not cls.node.bases:
            return [External("builtins.object", "builtins")]
        out: list[ClassSource | External] = []
        for base in cls.node.bases:
            trail: list[str] = []
            found = self.resolve_expr(cls.module, base, trail)
            if isinstance(found, ClassSource | External):
                out.append(found)
                continue
            tried = "; ".join(trail) if trail else f"no binding for {ast.unparse(base)!r} in {cls.module}"
            raise SourceResolutionError(
                f"cannot resolve base {ast.unparse(base)!r} of class {cls.name} (tried: {tried})",
                location=cls.location,
                fix="add the folder holding that module with --root, or use --runtime")
        return out


def nested_class(owner: ClassSource, name: str) -> ClassSource | None:
    inner = next((s for s in owner.node.body if isinstance(s, ast.ClassDef) and s.name == name), None)
    if inner is None:
        return None
    return ClassSource(owner.module, f"{owner.qualname}.{name}", owner.file, inner,
                       class_members(inner), owner.parsed)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name | ast.Attribute) and
               (n.id if isinstance(n, ast.Name) else n.attr) in _IMPORT_ERRORS for n in names)


def class_key(cls: ClassSource | External) -> str:
    if isinstance(cls, External):
        return cls.qualname
    return f"{cls.module}:{cls.qualname}"


def _c3(cls: ClassSource, bases_of) -> list[ClassSource | External]:
    """C3 linearisation; external bases are leaves (their own bases are not followed)."""
    memo: dict[str, list[ClassSource | External]] = {}

    def linearise(k: ClassSource | External, stack: tuple[str, ...]) -> list[ClassSource | External]:
        key = class_key(k)
        if key in memo:
            return memo[key]
        if isinstance(k, External):
            return [k]
        if key in stack:
            raise SourceResolutionError(f"class {k.name} inherits from itself",
                                        location=k.location, fix="break the inheritance cycle")
        bases = bases_of(k)
        seqs = [list(linearise(b, (*stack, key))) for b in bases] + [list(bases)]
        result = [k]
        while any(seqs):
            seqs = [s for s in seqs if s]
            for seq in seqs:
                head = class_key(seq[0])
                if not any(head in [class_key(x) for x in s[1:]] for s in seqs):
                    break
            else:
                raise SourceResolutionError(
                    f"cannot create a consistent MRO for {k.name}", location=k.location,
                    fix="reorder the base classes")
            picked = seq[0]
            result.append(picked)
            seqs = [s[1:] if class_key(s[0]) == head else s for s in seqs]
        memo[key] = result
        return result

    return linearise(cls, ())
