"""The can-fail arm's plant: a read of a name that does not exist, put (in memory only) as the
first statement of a production method, returned as a source overlay."""

from __future__ import annotations

import ast
import secrets
from pathlib import Path

from deskcheck.static import ClassModel


def plant_read(model: ClassModel, root: str) -> tuple[str, dict[str, str]]:
    """(canary name, {file: text with ``self.<canary>`` planted into ``root``})."""
    klass, member = model.require_root(root)
    node = member.fget if member.fget is not None else member.fset
    assert node is not None
    node = klass.function(node)
    canary = f"_deskcheck_canary_{secrets.token_hex(4)}"
    params = node.args.posonlyargs + node.args.args
    self_name = params[0].arg if params else "self"
    body = node.body
    first = body[0]
    if (len(body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        first = body[1]  # after the docstring
    lines = Path(klass.file).read_text(encoding="utf-8").splitlines(keepends=True)
    index = first.lineno - 1
    indent = " " * first.col_offset
    if first.lineno == node.lineno:  # one-line def: `def f(self): return 1`
        raise ValueError(f"cannot plant into the one-line body of {klass.name}.{root}")
    lines.insert(index, f"{indent}{self_name}.{canary}\n")
    return canary, {klass.file: "".join(lines)}
