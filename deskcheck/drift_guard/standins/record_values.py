"""A production record the test constructs (``AbortReq(abort_all=True)``), as the value the
driven method receives: its fields, known where the constructor call and the class say.

A *record* is a class whose constructor only stores its fields: a ``@dataclass`` (``attrs``'
``@define``/``@attr.s`` alike), or a subclass of ``msgspec.Struct``, ``typing.NamedTuple`` or
pydantic's ``BaseModel``, with no ``__init__`` of its own anywhere in its classes. Its fields
are the annotated class attributes (``ClassVar`` excluded), bases first. Each is known as
the call passes it (a keyword, or a position unless the record is keyword-only), else as its
literal default (``abort_all: bool = False``, ``field(default=...)``); a default factory, an
argument that is no literal and a field a ``__post_init__``/``__attrs_post_init__`` assigns
stay unknown. A class that is no record, defines ``__bool__``/``__len__`` (its truth would not
be a plain object's), or a call that does not fit its fields is not known at all."""

from __future__ import annotations

import ast
from types import SimpleNamespace
from typing import Any

from deskcheck.drift_guard.standins.records import Constructed
from deskcheck.static import ClassModel, Unknown

_RECORD_DECORATORS = {"dataclass", "define", "frozen", "mutable", "s", "attrs", "dataclasses"}
_RECORD_BASES = {"Struct", "NamedTuple", "BaseModel"}
_POST_INIT = ("__post_init__", "__attrs_post_init__", "model_post_init")


def record_value(model: ClassModel, made: Constructed) -> Any:
    """The value ``made`` builds: a ``SimpleNamespace`` of the fields known (the others left
    out: reading one stays undecided), or :class:`Unknown` saying why nothing is known."""
    label = f"`{made!r}` passed at {made.where}"
    sources = model.sources
    if not sources or not any(_is_record(k.node) for k in sources):
        return Unknown(f"{label}: {model.name} is not a record class (a dataclass, "
                       "msgspec.Struct, NamedTuple, attrs or pydantic model)")
    names = {n for k in sources for n in k.members}
    if "__init__" in names or "__bool__" in names or "__len__" in names:
        return Unknown(f"{label}: {model.name} defines its own __init__, __bool__ or __len__")
    fields: dict[str, Any] = {}  # name -> default (Unknown when none or not a literal)
    kw_only = False
    for klass in reversed(sources):  # bases first, as a dataclass orders its fields
        kw_only = kw_only or _keyword_only(klass.node)
        for stmt in klass.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and "ClassVar" not in ast.unparse(stmt.annotation):
                fields[stmt.target.id] = _default(stmt.value)
    values: dict[str, Any] = {}
    order = list(fields)
    if made.positional and (kw_only or len(made.positional) > len(order)):
        return Unknown(f"{label}: the call does not fit {model.name}'s fields")
    for name, value in zip(order, made.positional, strict=False):
        values[name] = value
    for name, value in made.keywords:
        if name not in fields or name in values:
            return Unknown(f"{label}: the call does not fit {model.name}'s fields")
        values[name] = value
    for name, default in fields.items():
        values.setdefault(name, default)
    for name in _assigned_after_init(model, order):
        values[name] = Unknown(f"{label}: {model.name} sets `{name}` after its fields")
    return SimpleNamespace(**{k: v for k, v in values.items() if not isinstance(v, Unknown)})


def _is_record(node: ast.ClassDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if ast.unparse(target).split(".")[-1] in _RECORD_DECORATORS:
            return True
    return any(ast.unparse(b).split(".")[-1].split("[")[0] in _RECORD_BASES for b in node.bases)


def _keyword_only(node: ast.ClassDef) -> bool:
    """``class X(Struct, kw_only=True)`` / ``@dataclass(kw_only=True)``."""
    keywords = list(node.keywords)
    for deco in node.decorator_list:
        if isinstance(deco, ast.Call):
            keywords += deco.keywords
    return any(k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in keywords)


def _default(value: ast.expr | None) -> Any:
    """A field's default when it is a literal (``= False``, ``field(default=None)``)."""
    if value is None:
        return Unknown("no default")
    if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field":
        found = next((k.value for k in value.keywords if k.arg == "default"), None)
        return _default(found) if found is not None else Unknown("a default factory")
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Unknown("a default that is no literal")


def _assigned_after_init(model: ClassModel, fields: list[str]) -> set[str]:
    """The fields a post-init hook assigns (``self.rid = ""``, ``object.__setattr__(self,
    "rid", ...)``; a name not written out: every field) or a validator names (pydantic's
    ``@field_validator("rid")``; naming none: every field), in any class of the record."""
    out: set[str] = set()
    for klass in model.sources:
        for stmt in klass.node.body:
            if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for deco in stmt.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if "validator" in ast.unparse(target):
                    named = [a.value for a in getattr(deco, "args", [])
                             if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                    out.update(named or fields)
            if stmt.name not in _POST_INIT:
                continue
            body = klass.function(stmt)
            self_name = body.args.args[0].arg if body.args.args else "self"
            for node in ast.walk(body):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == self_name:
                    out.add(node.attr)
                elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("setattr__") \
                        or isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr":
                    name = node.args[1] if len(node.args) > 1 else None
                    out.update([name.value] if isinstance(name, ast.Constant)
                               and isinstance(name.value, str) else fields)
    return out
