"""What the flow walk holds: a stand-in as one scope sees it (:class:`Obj`), the drives and
unfollowed calls a body yields (:class:`Result`), and one body's names (:class:`Scope`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from deskcheck.drift_guard.standins.module import FunctionNode
from deskcheck.drift_guard.standins.records import (
    NAMESPACE,
    PLAIN,
    UNKNOWN,
    Construction,
    SetName,
)
from deskcheck.static import ELEMENT, CallArgs

_MAX_NESTING = 4  # namespaces inside namespaces listed this deep (req.kv.pool.size)
_OPEN = ("__getattr__", "__getattribute__")  # a class with these provides any name


@dataclass(eq=False)
class Container:
    """A list, tuple, set or dict (its values) of stand-ins the test built: shared by every
    name that holds it, and no longer ``known`` once the test adds to it."""

    objs: list[Obj]
    known: bool = True
    value: object = UNKNOWN  # by length (a tuple, a dict by its keys) as a constant

    def names(self) -> dict[str, SetName] | None:
        """The names every element provides (with the value, when one element holds it), or
        None when an element's names cannot be listed (a mock, a ``__new__`` instance)."""
        common: dict[str, SetName] | None = None
        for obj in self.objs:
            cons = obj.cons
            if cons.dynamic or cons.kind not in (NAMESPACE, PLAIN) \
                    or any(n in cons.class_names for n in _OPEN):
                return None
            own = {**{n: SetName(n, cons.line, cons.form) for n in cons.class_names},
                   **cons.sets, **obj.extra}
            common = own if common is None else {
                n: item if len(self.objs) == 1 else SetName(n, item.line, item.text)
                for n, item in common.items() if n in own}
        return common


@dataclass
class Obj:
    """A stand-in as one scope holds it. ``extra`` is what this scope (and the scopes it was
    handed to) set beyond the construction's own names; in the scope that builds it, the
    construction's own ``sets`` dict."""

    cons: Construction
    extra: dict[str, SetName]
    # a field that holds another namespace stand-in (``SimpleNamespace(req=req)``,
    # ``obj.req = SimpleNamespace(...)``): the names it holds are listed as ``req.rid``
    links: dict[str, Obj] = field(default_factory=dict)
    # a field that holds a container of stand-ins (``obj.queue = [FakeReq("a")]``): the names
    # every element provides are listed as ``queue.[].rid``
    elements: dict[str, Container] = field(default_factory=dict)

    def fork(self) -> Obj:
        extra = {} if self.extra is self.cons.sets else dict(self.extra)
        return Obj(self.cons, extra, dict(self.links), dict(self.elements))

    def has(self, name: str) -> bool:
        return name in self.cons.sets or name in self.extra

    def record(self, item: SetName) -> None:
        self.extra[item.name] = item
        self.links.pop(item.name, None)  # set again: no longer the namespace it held
        self.elements.pop(item.name, None)

    def nested(self, prefix: str = "", seen: frozenset[int] = frozenset()
               ) -> dict[str, SetName]:
        """The names the namespaces its fields hold provide, as dotted names
        (``req.rid``), down to ``_MAX_NESTING`` levels, each namespace with its marker
        (``req.``); a namespace handed on whole, or with names set in ways deskcheck cannot
        read, lists nothing (its fields are not judged)."""
        out: dict[str, SetName] = {}
        if prefix.count(".") >= _MAX_NESTING:
            return out
        for name, box in self.elements.items():
            listed = box.names() if box.known else None
            if listed is None:
                continue
            here = f"{prefix}{name}.{ELEMENT}"
            # `queue.[]` and its marker `queue.[].`: every element read through `queue` is judged
            first = box.objs[0].cons
            out[here] = SetName(here, first.line, first.form)
            out[here + "."] = SetName(here + ".", first.line, first.form)
            for item in listed.values():
                out[f"{here}.{item.name}"] = SetName(f"{here}.{item.name}", item.line, item.text,
                                                      item.value)
        for name, inner in self.links.items():
            if inner.cons.escaped or inner.cons.dynamic or id(inner) in seen:
                continue
            here = f"{prefix}{name}."
            # the marker `req.`: every name `req` holds is listed (even none: SimpleNamespace())
            out[here] = SetName(here, inner.cons.line, inner.cons.form)
            for item in {**inner.cons.sets, **inner.extra}.values():
                out[here + item.name] = SetName(here + item.name, item.line, item.text,
                                                item.value)
            out.update(inner.nested(here, seen | {id(self)}))
        return out


@dataclass(frozen=True)
class PendingDrive:
    """A drive found in a body; the test it belongs to is decided by the caller."""

    obj_cons: Construction
    sets: tuple[SetName, ...]
    method: str
    model_expr: str
    how: str
    file: str
    line: int
    args: CallArgs | None = None  # what the test's call passes (None: not known)
    argument: str = ""  # how="argument": the parameter it is passed as ("0" / "req")
    receiver: tuple[SetName, ...] = ()  # how="argument": what the method's self holds


@dataclass(frozen=True)
class Unfollowed:
    """``Cls.method(v)`` where ``v`` came from a call deskcheck cannot follow."""

    model_expr: str
    method: str
    var: str
    source: str
    file: str
    line: int


Items = list[list[Obj]]  # a tuple/list value: the stand-ins at each position
Ref = tuple[str, str]  # a production method as the test names it: (``Scheduler``, ``run``)


@dataclass
class Result:
    returned: list[Obj] = field(default_factory=list)
    returned_items: list[Items] = field(default_factory=list)  # `return stub, alloc`
    drives: list[PendingDrive] = field(default_factory=list)
    unfollowed: list[Unfollowed] = field(default_factory=list)
    bindings: dict[str, list[Obj]] = field(default_factory=dict)  # at the end of the body
    tuples: dict[str, Items] = field(default_factory=dict)  # at the end of the body


@dataclass
class Scope:
    name: str
    bindings: dict[str, list[Obj]] = field(default_factory=dict)
    opaque: dict[str, str] = field(default_factory=dict)   # var -> the call it came from
    calls: dict[int, list[Obj]] = field(default_factory=dict)  # followed call -> returned
    call_items: dict[int, Items] = field(default_factory=dict)  # followed call -> tuple items
    tuples: dict[str, Items] = field(default_factory=dict)  # var -> a tuple of stand-ins
    literals: dict[str, object] = field(default_factory=dict)  # var -> a literal value
    nested: dict[str, FunctionNode] = field(default_factory=dict)  # defs inside the body
    # var -> the production methods it may hold (``loop = Scheduler.event_loop``, a
    # parametrized test's parameter): calling it with a stand-in drives each
    callables: dict[str, list[Ref]] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)  # var -> its stand-ins
    result: Result = field(default_factory=Result)
