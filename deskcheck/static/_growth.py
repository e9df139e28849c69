"""Grow-only locals: an empty list, set or dict literal that the function only reads and adds
to (``to_del = []`` ... ``to_del.append(i)`` ... ``for i in reversed(to_del):``).

Such a local is not one known value (``_constants``), but whether it is empty when read
follows from where it grows: it holds something once one of its growth sites ran, and stays
empty when none can run. A *definite* site is a statement ``name.append(x)`` (``insert``, a
set's ``add``, a dict's ``d[k] = v`` or ``setdefault``) reached through ``if`` arms and
``for`` bodies only (``with`` and a ``try`` without handlers are transparent), none of whose
enclosing loops holds a ``break`` or ``continue``: it runs on the first pass of every loop
around it whose iterable is not empty, wherever its ``if`` tests hold. A change that may add
nothing (``extend``, ``update``, an augmented item store, a growth inside a nested def or
lambda, under ``while``, ``try`` with handlers, ``match``, a ``for ... else``) is a *maybe*
site: it never empties the local, but it stops a proof that the local stays empty.
Any other load (``pop``, ``remove``, ``clear``, an item delete, passing it to a function, an
alias) makes the local no grow-only local at all.

The sites' guards are decided where the local is read (``_conditions``), from that
condition's constants and env; a guard that reads the variable of a loop around the site is
decided pass by pass when that loop's items are known values (the site runs once some pass
holds every guard inside), else it stays undecided."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

_DEFINITE = {"list": ("append", "insert"), "set": ("add",), "dict": ("setdefault",)}
_MAYBE = {"list": ("extend",), "set": ("update",), "dict": ("update",)}
# a load that only reads (as ``_constants._only_read`` decides) is passed in by the caller


@dataclass(frozen=True)
class Guard:
    """One condition a growth site sits under: ``if`` (its test, or its negation in the
    ``else``) or ``for`` (its iterable not empty)."""

    kind: str
    test: ast.expr
    negated: bool = False
    target: ast.expr | None = None  # a ``for``: the names each pass binds


@dataclass(frozen=True)
class Site:
    line: int
    guards: tuple[Guard, ...]
    # names its guards test that are bound again further down: where the local is read they
    # may hold another value, so the guards are read without what is known of them there
    rebound: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Grows:
    """A grow-only local: its literal's length, the definite sites, whether any other change
    may add to it, and why it is not one known value (the reason an undecided read shows)."""

    name: str
    initial: int
    sites: tuple[Site, ...]
    maybe: bool
    why: str

    def __repr__(self) -> str:  # an Env key: the same local in the same function alike
        return f"Grows({self.name!r}, {self.initial}, {[s.line for s in self.sites]})"


def grow_only(name: str, kind: str, initial: int, loads: Iterable[ast.Name],
              parents: dict[int, ast.AST], only_read, why: str,
              stores: dict[str, list[ast.AST]] | None = None) -> Grows | None:
    """``name`` as a grow-only local, or None. ``loads``: every load of it in the function
    (nested defs included); ``only_read(load, parents)``: whether a load only reads it;
    ``kind``: list, set or dict (the literal it was bound to); ``stores``: where each local
    name of the function is bound (``Site.rebound``)."""
    sites: list[Site] = []
    maybe = False
    for load in loads:
        if only_read(load, parents):
            continue
        parent = parents.get(id(load))
        call = parents.get(id(parent)) if isinstance(parent, ast.Attribute) else None
        if isinstance(parent, ast.Attribute) and isinstance(call, ast.Call) \
                and call.func is parent:
            if parent.attr in _MAYBE[kind]:
                maybe = True
                continue
            if parent.attr not in _DEFINITE[kind]:
                return None  # pop, remove, clear, ... or any other method
            grower: ast.AST = call
        elif kind == "dict" and isinstance(parent, ast.Subscript) \
                and isinstance(parent.ctx, ast.Store):
            statement = parents.get(id(parent))
            if isinstance(statement, ast.AugAssign):
                maybe = True
                continue
            if not (isinstance(statement, ast.Assign) and statement.targets == [parent]):
                return None
            grower = statement
        else:
            return None
        site = _site(grower, parents)
        if site is not None:
            site = Site(site.line, site.guards, _rebound_after(site, stores or {}))
        if site is None:
            maybe = True  # it may run without its guards deciding it
        else:
            sites.append(site)
    return Grows(name, initial, tuple(sites), maybe, why)


def _site(node: ast.AST, parents: dict[int, ast.AST]) -> Site | None:
    """The guards of a growth that runs as a statement of its own, or None where it may not
    run though its guards hold (see the module docstring)."""
    statement = node if isinstance(node, ast.stmt) else parents.get(id(node))
    if not isinstance(statement, ast.Expr | ast.Assign) or (
            isinstance(statement, ast.Expr) and statement.value is not node):
        return None
    guards: list[Guard] = []
    child: ast.AST = statement
    parent = parents.get(id(child))
    while parent is not None:  # the body's own statements have none: the function's
        if isinstance(parent, ast.If):
            if child in parent.body:
                guards.append(Guard("if", parent.test))
            elif child in parent.orelse:
                guards.append(Guard("if", parent.test, True))
            else:
                return None
        elif isinstance(parent, ast.For | ast.AsyncFor):
            if child not in parent.body or _skips(parent):
                return None
            guards.append(Guard("for", parent.iter, target=parent.target))
        elif isinstance(parent, ast.With | ast.AsyncWith):
            pass
        elif isinstance(parent, ast.Try | ast.TryStar):
            if child not in parent.finalbody and (parent.handlers or child not in parent.body):
                return None
        else:  # while, match, a nested def or lambda, a class body, an expression
            return None
        child, parent = parent, parents.get(id(parent))
    return Site(getattr(statement, "lineno", 0), tuple(reversed(guards)))


def _rebound_after(site: Site, stores: dict[str, list[ast.AST]]) -> frozenset[str]:
    """The names a guard of ``site`` tests that are bound again below the site (``req =
    self.queue.pop(i)`` after the loop whose ``req`` the guard reads)."""
    names = {n.id for g in site.guards for n in ast.walk(g.test) if isinstance(n, ast.Name)}
    return frozenset(name for name in names
                     if any(getattr(node, "lineno", 0) > site.line
                            for node in stores.get(name, ())))


def _skips(loop: ast.For | ast.AsyncFor) -> bool:
    """Whether the loop's body holds a ``break`` or ``continue`` of its own."""
    todo: list[ast.AST] = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            todo += node.orelse  # a nested loop's break is its own; its else is not
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        todo += ast.iter_child_nodes(node)
    return False
