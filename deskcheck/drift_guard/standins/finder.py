"""Static discovery over test files: which stand-ins each file builds and which tests drive
them. Nothing is imported; every file is parsed once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from deskcheck.drift_guard.standins.flow import Flow, Items, Obj, Result, Unfollowed
from deskcheck.drift_guard.standins.flow_choices import parametrized_choices
from deskcheck.drift_guard.standins.flow_refs import parametrized
from deskcheck.drift_guard.standins.module import FunctionNode, TestClass, TestModule
from deskcheck.drift_guard.standins.records import (
    MOCK,
    NEW,
    Construction,
    Drive,
    FileFindings,
    Problem,
)

SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", ".venv", "venv", ".tox", ".git"}
TEST_GLOBS = ("test_*.py", "*_test.py")


def test_files(paths: Iterable[Path]) -> list[Path]:
    """Test modules under ``paths`` (files are taken as given), sorted, each once."""
    found: set[Path] = set()
    for path in paths:
        if path.is_file():
            found.add(path.resolve())
            continue
        for glob in TEST_GLOBS:
            for candidate in path.rglob(glob):
                rel_parts = candidate.relative_to(path).parts[:-1]
                if not any(p in SKIP_DIRS or p.startswith(".") for p in rel_parts):
                    found.add(candidate.resolve())
    return sorted(found)


class Finder:
    """Discovery for a set of test files under ``rootdir`` (node ids are relative to it)."""

    def __init__(self, rootdir: Path):
        self.rootdir = rootdir.resolve()
        self._modules: dict[Path, tuple[TestModule, Flow] | None] = {}
        self._located: dict[tuple[Path, str], tuple[TestModule, str, Flow] | None] = {}
        self.problems: list[Problem] = []
        self.elapsed_s = 0.0  # reading the test files (``discover.find``)

    def rel(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.rootdir).as_posix()
        except ValueError:
            return path.resolve().as_posix()

    def _load(self, path: Path) -> tuple[TestModule, Flow] | None:
        path = path.resolve()
        if path in self._modules:
            return self._modules[path]
        rel = self.rel(path)
        try:
            module = TestModule.parse(path, path.read_text(encoding="utf-8"))
        except SyntaxError as exc:
            self.problems.append(Problem(
                "syntax-error", rel, exc.lineno or 1, f"syntax error: {exc.msg}",
                "fix the syntax error; the file's stand-ins are not judged until it parses"))
            self._modules[path] = None
            return None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.problems.append(Problem("syntax-error", rel, 1, f"cannot read: {exc}",
                                         "check the file"))
            self._modules[path] = None
            return None
        loaded = (module, Flow(module, rel, self.problems,
                               locate=lambda target, p=path: self._locate(p, target)))
        self._modules[path] = loaded
        return loaded

    def _locate(self, importer: Path, target: str) -> tuple[TestModule, str, Flow] | None:
        """A helper imported by a test, when its module is a file of this project (once per
        importer and name: every call of an imported function asks)."""
        key = (importer, target)
        if key not in self._located:
            self._located[key] = self._find_helper(importer, target)
        return self._located[key]

    def _find_helper(self, importer: Path, target: str) -> tuple[TestModule, str, Flow] | None:
        module_name, _, name = target.rpartition(".")
        if not module_name:
            return None
        dots = len(module_name) - len(module_name.lstrip("."))
        parts = module_name.lstrip(".").split(".")
        if dots:
            base = importer.parent
            for _ in range(dots - 1):
                base = base.parent
            candidates = [base.joinpath(*parts).with_suffix(".py")]
        else:
            candidates = []
            folder = importer.parent
            while True:
                candidates.append(folder.joinpath(*parts).with_suffix(".py"))
                if folder == self.rootdir or folder.parent == folder \
                        or self.rootdir not in folder.parents:
                    break
                folder = folder.parent
        for candidate in candidates:
            if candidate.is_file() and candidate.resolve() != importer.resolve():
                loaded = self._load(candidate)
                if loaded is not None:
                    return loaded[0], name, loaded[1]
        return None

    def _conftests(self, path: Path) -> list[tuple[TestModule, Flow]]:
        found: list[tuple[TestModule, Flow]] = []
        folder = path.parent
        while True:
            candidate = folder / "conftest.py"
            if candidate.is_file():
                loaded = self._load(candidate)
                if loaded is not None:
                    found.append(loaded)
            if folder == self.rootdir or folder.parent == folder \
                    or self.rootdir not in folder.parents:
                break
            folder = folder.parent
        return found

    # -- one file ----------------------------------------------------------------------------
    def find(self, path: Path) -> FileFindings:
        rel = self.rel(path)
        findings = FileFindings(rel)
        loaded = self._load(path)
        if loaded is None:
            return findings
        module, flow = loaded
        conftests = self._conftests(path)
        unfollowed: list[Unfollowed] = []
        for tail, klass, func in module.test_functions():
            node_id = f"{rel}::{tail}"
            findings.tests.append(node_id)
            bound, tuples = self._setup(flow, klass)
            for param in _params(func, klass is not None):
                objs, items = self._fixture(param, module, flow, klass, conftests, depth=0)
                if objs:
                    bound[param] = [o.fork() for o in objs]
                if items is not None:
                    tuples[param] = items
            result = flow.run(func, klass_methods=klass.methods if klass else None,
                              bound=bound, label=tail, tuples=tuples,
                              callables=parametrized(func, module, klass is not None),
                              literals=parametrized_choices(func, module, klass is not None))
            findings.drives.extend(_drives(result, node_id, rel))
            unfollowed.extend(result.unfollowed)
        seen: set[int] = set()
        own = [c for c in flow.forms.created if c.kind in (NEW, MOCK) and c.model_expr]
        for cons in [d.construction for d in findings.drives] + own:
            if id(cons) not in seen:
                seen.add(id(cons))
                findings.constructions.append(cons)
        findings.unfollowed = unfollowed
        return findings

    def _setup(self, flow: Flow, klass: TestClass | None) -> tuple[dict[str, list[Obj]],
                                                                    dict[str, Items]]:
        """``self.x`` / ``cls.x`` stand-ins ``setUpClass``/``setUp`` (pytest: ``setup_class``/
        ``setup_method``) leave behind; ``setUp`` sees what ``setUpClass`` left."""
        if klass is None:
            return {}, {}
        bound: dict[str, list[Obj]] = {}
        tuples: dict[str, Items] = {}
        for name in ("setUpClass", "setup_class", "setUp", "setup_method"):
            method = klass.methods.get(name)
            if method is None:
                continue
            result = flow.run(method, klass_methods=klass.methods, label=name,
                              bound=dict(bound) or None, tuples=dict(tuples) or None)
            for key, objs in result.bindings.items():
                if key.startswith("self."):
                    bound[key] = [o.fork() for o in objs]
            tuples.update((k, v) for k, v in result.tuples.items() if k.startswith("self."))
        return bound, tuples

    def _fixture(self, name: str, module: TestModule, flow: Flow, klass: TestClass | None,
                 conftests: Sequence[tuple[TestModule, Flow]], depth: int
                 ) -> tuple[list[Obj], Items | None]:
        """What fixture ``name`` yields: its stand-ins, and the tuple of them it returns."""
        if depth > 4:
            return [], None
        owners: list[tuple[TestModule, Flow, dict[str, FunctionNode]]] = []
        if klass is not None:
            owners.append((module, flow, klass.fixtures))
        owners.append((module, flow, module.fixtures))
        owners += [(m, f, m.fixtures) for m, f in conftests]
        for owner_module, owner_flow, fixtures in owners:
            func = fixtures.get(name)
            if func is None:
                continue
            bound: dict[str, list[Obj]] = {}
            tuples: dict[str, Items] = {}
            for param in _params(func, fixtures is not owner_module.fixtures):
                objs, items = self._fixture(param, owner_module, owner_flow, klass, conftests,
                                            depth + 1)
                if objs:
                    bound[param] = [o.fork() for o in objs]
                if items is not None:
                    tuples[param] = items
            result = owner_flow.run(func, bound=bound, label=f"fixture {name}", tuples=tuples)
            for obj in result.returned + [o for it in result.returned_items for os in it
                                          for o in os]:
                if f"fixture {name}" not in obj.cons.through:
                    obj.cons.through.append(f"fixture {name}")
            widths = {len(items) for items in result.returned_items}
            items_out: Items | None = None
            if len(widths) == 1:
                items_out = [[] for _ in range(widths.pop())]
                for items in result.returned_items:
                    for i, objs in enumerate(items):
                        items_out[i] += objs
            return result.returned, items_out
        return [], None


def _params(func: FunctionNode, is_method: bool) -> list[str]:
    names = [a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs]
    return names[1:] if is_method and names else names


def _drives(result: Result, node_id: str, rel: str) -> list[Drive]:
    out: list[Drive] = []
    seen: set[tuple] = set()
    for pending in result.drives:
        key = (id(pending.obj_cons), pending.method, pending.model_expr, pending.line,
               pending.argument,
               tuple(sorted((s.name, repr(s.value)) for s in pending.sets)),
               pending.args.env_key() if pending.args is not None else None)
        if key in seen:
            continue
        seen.add(key)
        out.append(Drive(pending.obj_cons, node_id, rel, pending.method, pending.model_expr,
                         pending.how, pending.file, pending.line, pending.sets, pending.args,
                         pending.argument, pending.receiver))
    return out


__all__ = ["Construction", "Finder", "test_files"]


def qualify_in(finder: Finder, rel: str, expr: str) -> str | None:
    """``expr`` as the imports of the test file ``rel`` bind it."""
    path = Path(rel) if Path(rel).is_absolute() else finder.rootdir / rel
    loaded = finder._modules.get(path.resolve())
    return loaded[0].qualify(expr) if loaded else None
