"""Where a hung rank's path left the others', from the hang diagnosis and the source alone.

When a rank skips a collective its peers wait in, the diagnosis knows where the waiting ranks
are (``model.py:88 in step``, from their traceback or faulthandler stack). The decisions that
sent the skipping rank elsewhere are in that function's source: the branches the call sits
inside, and the early exits (``if ...: return``) before it. Nothing was recorded, so each
rank's values are not known; ``--record`` (``DESKCHECK_RECORD=all``) records them.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


@dataclass(frozen=True)
class Gate:
    """One decision the collective's call depends on."""

    line: int
    text: str  # "if self.free >= need"
    role: str  # "it runs only inside this branch" / "an early exit before it"


def _site(call_site: str) -> tuple[str, int] | None:
    head = call_site.split(" in ", 1)[0]
    path, _, line = head.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else None


def _inner_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno > best.lineno:
                best = node
    return best


def _inside(body: Sequence[ast.stmt], line: int) -> bool:
    return bool(body) and body[0].lineno <= line <= max(s.end_lineno or s.lineno for s in body)


def _head(node: ast.If | ast.While | ast.For | ast.AsyncFor) -> str:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
    return f"{'if' if isinstance(node, ast.If) else 'while'} {ast.unparse(node.test)}"


def gates(call_site: str) -> list[Gate]:
    """The decisions of the function at ``call_site`` that its collective call depends on."""
    site = _site(call_site)
    if site is None:
        return []
    path, line = site
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
    except (OSError, SyntaxError, ValueError):
        return []
    function = _inner_function(tree, line)
    if function is None:
        return []
    found: list[Gate] = []
    for node, loop in _decisions(function):
        if _inside(node.body, line):
            found.append(Gate(node.lineno, _head(node), "it runs only inside this branch"))
        elif isinstance(node, ast.If) and _inside(node.orelse, line):
            found.append(Gate(node.lineno, _head(node), "it runs only when this is false"))
        elif isinstance(node, ast.If) and (node.end_lineno or node.lineno) < line \
                and node.body and isinstance(node.body[-1], _EXITS) \
                and _exits_past(node.body[-1], loop, line):
            found.append(Gate(node.lineno, _head(node), "an early exit before it"))
    return sorted(found, key=lambda g: g.line)


_Branching = ast.If | ast.While | ast.For | ast.AsyncFor
_Loop = ast.While | ast.For | ast.AsyncFor


def _decisions(function: ast.AST) -> list[tuple[_Branching, _Loop | None]]:
    """Every branch and loop of ``function`` (not of the functions defined inside it), each
    with the innermost loop that holds it."""
    out: list[tuple[_Branching, _Loop | None]] = []

    def visit(node: ast.AST, loop: _Loop | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                          | ast.ClassDef):
                continue  # its returns exit another function
            if isinstance(child, _Branching):
                out.append((child, loop))
            visit(child, child if isinstance(child, _Loop) else loop)

    visit(function, None)
    return out


def _exits_past(exit_stmt: ast.stmt, loop: _Loop | None, line: int) -> bool:
    """A return or raise leaves the function; a continue or break only leaves its loop, so it
    keeps a rank from the call only when that loop holds the call."""
    if isinstance(exit_stmt, ast.Return | ast.Raise):
        return True
    return loop is not None and loop.lineno <= line <= (loop.end_lineno or loop.lineno)


def _relative(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>\S+))?'
                    r'|File "(?P<ffile>[^"]+)", line (?P<fline>\d+) in (?P<ffunc>\S+)')


def _project_sites(text: str) -> list[str]:
    """``file:line in func`` of the project frames of a traceback or faulthandler dump,
    innermost first (the collective's wrapper, then its caller, ...)."""
    from deskcheck.suites.recorder import is_project_file

    sites = []
    for match in _FRAME.finditer(text):
        file = match["file"] or match["ffile"]
        line = match["line"] or match["fline"]
        func = match["func"] or match["ffunc"] or "?"
        if is_project_file(file):
            sites.append(f"{file}:{line} in {func}")
    if "Traceback (most recent call last)" in text:
        sites.reverse()  # a Python traceback lists the innermost frame last
    return sites


def _gates_up_the_stack(first_site: str, text: str) -> tuple[str, list[Gate]]:
    """The innermost frame whose function has a decision the call depends on."""
    for site in [first_site, *[s for s in _project_sites(text) if s != first_site]]:
        found = gates(site)
        if found:
            return site, found
    return first_site, []


def gate_note(outcomes: Sequence[Any]) -> str | None:
    """The note for a rank timeout: where the waiting ranks wait, and the decisions that gate
    that call (in its function, else in the nearest caller that has one); None when no rank
    waits in a collective or no decision gates it."""
    waiting = [o for o in outcomes if o.failure is not None and o.failure.call_site]
    if not waiting:
        from deskcheck.suites._stacks import collective_in_stack

        # a hung rank, or one still reporting its own timeout at the deadline (its failing
        # note has no call site): where it waits is read from the stack dumped then
        sites = [(o, collective_in_stack(o.stack)) for o in outcomes
                 if o.stack and (o.hung or o.failure is not None)]
        waiting_sites = [(o, s) for o, (_name, s) in sites if s]
    else:
        waiting_sites = [(o, o.failure.call_site) for o in waiting]
    if not waiting_sites:
        return None
    first, call_site = waiting_sites[0]
    text = (first.failure.traceback if first.failure is not None else "") or first.stack
    call_site, found = _gates_up_the_stack(call_site, text or "")
    if not found:
        return None
    site = _site(call_site)
    assert site is not None
    path, line = site
    function = call_site.split(" in ", 1)[1] if " in " in call_site else "?"
    ranks = ", ".join(str(o.rank) for o, _s in waiting_sites)
    others = ", ".join(str(o.rank) for o in outcomes if o not in [w for w, _s in waiting_sites])
    lines = [f"where the paths parted: rank(s) {ranks} waited in a collective reached from "
             f"{_relative(path)}:{line} in {function}; rank(s) {others} did not get there. "
             "It depends on:"]
    lines += [f"  {_relative(path)}:{g.line}: {g.text}  ({g.role})" for g in found]
    lines.append("  each rank's way and values: rerun with --record (DESKCHECK_RECORD=all)")
    if os.environ.get("DESKCHECK_MUTANT"):
        lines.append("  (read from the file on disk: under a mutant the code that ran may "
                     "differ there; --record shows what ran)")
    return "\n".join(lines)


def note_gate(exc: BaseException) -> None:
    """Add :func:`gate_note` to a rank timeout that carries its ranks' outcomes."""
    from deskcheck.errors import RankTimeoutError

    outcomes = getattr(exc, "outcomes", None)
    if isinstance(exc, RankTimeoutError) and outcomes:
        note = gate_note(outcomes)
        if note:
            exc.add_note(note)
