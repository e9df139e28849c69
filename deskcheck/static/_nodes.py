"""Every node under a node, walked once: the analyses each walk a function's tree for their
own kind of node (imports, field writes, annotated assignments, statement calls, tests), and
on a large scheduler those walks were a tenth of the audit.

A parsed tree is never changed once the model holds it, so the nodes ``ast.walk`` yields
(breadth first, the node itself first) are kept on the node after the first walk.
"""

from __future__ import annotations

import ast

_KEPT = "_deskcheck_subnodes"


def subnodes(node: ast.AST) -> tuple[ast.AST, ...]:
    """``tuple(ast.walk(node))``, walked once per node. Only positioned nodes keep theirs:
    ``ast.Load()`` and the other context and operator nodes are one object shared by every
    tree."""
    found = node.__dict__.get(_KEPT)
    if found is None:
        found = _walk(node)
        if "lineno" in node._attributes or isinstance(node, ast.mod):
            setattr(node, _KEPT, found)
    return found


def _walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.walk``'s order (breadth first, children in field order) without its generators."""
    out = [node]
    position = 0
    while position < len(out):
        at = out[position]
        position += 1
        for name in at._fields:
            value = getattr(at, name, None)
            if isinstance(value, list):
                out += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                out.append(value)
    return tuple(out)
