"""Reading fields: the writes of a self field (and the conditions each sits under), a
component's field (its writes, or the constructor keyword that sets it), and an object built
by a constructor read for one attribute. A mixin of :class:`~deskcheck.uniformity.trace.Tracer`
(which supplies ``trace``, ``_prefixed``, ``_hop``, ``_args``, ``_returns``, ``_fn_ctx``)."""

from __future__ import annotations

import ast

from deskcheck.static import (
    FieldWrite,
    Fn,
    argument_setting,
    field_writes,
    first_param,
    flow_facts,
    reraising,
)
from deskcheck.uniformity.leaves import Leaf, default_of
from deskcheck.uniformity.outside import outside_writes
from deskcheck.uniformity.positions import of_element, unpacked
from deskcheck.uniformity.reach import (
    DECIDING_GUARDS,
    Ctx,
    argument_for,
    caught_above,
    tested,
)
from deskcheck.uniformity.rules import builds_group

# the function class-level defaults are read in: one node for the process (flow facts are
# cached by id, so a node that could be freed and its id reused must never reach them)
_CLASS_BODY = ast.parse("def _class_body():\n    pass\n").body[0]
assert isinstance(_CLASS_BODY, ast.FunctionDef)

_LENGTH_FROM_ARG = {"extend", "update", "__iadd__"}  # mutators whose argument sets the length
_TESTED_GUARDS = DECIDING_GUARDS


