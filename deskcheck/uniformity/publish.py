"""The two sides of one publish: ``if leader: msgs = drain(); pub.send(msgs) else: msgs =
sub.recv()``, where ``sub.recv`` is declared agreed by ``pub.send`` (an ``agreed`` call entry
naming that collective). After the ``if`` every rank holds what the leader sent, so the
condition choosing the side does not decide the value (the ``if`` is judged on its own,
where it gates the send). The same holds for a function's two returns, one per side.

The leader's side counts as sent when the send is a site of that collective at the top of
its arm, reads the name in its arguments, and no definition of the name in that arm comes
after it; the other side must rebind the name at its top to that receive, unchanged (the
call declared agreed by it, through locals, constant subscripts and ``list()``). Anything
else keeps the selection an input."""

from __future__ import annotations

import ast
from typing import Any

from deskcheck.static import Guard, subnodes
from deskcheck.uniformity.leaves import Leaf
from deskcheck.uniformity.rules import hop_text, matches


def published_value(name: str, reaching: tuple, values: list[tuple[frozenset[str], list[Leaf]]],
                    ctx: Any, agreed: dict[str, str], made_by: dict[str, str]
                    ) -> list[Leaf] | None:
    """The leaves of a read of ``name`` whose reaching definitions are the two sides of one
    publish (``agreed``: a call pattern declared agreed -> its reason; ``made_by``: that
    reason -> the collective the declaration names), else None."""
    if not made_by or len(reaching) < 2:
        return None
    for node in _selecting_ifs(reaching):
        for sent_side in (False, True):
            found = _sides(name, reaching, values, ctx, agreed, made_by, node, sent_side)
            if found is not None:
                return found
    return None


def published_return(returns: list[tuple[ast.expr | None, tuple]], ctx: Any,
                     agreed: dict[str, str], made_by: dict[str, str]
                     ) -> tuple[ast.expr, Leaf] | None:
    """The same two sides as returns (vLLM's ``MessageQueue.broadcast_object``: ``if
    writer: enqueue(obj); return obj else: return dequeue()``): (the receiving return's
    value, the sending return's leaf) when the function's two returns are them, else None."""
    if not made_by or len(returns) != 2:
        return None
    (first, first_guards), (second, second_guards) = (
        (value, _without_own_exit(guards)) for value, guards in returns)
    if not first_guards or not second_guards or first_guards[:-1] != second_guards[:-1]:
        return None
    arm, other = first_guards[-1], second_guards[-1]
    if arm.kind != "if" or other.kind != "if" or arm.node is not other.node \
            or arm.negated == other.negated:
        return None
    for (sent, sent_arm), received in (((first, arm), second), ((second, other), first)):
        made = _received_from(received, ctx, agreed, made_by)
        if made is None or not isinstance(sent, ast.Name):
            continue
        send = _send_at_top(sent.id, ctx, sent_arm.node, sent_arm.negated,
                            first_guards[:-1], made)
        reaching = ctx.flow.reaching.get(id(sent), ())
        if send is not None and reaching and all(d.line < send.lineno for d, _f in reaching):
            return received, sent_leaf(sent.id, made, made_by, ctx.fn.file, send)
    return None


def _without_own_exit(guards: tuple) -> tuple:
    """A return's guards less the early exit of the other arm's return (``else: return b``
    runs past ``if w: return a``: that exit's test is the if's own); a return after the
    ``if`` (no ``else``) is on its false side."""
    tests = [g.test for g in guards if g.kind == "if"]
    kept = tuple(g for g in guards if g.kind != "exit" or all(g.test is not t for t in tests))
    last = kept[-1] if kept else None
    if last is not None and last.kind == "exit" and isinstance(last.node, ast.If) \
            and last.test is last.node.test:
        kept = (*kept[:-1], Guard("if", last.line, last.test, last.negated, node=last.node))
    return kept


def sent_leaf(name: str, made: str, made_by: dict[str, str], file: str,
              send: ast.Call) -> Leaf:
    """What the sending side holds: the value the other side receives."""
    reason = next(why for why, by in made_by.items() if by == made)
    hop = f"{file}:{send.lineno} {name} sent by {made}: what the other side receives"
    return Leaf(f"{name} (sent by {made})", "sanctioned", reason, witness=(hop,))


