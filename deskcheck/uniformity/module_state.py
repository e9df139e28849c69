"""Module-level state: a name bound at module level that functions write at run time
(``global _LAST; _LAST = time.monotonic()``, ``_STATE["t"] = ...``, ``_QUEUE.append(x)``)
holds what they write, not only its value at import. Found probing the walk with the shapes
real schedulers use for process-wide state: such a name was read as replicated code, so a
clock kept in a module global was UNIFORM (a silent miss). The whole module is scanned once
(and recorded as read, for the audit cache); only names bound by a module-level assignment
count (functions, classes and imports are code)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from deskcheck.static import ALL, note_read, subnodes

_FILLING = frozenset({"append", "extend", "insert", "add", "update", "setdefault",
                      "appendleft", "extendleft", "push", "put", "put_nowait"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class StateWrite:
    """One run-time write of a module-level name: ``kind`` assign (under ``global``), item
    (``X[k] = v``), attr (``X.a = v``) or mutate (``X.append(v)``)."""

    name: str
    function: ast.FunctionDef | ast.AsyncFunctionDef
    qualname: str
    stmt: ast.stmt
    value: ast.expr | None
    kind: str


def module_names(tree: ast.Module) -> set[str]:
    """Names bound by a module-level assignment (``_STATE = {}``, ``_LAST: float = 0.0``)."""
    out: set[str] = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else []
        for target in targets:
            for node in subnodes(target):
                if isinstance(node, ast.Name):
                    out.add(node.id)
    return out


STATE_READ = "state:"  # a read noted for the cache: "these module-level names are unwritten"


def may_write_any(data: bytes, names: frozenset[str] | set[str]) -> bool:
    """Whether ``data`` holds text that can write one of ``names`` (the filter
    ``state_writes`` reads a file with before parsing its bodies)."""
    return bool(_written_in(data.decode("utf-8", "replace"), names))


def _written_in(text: str, names) -> set[str]:
    """The names of ``names`` that ``text`` can write: declared ``global``, an item or
    attribute of it assigned, or a filling method called on it (``logger.info(...)`` is none
    of these). One pass over the text for all of them: a search per name rescanned a
    scheduler module dozens of times."""
    names = set(names)
    if not names:
        return set()
    found: set[str] = set()
    for declared in _GLOBAL.finditer(text):  # `global a, b`: each word after it
        found |= names & set(_WORD.findall(declared.group(1)))
    either = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    # a lookahead: a match inside another's text (`_A[_B[k]] = v`) is found too
    for write in re.finditer(rf"(?=\b({either}){_WRITE_TAIL})", text):
        found.add(write.group(1))
    return found


def state_writes(parsed, names: set[str]) -> dict[str, list[StateWrite]]:
    """Per module-level name in ``names``: every write of it inside the module's functions
    (methods included). Its text is searched first: where no name can be written, the audit
    cache is told which names were found unwritten (an edit that keeps them so still reads
    alike); otherwise the whole file is read (noted as such)."""
    wanted = _written_in(parsed.data.decode("utf-8", "replace"), names)
    if not wanted:
        note_read(parsed.path, -1, STATE_READ + ",".join(sorted(names)))
        return {}
    note_read(parsed.path, ALL)
    out: dict[str, list[StateWrite]] = {}
    for fn, qualname in _functions(parsed.full().tree):
        for write in _writes_in(fn, qualname, wanted):
            out.setdefault(write.name, []).append(write)
    return out


# what can write a module-level name, found by text before any body is parsed
_GLOBAL = re.compile(r"\bglobal\b([^\n]*)")
_WORD = re.compile(r"\w+")
_WRITE_TAIL = (r"(?:\s*\[[^\n]*\]\s*[-+*/|&]?=(?!=)|\.\w+\s*[-+*/|&]?=(?!=)|\.(?:"
               + "|".join(sorted(_FILLING)) + r")\()")


def _functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    out: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []
    todo: list[tuple[ast.AST, str]] = [(node, "") for node in tree.body]
    while todo:
        node, prefix = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((node, prefix + node.name))
            todo += [(child, f"{prefix}{node.name}.") for child in node.body]
        elif isinstance(node, ast.ClassDef):
            todo += [(child, f"{prefix}{node.name}.") for child in node.body]
        elif isinstance(node, ast.stmt):
            todo += [(child, prefix) for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.stmt)]
    return out


def _own_statements(fn: ast.AST) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    todo = list(getattr(fn, "body", []))
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue
        out.append(node)
        todo += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
    return out


def _writes_in(fn, qualname: str, wanted: set[str]) -> list[StateWrite]:
    stmts = _own_statements(fn)
    declared = {n for s in stmts if isinstance(s, ast.Global) for n in s.names}
    local = {a.arg for a in subnodes(fn.args) if isinstance(a, ast.arg)}
    for s in stmts:
        for target in _targets(s):
            if isinstance(target, ast.Name) and target.id not in declared:
                local.add(target.id)
    out: list[StateWrite] = []
    for s in stmts:
        value = getattr(s, "value", None)
        for target in _targets(s):
            if isinstance(target, ast.Name) and target.id in declared & wanted:
                out.append(StateWrite(target.id, fn, qualname, s, value, "assign"))
            elif isinstance(target, ast.Subscript | ast.Attribute):
                head = _head(target)
                if head is not None and head in wanted and head not in local:
                    kind = "item" if isinstance(target, ast.Subscript) else "attr"
                    out.append(StateWrite(head, fn, qualname, s, value, kind))
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            func = s.value.func
            if isinstance(func, ast.Attribute) and func.attr in _FILLING:
                head = _head(func.value)
                args = [*s.value.args, *(k.value for k in s.value.keywords)]
                if head is not None and head in wanted and head not in local and args:
                    out.append(StateWrite(head, fn, qualname, s, args[-1], "mutate"))
    return out


def _targets(s: ast.stmt) -> list[ast.expr]:
    if isinstance(s, ast.Assign):
        raw = list(s.targets)
    elif isinstance(s, ast.AugAssign | ast.AnnAssign):
        raw = [s.target]
    elif isinstance(s, ast.For | ast.AsyncFor):
        raw = [s.target]
    elif isinstance(s, ast.With | ast.AsyncWith):
        raw = [i.optional_vars for i in s.items if i.optional_vars is not None]
    else:
        return []
    return flat_targets(raw)


def flat_targets(targets: list[ast.expr]) -> list[ast.expr]:
    """Assignment targets with tuple and list targets unpacked (a starred one's name)."""
    raw, out = list(targets), []
    while raw:
        t = raw.pop()
        if isinstance(t, ast.Tuple | ast.List):
            raw += [e.value if isinstance(e, ast.Starred) else e for e in t.elts]
        else:
            out.append(t)
    return out


def _head(expr: ast.expr) -> str | None:
    while isinstance(expr, ast.Subscript | ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None