class FieldReads:
    """Field, component and constructed-object reads of the input-set walk."""

    def _runs(self, write: FieldWrite) -> bool:
        """Can this write run when the roots run: a class default, a constructor, or a method
        the roots reach."""
        if write.function is None or write.function.name in ("__init__", "__post_init__"):
            return True
        if self._reached is None:
            self._reached = {id(c.fn.node) for c in self.reach.ctxs.values()}
        return id(write.function) in self._reached

    def write_ctx(self, model, write: FieldWrite) -> Ctx | None:
        if write.function is None:
            return None
        fn = Fn(write.function, f"{write.klass.qualname}.{write.function.name}", write.file,
                write.klass.module, model, write.klass, first_param(write.function))
        return self._fn_ctx(fn)

    def _field(self, ctx: Ctx, model, name: str, mode: str, depth: int, node: ast.AST
               ) -> list[Leaf]:
        if self.resolver.is_property(model, name):
            getter = self.resolver.method(model, name)
            if getter is not None:
                return self._returns(self._fn_ctx(getter), mode, depth,
                                     f"{ctx.fn.file}:{getattr(node, 'lineno', 0)} property "
                                     f"{name}")
        if self.resolver.method(model, name) is not None:
            return []  # a bound method, passed as a value
        writes = field_writes(model).get(name, [])
        outside = self._outside_writes(name)
        if not writes:
            built = self._constructed_field(model, name, mode, depth)
            if outside:
                return (built or []) + self._outside(outside, name, mode, depth)
            if built is not None:
                return built
            dynamic = self.resolver.method(model, "__getattr__")
            if dynamic is not None:  # no such attribute: __getattr__ answers the read
                return self._returns(self._fn_ctx(dynamic), mode, depth,
                                     f"{ctx.fn.file}:{getattr(node, 'lineno', 0)} "
                                     f"{model.name}.__getattr__({name!r})")
            return [Leaf(f"self.{name}", "unknown",
                         f"no write of self.{name} in {model.name}'s MRO",
                         witness=(self._hop(ctx, node, f"self.{name}"),))]
        out: list[Leaf] = []
        writes = [w for w in writes if self._runs(w)] or writes[:1]
        for write in writes[:24]:
            if self.sanctioned.get(f"{write.file}:{write.line}"):
                out.append(Leaf(f"self.{name}", "sanctioned",
                                self.sanctioned[f"{write.file}:{write.line}"],
                                witness=(f"{write.where} self.{name} (declared inline)",)))
                continue
            out += self._write(model, write, name, mode, depth)
        return out + self._outside(outside, name, mode, depth)

    def _outside_writes(self, name: str) -> list[tuple[Ctx, FieldWrite, str]]:
        """With ``outside_writes`` on: the writes of ``name`` through another object in the
        functions the roots reach (:mod:`~deskcheck.uniformity.outside`); else none."""
        if not self.outside_writes:
            return []
        if self._outside_index is None:
            self._outside_index = outside_writes(self.reach.ctxs.values())
        return self._outside_index.get(name, [])

    def _outside(self, found: list[tuple[Ctx, FieldWrite, str]], name: str, mode: str,
                 depth: int) -> list[Leaf]:
        out: list[Leaf] = []
        for wctx, write, receiver in found[:24]:
            out += self._write(None, write, name, mode, depth, wctx, receiver)
        return out

    def _constructed_field(self, model, name: str, mode: str, depth: int
                           ) -> list[Leaf] | None:
        """A field no code of the class writes (a dataclass field): what each construction
        of the class as another class's component passes for it (keyword or position);
        None when no construction found passes it."""
        init = self.resolver.method(model, "__init__")
        out: list[Leaf] | None = None
        for wctx, call in self._built_where(model):
            arg = argument_setting(model, init, call, name)
            if arg is not None:
                out = (out or []) + self._prefixed(
                    f"{wctx.fn.file}:{call.lineno} {ast.unparse(call.func)}({name}=...)",
                    self.trace(arg, wctx, mode, depth + 1))
        return out

    def _built_where(self, model) -> list[tuple[Ctx, ast.Call]]:
        """Where ``model``'s class is built: as a component of a class whose fields were
        resolved (``self.c = Cls(...)``), and inside its own factory methods
        (``return cls(...)``); each with the context it runs in."""
        out: list[tuple[Ctx, ast.Call]] = []
        for owner, write, call in self.resolver.constructions_of(model):
            wctx = self.write_ctx(owner, write)
            if wctx is not None:
                out.append((wctx, call))
        out += [(self._fn_ctx(fn), call) for fn, call in
                self.resolver.factory_constructions(model)]
        return out

    def construction_callers(self, fn: Fn) -> list[tuple[Ctx, ast.Call]]:
        """``fn`` (an ``__init__``) called where its class is built (:meth:`_built_where`):
        each such construction, registered as a caller."""
        known = self.reach.callers.setdefault(fn.key, [])
        if fn.model is not None:
            for wctx, call in self._built_where(fn.model):
                if not any(c is call for _x, c in known):
                    known.append((wctx, call))
        return known

    def _write(self, model, write: FieldWrite, name: str, mode: str, depth: int,
               wctx: Ctx | None = None, receiver: str = "") -> list[Leaf]:
        """One write of the field: its value and the conditions it sits under. ``wctx`` and
        ``receiver``: a write through another object (``receiver.name = v``) in that
        context; else a write of ``self.name`` in the class's own code."""
        hop = (f"{write.where} {receiver or 'self'}.{name} "
               f"{write.kind}{('.' + write.method) if write.method else ''}")
        if wctx is None:
            wctx = self.write_ctx(model, write)
        if wctx is None:  # a class-level default
            return self._prefixed(hop, self.trace(write.value, self._class_ctx(), mode, depth + 1)
                                  ) if write.value is not None and not isinstance(
                                      write.value, ast.Constant) else []
        superseded = self._buffer_after_write(f"{receiver or wctx.fn.self_name}.{name}",
                                              write.node, wctx) \
            if write.node is not None and write.kind in ("assign", "mutate") else None
        if superseded is not None:  # a collective overwrites it in place after this write
            return self._prefixed(hop, (superseded,))
        if write.kind == "element" and mode == "length":
            return []  # self.x[k].put(v): one element's content, not how many there are
        out: list[Leaf] = []
        value = write.value
        if write.kind == "mutate" and mode == "length" and write.method not in _LENGTH_FROM_ARG:
            value = None  # append(x), pop(), ...: the length follows the call, not x
        if write.kind == "item" and mode == "length":
            value = None  # d[k] = v: the length follows the keys and the write's conditions
        if write.kind != "delete" and value is not None:
            keep = mode if mode.startswith(("attr:", "lattr:")) and write.kind == "assign" \
                else "length" if mode == "length" and write.kind != "item" else "value"
            one = of_element(mode)  # an attribute of the elements: of what is put in
            if one is not None:
                keep = mode if write.method in ("extend", "extendleft") else one if write.kind == "item" or write.method in (
                    "append", "appendleft", "add", "insert", "put", "put_nowait",
                    "setdefault") else "value"
            if write.unpacked and write.kind == "assign":
                value, keep = unpacked(value, write.index, keep)
            out += self.trace(value, wctx, keep, depth + 1)
        if (receiver or not write.function.name == "__init__") \
                and not builds_group(write.value, wctx.flow.reaching):
            for g in wctx.flow.guards.get(id(write.node), ()):
                if reraising(g.node):  # cleanup before a re-raise: the raise is no decision
                    continue
                if self._crash_only(wctx, g):
                    continue
                if tested(g) and g.kind in _TESTED_GUARDS:
                    out += self._prefixed(f"{write.file}:{g.line} written when: {g.text}",
                                          tuple(self.guard_sources(g, wctx, depth)))
        # written only where a group has one rank (`if tp_size == 1: self.x = ...`): what it
        # holds, and whether it was written, reach a reader only there
        single = self._path_marks(wctx.flow.guards.get(id(write.node), ()), None, wctx)[0] \
            if write.node is not None else frozenset()
        return self._prefixed(hop, tuple(out), single)

    def _crash_only(self, wctx: Ctx, guard) -> bool:
        """Whether ``guard`` is an early exit whose every way out is a raise or an assert
        that nothing catches (not a try in the writer, not a caller's a few calls up): the
        ranks where it fails end their process, so it decides nothing of what the others
        hold."""
        raised = wctx.flow.raise_only(guard)
        return raised is not None and all(
            wctx.flow.catcher(tries, exc) is None and not caught_above(self.reach, wctx, exc)
            for exc, tries in raised)

    def _class_ctx(self) -> Ctx:
        """One context for class-level defaults (kept alive: flow facts are cached by id)."""
        if self._class_body is None:
            self._class_body = Ctx(Fn(_CLASS_BODY, "<class body>", "", ""), {},
                                   flow_facts(_CLASS_BODY))
        return self._class_body

    def _component_field(self, ctx: Ctx, owner_field: str, model, name: str, mode: str,
                         depth: int, node: ast.AST) -> list[Leaf]:
        """``self.<owner_field>.<name>``: the component's own writes, properties, or the
        constructor keyword that sets it (dataclass fields, ``__init__`` parameters)."""
        # register the construction sites as callers of the component's __init__
        init = self.resolver.method(model, "__init__")
        owner_writes = field_writes(ctx.fn.model).get(owner_field, [])
        constructions = [(w, w.value) for w in owner_writes if isinstance(w.value, ast.Call)]
        if init is not None:
            known = self.reach.callers.setdefault(init.key, [])
            for write, call in constructions:
                wctx = self.write_ctx(ctx.fn.model, write)
                if wctx is not None and not any(c is call for _x, c in known):
                    known.append((wctx, call))
        found = self.resolver.is_property(model, name) or name in field_writes(model) \
            or self.resolver.method(model, name) is not None
        if found:
            hop = self._hop(ctx, node, f"self.{owner_field}.{name}")
            fake = Ctx(Fn(init.node if init else ctx.fn.node, f"{model.name}", ctx.fn.file,
                          model.sources[0].module if model.sources else "", model,
                          model.sources[0] if model.sources else None, "self"), {},
                       flow_facts(init.node if init else ctx.fn.node))
            return self._prefixed(hop, tuple(self._field(fake, model, name, mode, depth + 1,
                                                         node)))
        out: list[Leaf] = []
        for write, call in constructions:
            for keyword in call.keywords:
                if keyword.arg == name:
                    wctx = self.write_ctx(ctx.fn.model, write)
                    if wctx is not None:
                        out += self._prefixed(f"{write.where} {ast.unparse(call.func)}({name}=...)",
                                              self.trace(keyword.value, wctx, mode, depth + 1))
        if out:
            return out
        return [Leaf(f"self.{owner_field}.{name}", "unknown",
                     f"{model.name} has no write of {name} and no constructor keyword {name}",
                     witness=(self._hop(ctx, node, f"self.{owner_field}.{name}"),))]

    def _object(self, klass, e: ast.Call, ctx: Ctx, mode: str, depth: int) -> list[Leaf]:
        """``Cls(...)``: in length mode the object simply exists (unless the class defines
        ``__len__``/``__bool__``); read for one attribute (``attr:x``) only what sets ``x``:
        its constructor keyword, or its writes in the class (``__init__`` parameters mapped
        to this call's arguments); otherwise the arguments."""
        model = self.resolver.model_for(klass)
        if mode == "length":
            if model.lookup("__len__") is None and model.lookup("__bool__") is None:
                return []
            return self._args(e, ctx, "length", depth)
        if not mode.startswith(("attr:", "lattr:")):
            return self._args(e, ctx, "value", depth)
        kind, chain = mode.split(":", 1)
        name, _dot, rest = chain.partition(".")
        sub = f"{kind}:{rest}" if rest else "length" if kind == "lattr" else "value"
        for keyword in e.keywords:
            if keyword.arg == name:
                return list(self.trace(keyword.value, ctx, sub, depth + 1))
        init = self.resolver.method(model, "__init__")
        if init is None:  # dataclass / NamedTuple: fields in annotation order
            fields = [s.target.id for s in klass.node.body
                      if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            if name in fields and fields.index(name) < len(e.args):
                return list(self.trace(e.args[fields.index(name)], ctx, sub, depth + 1))
        writes = field_writes(model).get(name, [])
        if not writes:
            if self.resolver.is_property(model, name) or model.lookup(name) is not None:
                return []  # a method or property of the class: code, not this call's data
            outside = self._outside_writes(name)
            if outside:
                return self._outside(outside, name, sub, depth)
            external = [k for k in model.mro if not hasattr(k, "members")
                        and k.qualname != "builtins.object"]
            if not external:
                return []  # the class never has this field: the path cannot be taken with it
            return [Leaf(f"{klass.name}.{name}", "unknown",
                         f"{klass.name} has no field {name}; its bases "
                         f"{', '.join(k.qualname for k in external)} are not read",
                         witness=(self._hop(ctx, e, f"{klass.name}(...).{name}"),))]
        out: list[Leaf] = []
        for write in writes[:24]:
            value = write.value
            if (init is not None and write.function is init.node and isinstance(value, ast.Name)
                    and value.id in flow_facts(init.node).params):
                arg = argument_for(init, e, value.id)
                if arg is None:
                    arg = default_of(init.node, value.id)
                if arg is not None:
                    out += self._prefixed(f"{write.where} self.{name} = {value.id}",
                                          self.trace(arg, ctx, sub, depth + 1))
                continue
            out += self._write(model, write, name, sub, depth)
        return out + self._outside(self._outside_writes(name), name, sub, depth)