def _selecting_ifs(reaching: tuple) -> list[ast.If]:
    seen: dict[int, ast.If] = {}
    for d, _facts in reaching:
        for g in d.guards:
            if g.kind == "if" and isinstance(g.node, ast.If):
                seen.setdefault(id(g.node), g.node)
    return list(seen.values())


def _arm_of(d: Any, node: ast.If) -> tuple[bool | None, tuple[Guard, ...]]:
    """(which arm of ``node`` ``d`` runs in: its guard's ``negated``, or None outside it;
    the guards above that arm)."""
    for i, g in enumerate(d.guards):
        if g.node is node and g.kind == "if":
            return g.negated, d.guards[:i]
    return None, ()


def _sides(name: str, reaching: tuple, values: list, ctx: Any, agreed: dict[str, str],
           made_by: dict[str, str], node: ast.If, sent_side: bool) -> list[Leaf] | None:
    received: list[Leaf] = []
    collective: set[str] = set()
    sent_lines: list[int] = []
    above: tuple[Guard, ...] | None = None
    kills = False
    for (d, _facts), (single, leaves) in zip(reaching, values, strict=True):
        arm, outer = _arm_of(d, node)
        if arm is None:
            if d.line >= node.lineno:
                return None  # a definition after the if: not one of the two sides
            continue  # bound before the if: reaches only through a side that keeps it
        if above is None:
            above = outer
        elif outer != above:
            return None
        if arm == sent_side:
            sent_lines.append(d.line)
            continue
        if single:
            received += leaves
            continue
        made = _received_from(d.value, ctx, agreed, made_by) if d.kind == "assign" else None
        if made is None:
            return None  # filled, computed, or received from no declared publish
        collective.add(made)
        received += leaves
        kills = kills or len(d.guards) == len(outer) + 1
    if len(collective) != 1 or not kills or above is None:
        return None
    made = collective.pop()
    send = _send_at_top(name, ctx, node, sent_side, above, made)
    if send is None or any(line >= send.lineno for line in sent_lines):
        return None
    return [*received, sent_leaf(name, made, made_by, ctx.fn.file, send)]


def _received_from(value: ast.expr | None, ctx: Any, agreed: dict[str, str],
                   made_by: dict[str, str]) -> str | None:
    """The collective whose publish ``value`` is, unchanged: a call declared agreed by it,
    through locals bound once, constant subscripts (``frames[1:]``, a header dropped) and
    ``list()``/``tuple()``; else None (``recv() + extra`` is not what was sent)."""
    expr = value
    for _hop in range(8):
        if isinstance(expr, ast.Subscript) and _constant(expr.slice):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id in ("list", "tuple") and len(expr.args) == 1 \
                and not expr.keywords and not ctx.flow.reaching.get(id(expr.func)):
            expr = expr.args[0]
        elif isinstance(expr, ast.Name):
            reaching = ctx.flow.reaching.get(id(expr), ())
            if len(reaching) != 1:
                return None
            d = reaching[0][0]
            if d.kind != "assign" or d.index is not None or d.unpacked:
                return None
            expr = d.value
        elif isinstance(expr, ast.Call):
            pattern = matches(hop_text(expr.func), tuple(agreed))
            return made_by.get(agreed[pattern]) if pattern is not None else None
        else:
            return None
    return None


def _constant(index: ast.expr) -> bool:
    if isinstance(index, ast.Slice):
        return all(part is None or _constant(part) for part in
                   (index.lower, index.upper, index.step))
    if isinstance(index, ast.UnaryOp):
        return _constant(index.operand)
    return isinstance(index, ast.Constant)


def _send_at_top(name: str, ctx: Any, node: ast.If, sent_side: bool,
                 above: tuple[Guard, ...], made: str) -> ast.Call | None:
    """A call of ``made`` at the top of the sending arm whose arguments read ``name`` (the
    function's calls, not its sites: a return summary's context lists none)."""
    for call in ctx.flow.calls:
        if matches(hop_text(call.func), (made,)) is None:
            continue
        guards = tuple(ctx.flow.guards.get(id(call), ()))
        if len(guards) <= len(above) or guards[:len(above)] != above:
            continue
        arm = guards[len(above)]
        if arm.node is not node or arm.kind != "if" or arm.negated != sent_side:
            continue
        if len(guards) > len(above) + 1:
            continue  # under a further condition of its arm: not on every path through it
        args = [*call.args, *(k.value for k in call.keywords)]
        if any(isinstance(n, ast.Name) and n.id == name for a in args for n in subnodes(a)):
            return call
    return None
