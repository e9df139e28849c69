"""A production record the test constructs (``AbortReq(abort_all=True)``), as the value the
driven method receives: its fields, known where the constructor call and the class say.

A *record* is a class whose constructor only stores its fields: a ``@dataclass`` (``attrs``'
``@define``/``@attr.s`` alike), or a subclass of ``msgspec.Struct``, ``typing.NamedTuple`` or
pydantic's ``BaseModel``, with no ``__init__`` of its own anywhere in its classes. Its fields
are the annotated class attributes (``ClassVar`` excluded), bases first. Each is known as
the call passes it (a keyword, or a position unless the record is keyword-only), else as its
literal default (``abort_all: bool = False``, ``field(default=...)``); a field a post-init
hook only fills in when it is None (``if self.rid is None: self.rid = ""``) holds that
literal where it was None; a default factory, an argument that is no literal and any other
field a ``__post_init__``/``__attrs_post_init__`` assigns stay unknown. A class that is no record, defines ``__bool__``/``__len__`` (its truth would not
be a plain object's), or a call that does not fit its fields is not known at all."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from deskcheck.drift_guard.standins.records import Constructed
from deskcheck.static import ClassModel, Unknown

_RECORD_DECORATORS = {"dataclass", "define", "frozen", "mutable", "s", "attrs", "dataclasses"}
_RECORD_BASES = {"Struct", "NamedTuple", "BaseModel"}
_POST_INIT = ("__post_init__", "__attrs_post_init__", "model_post_init")


@dataclass
class _Field:
    default: Any  # the literal default, Unknown when none (``required``) or not a literal
    required: bool = False
    keyword_only: bool = False
    init: bool = True  # ``field(init=False)``: not a constructor parameter


def record_value(model: ClassModel, made: Constructed) -> Any:
    """The value ``made`` builds: a ``SimpleNamespace`` of the fields known (the others left
    out: reading one stays undecided), or :class:`Unknown` saying why nothing is known."""
    label = f"`{made!r}` passed at {made.where}"
    fields = _fields(model)
    if isinstance(fields, str):
        return Unknown(f"{label}: {fields}")
    problem = _misfit(fields, made, model.name)
    if problem is not None:
        return Unknown(f"{label}: the call does not fit {model.name}'s fields ({problem})")
    values: dict[str, Any] = dict(zip(_positional(fields), made.positional, strict=False))
    values.update(made.keywords)
    for name, one in fields.items():
        values.setdefault(name, one.default)
    after, when_none = _assigned_after_init(model, list(fields))
    for name in after:
        values[name] = Unknown(f"{label}: {model.name} sets `{name}` after its fields")
    for name, default in when_none.items():
        if name not in after and name in values and values[name] is None:
            values[name] = default  # `if self.rid is None: self.rid = ""` ran
    return SimpleNamespace(**{k: v for k, v in values.items() if not isinstance(v, Unknown)})


def misfit(model: ClassModel, made: Constructed) -> str | None:
    """Why ``made`` does not fit the record's constructor (it raises TypeError), or None:
    it fits, or ``model`` is no record the analysis can read."""
    fields = _fields(model)
    return None if isinstance(fields, str) else _misfit(fields, made, model.name)


def _fields(model: ClassModel) -> dict[str, _Field] | str:
    """The record's fields in constructor order, bases first (or why it is no record)."""
    sources = model.sources
    if not sources or not any(_is_record(k.node) for k in sources):
        return (f"{model.name} is not a record class (a dataclass, msgspec.Struct, NamedTuple, "
                "attrs or pydantic model)")
    names = {n for k in sources for n in k.members}
    if "__init__" in names or "__bool__" in names or "__len__" in names:
        return f"{model.name} defines its own __init__, __bool__ or __len__"
    fields: dict[str, _Field] = {}
    for klass in reversed(sources):  # bases first, as a dataclass orders its fields
        keyword_only = _keyword_only(klass.node)
        for stmt in klass.node.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            annotation = ast.unparse(stmt.annotation)
            if "ClassVar" in annotation:
                continue
            if annotation.rsplit(".", 1)[-1] == "KW_ONLY":  # `_: KW_ONLY`: keyword-only below
                keyword_only = True
                continue
            fields[stmt.target.id] = _field(stmt.value, keyword_only)
    return fields


