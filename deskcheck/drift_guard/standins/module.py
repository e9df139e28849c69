"""One test file as discovery reads it (``ast`` only, nothing imported): its imports, helper
functions, plain classes, pytest fixtures and test functions."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _is_fixture(node: FunctionNode) -> tuple[bool, str]:
    """(is a pytest fixture, the name it is requested by)."""
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = dotted(target) or ""
        if name.split(".")[-1] == "fixture":
            alias = node.name
            if isinstance(deco, ast.Call):
                for kw in deco.keywords:
                    if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                        alias = str(kw.value.value)
            return True, alias
    return False, node.name


def is_staticmethod(node: FunctionNode) -> bool:
    return any(dotted(d) == "staticmethod" for d in node.decorator_list)


@dataclass
class TestClass:
    node: ast.ClassDef
    methods: dict[str, FunctionNode] = field(default_factory=dict)
    fixtures: dict[str, FunctionNode] = field(default_factory=dict)
    bases: list[str] = field(default_factory=list)


@dataclass
class TestModule:
    """The parsed test file. ``imports`` maps a local name to the dotted name it binds."""

    path: Path
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionNode] = field(default_factory=dict)
    fixtures: dict[str, FunctionNode] = field(default_factory=dict)
    classes: dict[str, TestClass] = field(default_factory=dict)
    plain_classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    plain_class_nodes: dict[str, ast.ClassDef] = field(default_factory=dict)

    @classmethod
    def parse(cls, path: Path, text: str) -> TestModule:
        tree = ast.parse(text, filename=str(path))  # SyntaxError: the caller reports it
        module = cls(path=path, tree=tree)
        module._read_imports()
        for stmt in tree.body:
            if isinstance(stmt, FunctionNode):
                fixture, alias = _is_fixture(stmt)
                (module.fixtures if fixture else module.functions)[alias] = stmt
            elif isinstance(stmt, ast.ClassDef):
                module._read_class(stmt)
        return module

    def _read_imports(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        self.imports[head] = head
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: ".helpers" is a sibling of the test file
                    base = "." * node.level + base
                for alias in node.names:
                    if alias.name != "*":
                        self.imports[alias.asname or alias.name] = f"{base}.{alias.name}"

    def _read_class(self, node: ast.ClassDef) -> None:
        bases = [dotted(b) or "?" for b in node.bases]
        methods = {s.name: s for s in node.body if isinstance(s, FunctionNode)}
        is_test = node.name.startswith("Test") or any(b.endswith("TestCase") for b in bases)
        if is_test:
            klass = TestClass(node, bases=bases)
            for name, method in methods.items():
                fixture, alias = _is_fixture(method)
                if fixture:
                    klass.fixtures[alias] = method
                else:
                    klass.methods[name] = method
            self.classes[node.name] = klass
        elif all(b in ("object",) for b in bases):
            self.plain_classes[node.name] = _class_names(node)
            self.plain_class_nodes[node.name] = node

    def qualify(self, name: str | None) -> str | None:
        """A dotted expression with its head replaced by what the import binds."""
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.imports.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def test_functions(self) -> list[tuple[str, TestClass | None, FunctionNode]]:
        """(node id tail, class, def) of every test pytest would collect, in file order."""
        out: list[tuple[str, TestClass | None, FunctionNode]] = []
        for stmt in self.tree.body:
            if isinstance(stmt, FunctionNode) and stmt.name.startswith("test") \
                    and stmt.name not in self.fixtures:
                out.append((stmt.name, None, stmt))
            elif isinstance(stmt, ast.ClassDef) and stmt.name in self.classes:
                klass = self.classes[stmt.name]
                for name, method in klass.methods.items():
                    if name.startswith("test"):
                        out.append((f"{stmt.name}::{name}", klass, method))
        return out


def _class_names(node: ast.ClassDef) -> tuple[str, ...]:
    """Names an instance of a plain test-file class provides: class-body names and every
    ``self.X = ...`` in its methods."""
    names: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, FunctionNode | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.value is not None:
            names.add(stmt.target.id)
    for method in (s for s in node.body if isinstance(s, FunctionNode)):
        if not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for sub in ast.walk(method):
            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) \
                    and isinstance(sub.value, ast.Name) and sub.value.id == self_name:
                names.add(sub.attr)
    return tuple(sorted(names))
