"""Communication buffers held in fields: ``self.buf.fill_(n); dist.all_reduce(self.buf);
m = self.buf.item()`` reads what the collective wrote in place, agreed over its group. Found
on lightllm's DP backend (``_dp_all_reduce_decode_req_num``): only locals were followed
through an in-place collective, so a persistent buffer's read was a call on an unresolved
receiver (UNKNOWN). The collective must run before the read on every path through the
function (its statement sits in a block that encloses the read, earlier) and nothing may
write the buffer between them (an assignment, an item or attribute store, an in-place
method ``buf.add_(...)``, or passing it to another call). A field a method writes and then
hands to an in-place collective that runs after the write whenever the write runs, with
nothing writing it after (``self.all_vals = torch.tensor([val] * n);
dist.all_gather_into_tensor(self.all_vals, ...)``, lmdeploy's ``DistGatherScalar``), holds
what the collective made wherever it is read after that method."""

from __future__ import annotations

import ast

from deskcheck.static import subnodes

_Blocks = tuple[tuple[int, str], ...]  # (id of the owning statement, its block field)


def self_chain(expr: ast.expr, self_name: str) -> str | None:
    """``self.a`` / ``self.a.b`` as written, else None."""
    node = expr
    if not isinstance(node, ast.Attribute):
        return None
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Name) and node.id == self_name:
        return ast.unparse(expr)
    return None


def enclosing_blocks(fn: ast.AST) -> dict[int, _Blocks]:
    """For every node of ``fn``: the blocks that enclose it, outermost first."""
    out: dict[int, _Blocks] = {}

    def visit(node: ast.AST, blocks: _Blocks) -> None:
        out[id(node)] = blocks
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                inner = blocks + ((id(node), name),) if value and isinstance(value[0], ast.stmt) \
                    else blocks
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item, inner)
            elif isinstance(value, ast.AST):
                visit(value, blocks)

    visit(fn, ())
    return out


def dominates(call: ast.AST, read: ast.AST, blocks: dict[int, _Blocks]) -> bool:
    """Whether ``call`` runs before ``read`` whenever ``read`` runs: earlier in the text, in
    a block that encloses the read (not under a branch, loop or handler the read is not in)."""
    if (call.lineno, call.col_offset) >= (read.lineno, read.col_offset):
        return False
    outer, inner = blocks.get(id(call)), blocks.get(id(read))
    return outer is not None and inner is not None and inner[:len(outer)] == outer


def follows_every_run(call: ast.AST, write: ast.AST, blocks: dict[int, _Blocks]) -> bool:
    """Whether ``call`` runs after ``write`` whenever ``write`` runs: later in the text, in a
    block that encloses the write (``self.buf = t`` under a branch, the collective after it)."""
    if (call.lineno, call.col_offset) <= (write.lineno, write.col_offset):
        return False
    outer, inner = blocks.get(id(call)), blocks.get(id(write))
    return outer is not None and inner is not None and inner[:len(outer)] == outer


def written_between(fn: ast.AST, chain: str, after: ast.AST, before: ast.AST | None,
                    collective: ast.Call) -> bool:
    """Whether code between the collective and the read (None: the function's end) may
    write the buffer ``chain``."""
    start = (after.lineno, after.col_offset)
    end = (before.lineno, before.col_offset) if before is not None else (1 << 30, 0)
    for node in subnodes(fn):
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if not start < where < end or node is collective:
            continue
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_touches(t, chain) for t in targets):
                return True
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and ast.unparse(func.value) == chain \
                    and func.attr.endswith("_"):
                return True  # torch's in-place methods: fill_, copy_, add_, zero_
            if any(_touches(a, chain) for a in (*node.args, *(k.value for k in node.keywords))):
                return True  # handed to another call, which may write it
    return False


def _touches(expr: ast.expr, chain: str) -> bool:
    text = ast.unparse(expr.value if isinstance(expr, ast.Starred) else expr)
    return text == chain or text.startswith((chain + "[", chain + "."))