def _field(value: ast.expr | None, keyword_only: bool) -> _Field:
    if value is None:
        return _Field(Unknown("no default"), required=True, keyword_only=keyword_only)
    if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field":
        options = {k.arg: k.value for k in value.keywords if k.arg}
        init = not (isinstance(options.get("init"), ast.Constant)
                    and options["init"].value is False)
        only = options.get("kw_only")
        keyword_only = only.value is True if isinstance(only, ast.Constant) else keyword_only
        if "default" in options:
            return _Field(_literal(options["default"]), keyword_only=keyword_only, init=init)
        return _Field(Unknown("a default factory"), required="default_factory" not in options
                      and init, keyword_only=keyword_only, init=init)
    return _Field(_literal(value), keyword_only=keyword_only)


def _literal(value: ast.expr) -> Any:
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Unknown("a default that is no literal")


def _positional(fields: dict[str, _Field]) -> list[str]:
    return [n for n, f in fields.items() if f.init and not f.keyword_only]


def _misfit(fields: dict[str, _Field], made: Constructed, name: str) -> str | None:
    positional = _positional(fields)
    if len(made.positional) > len(positional):
        return (f"{name} takes its fields by keyword only" if not positional else
                f"{name} takes at most {len(positional)} positional field(s)")
    given = set(positional[:len(made.positional)])
    for key, _value in made.keywords:
        if key not in fields or not fields[key].init:
            return f"{name} has no field `{key}`"
        if key in given:
            return f"`{key}` is given twice"
        given.add(key)
    missing = [n for n, f in fields.items() if f.required and n not in given]
    if missing:
        return f"{name} leaves out the required field `{missing[0]}`"
    return None


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


def _assigned_after_init(model: ClassModel, fields: list[str]
                         ) -> tuple[set[str], dict[str, Any]]:
    """The fields a post-init hook assigns (``self.rid = x``, ``object.__setattr__(self,
    "rid", ...)``; a name not written out: every field) or a validator names (pydantic's
    ``@field_validator("rid")``; naming none: every field), in any class of the record; and
    apart, the fields a post-init hook only fills in when they are None, with a literal, as a
    statement of its own (``if self.rid is None: self.rid = ""``)."""
    out: set[str] = set()
    when_none: dict[str, Any] = {}
    filled: list[str] = []
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
            rest: list[ast.stmt] = []
            for part in body.body:
                found = _fills_when_none(part, self_name)
                if found is None:
                    rest.append(part)
                else:
                    filled.append(found[0])
                    when_none[found[0]] = found[1]
            for node in (n for part in rest for n in ast.walk(part)):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == self_name:
                    out.add(node.attr)
                elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("setattr__") \
                        or isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr":
                    name = node.args[1] if len(node.args) > 1 else None
                    out.update([name.value] if isinstance(name, ast.Constant)
                               and isinstance(name.value, str) else fields)
    out |= {name for name in set(filled) if filled.count(name) > 1}  # filled twice: not read
    return out, when_none


def _fills_when_none(stmt: ast.stmt, self_name: str) -> tuple[str, Any] | None:
    """(field, literal) of ``if self.F is None: self.F = <literal>`` (no ``else``), or None."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1
            and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1
            and isinstance(stmt.test.ops[0], ast.Is)
            and isinstance(stmt.test.comparators[0], ast.Constant)
            and stmt.test.comparators[0].value is None):
        return None
    tested, assign = stmt.test.left, stmt.body[0]
    if not (isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name)
            and tested.value.id == self_name and isinstance(assign, ast.Assign)
            and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Attribute)
            and isinstance(assign.targets[0].value, ast.Name)
            and assign.targets[0].value.id == self_name
            and assign.targets[0].attr == tested.attr):
        return None
    value = _literal(assign.value)
    return None if isinstance(value, Unknown) else (tested.attr, value)
