"""The two sides of one publish: ``if leader: msgs = drain(); pub.send(msgs) else: msgs =
sub.recv()``, where ``sub.recv`` is declared agreed by ``pub.send`` (an ``agreed`` call entry
naming that collective). After the ``if`` every rank holds what the leader sent, so the
condition choosing the side does not decide the value (the ``if`` is judged on its own,
where it gates the send).

The leader's side counts as sent when the send is a site of that collective at the top of
its arm, reads the name in its arguments, and no definition of the name in that arm comes
after it; the other side must rebind the name at its top from values all made by that
collective (a receive declared agreed by it). Anything else keeps the selection an input."""

from __future__ import annotations

import ast
from typing import Any

from deskcheck.static import Guard
from deskcheck.uniformity.leaves import Leaf
from deskcheck.uniformity.rules import matches


def published_value(name: str, reaching: tuple, values: list[tuple[frozenset[str], list[Leaf]]],
                    ctx: Any, made_by: dict[str, str]) -> list[Leaf] | None:
    """The leaves of a read of ``name`` whose reaching definitions are the two sides of one
    publish (``made_by``: an agreed call's reason -> the collective it names), else None."""
    if not made_by or len(reaching) < 2:
        return None
    for node in _selecting_ifs(reaching):
        for sent_side in (False, True):
            found = _sides(name, reaching, values, ctx, made_by, node, sent_side)
            if found is not None:
                return found
    return None


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


def _sides(name: str, reaching: tuple, values: list, ctx: Any, made_by: dict[str, str],
           node: ast.If, sent_side: bool) -> list[Leaf] | None:
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
        if not leaves:
            return None  # a constant: not what the publish delivered
        # each leaf's collective ("" for one no agreed call made): one, a real one, or none
        collective.update(made_by.get(leaf.reason, "") if leaf.category == "sanctioned"
                          else "" for leaf in leaves)
        received += leaves
        kills = kills or (d.kind == "assign" and len(d.guards) == len(outer) + 1)
    if len(collective) != 1 or not kills or above is None:
        return None
    made = collective.pop()
    send = _send_at_top(name, ctx, node, sent_side, above, made)
    if send is None or any(line >= send.lineno for line in sent_lines):
        return None
    reason = next(leaf.reason for leaf in received if made_by.get(leaf.reason) == made)
    hop = (f"{ctx.fn.file}:{send.lineno} {name} sent by {made}: what the other side "
           f"receives")
    return [*received, Leaf(f"{name} (sent by {made})", "sanctioned", reason, witness=(hop,))]


def _send_at_top(name: str, ctx: Any, node: ast.If, sent_side: bool,
                 above: tuple[Guard, ...], made: str) -> ast.Call | None:
    """A site of ``made`` at the top of the sending arm whose arguments read ``name``."""
    for call, site in ctx.sites:
        if matches(site.call, (made,)) is None:
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
        if any(isinstance(n, ast.Name) and n.id == name for a in args for n in ast.walk(a)):
            return call
    return None
