"""Resolve what a call inside a production function calls, from source alone.

``self.m()`` and ``super().m()`` through the MRO; ``self.comp.m()`` through the class of a
component field (its constructor call, its annotation, or the classes a factory method or
function returns); module functions through imports; ``Cls(...)`` to ``Cls.__init__``;
a callable held in a field (``self.cfg.hook()`` where ``hook=self._hook`` was passed to the
dataclass's constructor, or ``self.fn = self._compute``). Every resolution is a ``Fn``:
the def, the class model it runs in (``self``), its qualname and module.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase

from deskcheck.static._collect import first_param
from deskcheck.static._fields import FieldWrite, field_writes
from deskcheck.static._members import ClassSource, FunctionNode
from deskcheck.static._model import ClassModel
from deskcheck.static._nodes import subnodes
from deskcheck.static._sources import decorators
from deskcheck.static._static import External, StaticIndex, class_key


@dataclass(eq=False)
class Fn:
    """A function the analysis can enter. ``model`` is the class of ``self`` (None for a
    module function); ``klass`` the class that defines it."""

    node: FunctionNode
    qualname: str
    file: str
    module: str
    model: ClassModel | None = None
    klass: ClassSource | None = None
    self_name: str | None = None

    @property
    def key(self) -> tuple[int, str]:
        return (id(self.node), self.model.qualname if self.model else "")

    @property
    def is_method(self) -> bool:
        return self.self_name is not None


def exports(info, name: str) -> bool:
    """Whether ``from <info's module> import *`` binds ``name``: listed in a literal
    ``__all__``, else any name not starting with an underscore."""
    if info is None:
        return False
    listed = info.bindings.get("__all__")
    if listed is not None and isinstance(listed.node, ast.List | ast.Tuple):
        return any(isinstance(e, ast.Constant) and e.value == name for e in listed.node.elts)
    return not name.startswith("_")


@dataclass
class CallResolver:
    """Resolves calls; caches class models and component classes."""

    index: StaticIndex
    _models: dict[str, ClassModel] = field(default_factory=dict)
    _components: dict[tuple[str, str], list[ClassSource]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    _local_imports: dict[int, dict[str, tuple[str, str]]] = field(default_factory=dict)
    _annassigns: dict[int, dict[int, list[ast.AnnAssign]]] = field(default_factory=dict)
    _resolved: dict[tuple, tuple[list[Fn], str]] = field(default_factory=dict)
    _built: dict[str, list[tuple[ClassModel, FieldWrite, ast.Call]]] = field(
        default_factory=dict)  # class key -> the field writes constructing it
    _owners: dict[str, ClassModel] = field(default_factory=dict)  # whose fields were resolved
    _subclasses: dict[str, list[ClassSource]] = field(default_factory=dict)
    _scanned: set[str] = field(default_factory=set)  # owners whose writes _built holds
    # classes declared for fields nothing in the code resolves (``Scheduler.tree_cache`` ->
    # ``pkg.cache:HiRadixCache``): a glob over ``Class.field`` -> ``module:Class`` specs
    declared_components: dict[str, tuple[str, ...]] = field(default_factory=dict)
    declared_used: set[str] = field(default_factory=set)  # declarations a lookup matched

    # -- classes ------------------------------------------------------------------------
    def models(self) -> list[ClassModel]:
        """Every class model built so far (the components the resolution reached)."""
        return list(self._models.values())

    def model_for(self, klass: ClassSource) -> ClassModel:
        key = class_key(klass)
        found = self._models.get(key)
        if found is None:
            try:
                mro = self.index.mro(klass)
            except Exception as exc:  # an unresolvable base: the class alone, noted
                self.notes.append(f"{klass.location}: MRO not resolved ({exc}); class alone")
                mro = [klass]
            found = ClassModel(f"{klass.module}:{klass.qualname}", klass.name, "static", mro)
            self._models[key] = found
        return found

    def method(self, model: ClassModel, name: str, after: ClassSource | None = None) -> Fn | None:
        found = model.lookup(name, after)
        if found is None:
            return None
        klass, member = found
        node = member.fget
        if node is None:
            return None
        node = klass.function(node)
        self_name = None if member.kind == "staticmethod" else first_param(node)
        return Fn(node, f"{klass.qualname}.{name}", klass.file, klass.module, model, klass,
                  self_name)

    def autograd_forward(self, model: ClassModel) -> Fn | None:
        """What ``Cls.apply(*args)`` runs for a ``torch.autograd.Function`` of ours:
        ``Cls.forward(ctx, *args)``, its first parameter (``ctx``) taken as the receiver so
        that the call's arguments bind the parameters after it. None for another class."""
        if not any(isinstance(k, External) and k.name == "Function" and "autograd" in k.qualname
                   for k in model.mro):
            return None
        found = self.method(model, "forward")
        if found is None or not (found.node.args.posonlyargs + found.node.args.args):
            return None
        return replace(found, self_name=first_param(found.node))

    def is_property(self, model: ClassModel, name: str) -> bool:
        found = model.lookup(name)
        return found is not None and found[1].kind == "property"

    def class_of_expr(self, module: str, expr: ast.expr) -> ClassSource | None:
        try:
            found = self.index.resolve_expr(module, expr, [])
        except Exception:
            return None
        return found if isinstance(found, ClassSource) else None

    def instance_class(self, module: str, name: str) -> ClassSource | None:
        """The class of a module-level instance: ``name`` bound at module level (here, or in
        the module a ``from m import name`` takes it from) to a construction ``Cls(...)`` of
        a class under the roots (a process-wide singleton: ``g_ctx = Context()``), else
        None."""
        info = self.index.module(module)
        binding = info.bindings.get(name) if info is not None else None
        if binding is not None and binding.kind == "from" and binding.module and binding.name:
            module, name = binding.module, binding.name
            info = self.index.module(module)
            binding = info.bindings.get(name) if info is not None else None
        if binding is None or binding.kind != "alias" or not isinstance(binding.node, ast.Call):
            return None
        return self.class_of_expr(module, binding.node.func)

    def returned_instance(self, getter: Fn) -> ClassSource | None:
        """The class of what a function returns on every ``return``: a module-level instance
        (``def get_ctx(): return _CTX``) or a construction (``return Manager()``, a
        singleton class's getter), else None. A module-level name bound elsewhere than at
        module level (``_PP = make_group(...)`` inside an init function) is of the one class
        the getter's return annotation names (``def get_pp_group() -> GroupCoordinator``)."""
        if getter.klass is not None or not isinstance(getter.node, ast.FunctionDef):
            return None
        found: ClassSource | None = None
        for sub in subnodes(getter.node):
            if isinstance(sub, ast.Return):
                if isinstance(sub.value, ast.Call) and isinstance(
                        sub.value.func, ast.Name | ast.Attribute):
                    klass = self.class_of_expr(getter.module, sub.value.func)
                elif isinstance(sub.value, ast.Name):
                    klass = self.instance_class(getter.module, sub.value.id)
                    klass = klass or self._annotated_class(getter)
                else:
                    return None
                if klass is None or (found is not None and class_key(found) != class_key(klass)):
                    return None
                found = klass
        return found

    def returned_class(self, fn: Fn) -> ClassSource | None:
        """The class object ``fn`` returns, the same one on every ``return`` (``def
        get_adder_class(self): return PrefillAdder``, a hook a subclass may override), else
        None."""
        if not isinstance(fn.node, ast.FunctionDef | ast.AsyncFunctionDef) or not fn.module:
            return None
        found: ClassSource | None = None
        for sub in subnodes(fn.node):
            if isinstance(sub, ast.Return):
                klass = self.class_of_expr(fn.module, sub.value) if isinstance(
                    sub.value, ast.Name | ast.Attribute) else None
                if klass is None or (found is not None and class_key(found) != class_key(klass)):
                    return None
                found = klass
        return found

    def constructed_class(self, fn: Fn, call: ast.Call) -> ClassSource | None:
        """The class ``call`` (made in ``fn``) builds: ``Cls(...)``, or ``self.get_cls()(...)``
        where what is called returns one class (:meth:`returned_class`); else None."""
        if isinstance(call.func, ast.Name | ast.Attribute) and fn.module:
            return self.class_of_expr(fn.module, call.func)
        if isinstance(call.func, ast.Call):
            callees, _note = self.resolve(fn, call.func)
            classes = {class_key(k): k for k in map(self.returned_class, callees)
                       if k is not None}
            if len(callees) == 1 and len(classes) == 1:
                return next(iter(classes.values()))
        return None

    def _annotated_class(self, fn: Fn) -> ClassSource | None:
        """The one class ``fn``'s return annotation names (``-> G``, ``-> Optional[G]``)."""
        classes = self.annotated_classes(fn.module, fn.node.returns) \
            if fn.node.returns is not None and fn.module else []
        return classes[0] if len(classes) == 1 else None

    def local_import(self, fn: Fn, name: str) -> tuple[str, str] | None:
        """``from pkg.mod import name`` inside the function: (absolute module, name)."""
        found = self._local_imports.get(id(fn.node))
        if found is None:
            found = {}
            for sub in subnodes(fn.node):
                if not isinstance(sub, ast.ImportFrom):
                    continue
                module = sub.module or ""
                if sub.level:
                    info = self.index.module(fn.module)
                    package = fn.module if info is not None and info.is_package \
                        else fn.module.rpartition(".")[0]
                    parts = package.split(".")[: len(package.split(".")) - (sub.level - 1)]
                    module = ".".join(parts + ([module] if module else []))
                for alias in sub.names:
                    found.setdefault(alias.asname or alias.name, (module, alias.name))
            self._local_imports[id(fn.node)] = found
        return found.get(name)

    def class_named(self, module: str, name: str) -> ClassSource | None:
        try:
            found = self.index.resolve_name(module, name, [])
        except Exception:
            return None
        return found if isinstance(found, ClassSource) else None

    def function_named(self, module: str, name: str, depth: int = 0) -> Fn | None:
        """A module-level def bound to ``name`` in ``module`` (through ``from`` imports)."""
        if depth > 8:
            return None
        info = self.index.module(module)
        if info is None:
            return None
        binding = info.bindings.get(name)
        if binding is None:  # `from .main import *`: a name the star module exports
            for star in info.stars:
                if exports(self.index.module(star), name):
                    found = self.function_named(star, name, depth + 1)
                    if found is not None:
                        return found
            return None
        if binding.kind == "other" and isinstance(binding.node, ast.FunctionDef | ast.AsyncFunctionDef):
            node = info.parsed.function(binding.node) if info.parsed else binding.node
            return Fn(node, f"{module}.{name}", info.file, module)
        if binding.kind == "from" and binding.module and binding.name:
            return self.function_named(binding.module, binding.name, depth + 1)
        return None

    def parameter_method(self, fn: Fn, call: ast.Call) -> Fn | None:
        """``def drain(state: BatchState): state.run()``: the method of the class a
        parameter's annotation names (``Optional[X]``, ``X | None``, ``"X"`` too), else None."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and fn.module):
            return None
        annotation = parameter_annotation(fn.node, func.value.id)
        klass = self.class_of_expr(fn.module, _unoptional(annotation)) \
            if annotation is not None else None
        return self.method(self.model_for(klass), func.attr) if klass is not None else None

    def component_classes(self, model: ClassModel, name: str) -> list[ClassSource]:
        """The classes field ``name`` of ``model`` can hold: from its writes' constructor
        calls, annotations, and what factory methods/functions return."""
        key = (model.qualname, name)
        if key in self._components:
            return self._components[key]
        self._components[key] = []
        self._owners.setdefault(model.qualname, model)
        out: dict[str, ClassSource] = {}
        for write in field_writes(model).get(name, []):
            for klass in self._classes_of_write(model, write):
                out.setdefault(class_key(klass), klass)
        for klass in model.sources:
            for stmt in klass.node.body:
                if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and stmt.target.id == name):
                    found = self.class_of_expr(klass.module, _unoptional(stmt.annotation))
                    if found is not None:
                        out.setdefault(class_key(found), found)
        if not out:
            for klass in self._constructed_classes(model, name):
                out.setdefault(class_key(klass), klass)
        for klass in self._declared_classes(model, name):
            out.setdefault(class_key(klass), klass)
        result = list(out.values())
        self._components[key] = result
        return result

    def _declared_classes(self, model: ClassModel, name: str) -> list[ClassSource]:
        """The classes declared for field ``name`` of any class in ``model``'s MRO."""
        out: list[ClassSource] = []
        for pattern, specs in self.declared_components.items():
            if not any(fnmatchcase(f"{k.qualname}.{name}", pattern) for k in model.sources):
                continue
            self.declared_used.add(pattern)
            out += [k for k in map(self.declared_class, specs) if k is not None]
        return out

    def declared_class(self, spec: str) -> ClassSource | None:
        """The class a ``module:Class`` spec names under the roots, or None."""
        module, _, qualname = spec.partition(":")
        try:
            return self.index.find_class(module, qualname)
        except Exception:
            return None

    def holds_builtin(self, model: ClassModel, name: str) -> bool:
        """Field ``name`` is annotated with a builtin type (``self.running: list[Request] =
        []``), or every write stores a builtin value: a literal or display (``{...}``,
        ``[...]``, a comprehension, a constant) or a builtin container's constructor
        (``dict()``, ``deque()``, ``defaultdict(list)``) — its methods are the value's own,
        not a component's. ``None`` (the field before it is set) counts for
        neither side; a field only ever set to ``None`` holds no builtin value."""
        writes = field_writes(model).get(name, [])
        annotations = [sub.annotation for w in writes if w.function is not None
                       for sub in self._annotated(w.function).get(w.line, ())]
        annotations += [stmt.annotation for klass in model.sources for stmt in klass.node.body
                        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and stmt.target.id == name]
        if any(_names_builtin(a) for a in annotations):  # self.running: list[Request] = []
            return True
        values = [e for w in writes if w.kind in ("assign", "default")
                  for e in (_alternatives(w.value) if w.value is not None else [w.value])]
        stored = [e for e in values if not (isinstance(e, ast.Constant) and e.value is None)]
        return bool(stored) and all(_builtin_value(e) for e in stored)  # None: before it is set

    def _constructed_classes(self, model: ClassModel, name: str) -> list[ClassSource]:
        """Field ``name`` given where ``model``'s class is built as another class's component
        (``self.recv = Receiver(skipper=self.skipper)``): the classes of the value passed
        there, by keyword, by a dataclass field's position, or through an ``__init__``
        parameter the constructor stores into the field. The construction sites looked at are
        the field writes of every class whose component fields were resolved so far (the
        owner's field holding the component is resolved before the component's methods are
        entered)."""
        if not model.sources:
            return []
        init = self.method(model, "__init__")
        out: list[ClassSource] = []
        for owner, write, call in self.constructions_of(model):
            arg = argument_setting(model, init, call, name)
            if arg is None:
                continue
            if (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name)
                    and write.function is not None
                    and arg.value.id == first_param(write.function)):
                out += self.component_classes(owner, arg.attr)  # Receiver(x=self.x)
            else:
                out += self._classes_of_write(owner, replace(write, value=arg, kind="assign"))
        return out

    def constructions_of(self, model: ClassModel) -> list[tuple[ClassModel, FieldWrite, ast.Call]]:
        """``(owner, write, call)``: where ``model``'s class is built as a component of a class
        whose fields were resolved (``self.c = Cls(...)`` in the owner's ``write``)."""
        return self._constructions(class_key(model.sources[0])) if model.sources else []

    def factory_constructions(self, model: ClassModel) -> list[tuple[Fn, ast.Call]]:
        """``(factory, call)``: each construction inside the class's own classmethods and
        staticmethods (``return cls(decay=decay, ...)`` of ``from_config``)."""
        if not model.sources:
            return []
        klass = model.sources[0]
        key = class_key(klass)
        out: list[tuple[Fn, ast.Call]] = []
        for name, member in klass.members.items():
            if member.kind not in ("classmethod", "staticmethod"):
                continue
            fn = self.method(model, name)
            if fn is None:
                continue
            for sub in subnodes(fn.node):
                if not isinstance(sub, ast.Call):
                    continue
                if member.kind == "classmethod" and isinstance(sub.func, ast.Name) \
                        and sub.func.id == fn.self_name:
                    out.append((fn, sub))
                elif isinstance(sub.func, ast.Name | ast.Attribute):
                    found = self.class_of_expr(fn.module, sub.func)
                    if found is not None and class_key(found) == key:
                        out.append((fn, sub))
        return out

    def _constructions(self, key: str) -> list[tuple[ClassModel, FieldWrite, ast.Call]]:
        """``(owner, write, call)``: each field write of a modelled class whose value builds
        the class ``key`` (``self.c = Cls(...)``, either side of a ternary or ``or``)."""
        for owner in list(self._owners.values()):
            if owner.qualname in self._scanned:
                continue
            self._scanned.add(owner.qualname)
            for writes in field_writes(owner).values():
                for write in writes:
                    if write.kind not in ("assign", "default") or write.value is None:
                        continue
                    for expr in _alternatives(write.value):
                        if isinstance(expr, ast.Call):
                            found = self._built_class(write, expr)
                            if found is not None:
                                self._built.setdefault(class_key(found), []).append(
                                    (owner, write, expr))
        return self._built.get(key, [])

    def _built_class(self, write: FieldWrite, expr: ast.Call) -> ClassSource | None:
        """The class ``expr`` (a call in ``write``'s function) constructs, if it names one."""
        module = write.klass.module
        found = self.class_of_expr(module, expr.func)
        if found is None and isinstance(expr.func, ast.Name) and write.function is not None:
            local = self.local_import(Fn(write.function, "", write.file, module), expr.func.id)
            found = self.class_named(*local) if local is not None else None
        return found

    def _classes_of_write(self, model: ClassModel, write: FieldWrite) -> list[ClassSource]:
        out: list[ClassSource] = []
        module = write.klass.module
        if write.function is not None:
            for sub in self._annotated(write.function).get(write.line, ()):
                if sub.value is write.value:
                    found = self.class_of_expr(module, _unoptional(sub.annotation))
                    if found is not None:
                        out.append(found)
        value = write.value
        if write.kind not in ("assign", "default") or value is None:
            return out
        for expr in _alternatives(value):
            if not isinstance(expr, ast.Call):
                continue
            found = self._built_class(write, expr)
            if found is not None:
                out.append(found)
                continue
            factory = self.callee_of_func(model, write, expr)
            if factory is not None:
                out += self.returned_classes(factory)
        return out

    def _annotated(self, function: ast.AST) -> dict[int, list[ast.AnnAssign]]:
        """The function's annotated assignments by line (one walk per function)."""
        found = self._annassigns.get(id(function))
        if found is None:
            found = {}
            for sub in subnodes(function):
                if isinstance(sub, ast.AnnAssign):
                    found.setdefault(sub.lineno, []).append(sub)
            self._annassigns[id(function)] = found
        return found

    def callee_of_func(self, model: ClassModel, write: FieldWrite, call: ast.Call) -> Fn | None:
        func = call.func
        self_name = first_param(write.function) if write.function is not None else None
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == self_name):
            return self.method(model, func.attr)
        if isinstance(func, ast.Name):
            return self.function_named(write.klass.module, func.id)
        if isinstance(func, ast.Attribute):  # Cls.create(...) classmethod factory
            owner = self.class_of_expr(write.klass.module, func.value)
            if owner is not None:
                return self.method(self.model_for(owner), func.attr)
        return None

    def returned_classes(self, fn: Fn, depth: int = 0) -> list[ClassSource]:
        """Classes a factory returns: ``return Cls(...)``, ``cls(...)`` of a classmethod, or
        a local bound to one; followed one factory deep; the classes its return annotation
        names (``-> Union[A, B]``); an Enum classmethod's members (``cls.NONE``, ``cls[k]``)."""
        out: list[ClassSource] = list(self.annotated_classes(fn.module, fn.node.returns))
        enum = fn.klass is not None and _is_enum(fn.klass)
        assigned: dict[str, list[ast.expr]] = {}
        for sub in subnodes(fn.node):
            if isinstance(sub, ast.Assign):
                for t in sub.targets:
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, []).append(sub.value)
        for sub in subnodes(fn.node):
            if not isinstance(sub, ast.Return) or sub.value is None:
                continue
            values = [sub.value]
            if isinstance(sub.value, ast.Name):
                values = assigned.get(sub.value.id, [])
            for value in values:
                for expr in _alternatives(value):
                    if enum and isinstance(expr, ast.Attribute | ast.Subscript) and isinstance(
                            expr.value, ast.Name) and expr.value.id == "cls":
                        out.append(fn.klass)  # an Enum's member is an instance of it
                        continue
                    if not isinstance(expr, ast.Call):
                        continue
                    if (isinstance(expr.func, ast.Name) and expr.func.id == "cls"
                            and fn.klass is not None):
                        out.append(fn.klass)
                        continue
                    found = self.class_of_expr(fn.module, expr.func)
                    if found is not None:
                        out.append(found)
                    elif isinstance(expr.func, ast.Name) and expr.func.id in assigned:
                        out += self.held_classes(fn.module, assigned[expr.func.id])
                    elif depth < 1 and isinstance(expr.func, ast.Name):
                        inner = self.function_named(fn.module, expr.func.id)
                        if inner is not None:
                            out += self.returned_classes(inner, depth + 1)
                    elif depth < 1 and isinstance(expr.func, ast.Attribute):
                        owner = self.class_of_expr(fn.module, expr.func.value)
                        inner = self.method(self.model_for(owner), expr.func.attr) \
                            if owner is not None else None  # Cls.create(...): a classmethod
                        if inner is not None:
                            out += self.returned_classes(inner, depth + 1)
        return out

    def held_classes(self, module: str, values: list[ast.expr], every: bool = False
                     ) -> list[ClassSource]:
        """The classes a local holds before it is called (``klass = A if x else B``): each
        value that names a class (``every``: none at all unless every value names one)."""
        found = [self.class_of_expr(module, e) for v in values for e in _alternatives(v)]
        if every and None in found:
            return []
        return [k for k in found if k is not None]

    def annotated_classes(self, module: str, annotation: ast.expr | None
                          ) -> list[ClassSource]:
        """The classes a type annotation names: ``A``, ``"A"``, ``Optional[A]``,
        ``Union[A, B]``, ``A | B | None`` (anything else names none)."""
        if annotation is None:
            return []
        if isinstance(annotation, ast.Constant):
            if not isinstance(annotation.value, str):
                return []
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return []
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return (self.annotated_classes(module, annotation.left)
                    + self.annotated_classes(module, annotation.right))
        if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value).endswith(
                ("Union", "Optional")):
            inner = annotation.slice
            parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return [k for part in parts for k in self.annotated_classes(module, part)]
        if not isinstance(annotation, ast.Name | ast.Attribute):
            return []
        found = self.class_of_expr(module, annotation)
        return [found] if found is not None else []

    # -- calls --------------------------------------------------------------------------
    def resolve(self, fn: Fn, call: ast.Call) -> tuple[list[Fn], str]:
        """(callees, note). An empty list with a note: the receiver did not resolve. An
        abstract method (an interface's) is replaced by its implementations in the
        subclasses found (:meth:`implementations`), kept when there are none."""
        key = (id(call), fn.key)
        found = self._resolved.get(key)
        if found is None:
            callees, note = self._resolve(fn, call)
            concrete: list[Fn] = []
            for callee in callees:
                impls = self.implementations(callee) if is_abstract(callee.node) else []
                concrete += [i for i in impls or [callee] if i not in concrete]
            found = self._resolved[key] = (concrete, note)
        return found

    def implementations(self, fn: Fn) -> list[Fn]:
        """The overrides of ``fn`` (a method) in the subclasses of its class that the modules
        read so far define or import (class hierarchy analysis over the code read): each
        subclass's own method of that name, when it is not abstract itself."""
        if fn.klass is None or not fn.is_method:
            return []
        out: list[Fn] = []
        seen: set[int] = set()
        for sub in self.subclasses(fn.klass):
            impl = self.method(self.model_for(sub), fn.node.name)
            if impl is not None and impl.klass is not None and impl.klass is not fn.klass \
                    and not is_abstract(impl.node) and id(impl.node) not in seen:
                seen.add(id(impl.node))
                out.append(impl)
        return out

    def subclasses(self, klass: ClassSource) -> list[ClassSource]:
        """Classes deriving from ``klass`` (directly or not) in the modules read so far and
        the modules they import: a subclass nothing imports is not found. A module not read
        yet is searched as text first (``class X(...Base...)``) and parsed only on a match."""
        key = class_key(klass)
        cached = self._subclasses.get(key)
        if cached is not None:
            return cached
        names = self.index.loaded_modules()
        for name in list(names):
            info = self.index.module(name)
            for binding in (info.bindings.values() if info is not None else ()):
                if binding.kind in ("from", "import") and binding.module:
                    names.add(binding.module)
                    if binding.kind == "from" and binding.name:
                        names.add(f"{binding.module}.{binding.name}")
                    elif binding.kind == "import":  # import a.b binds a, imports a.b too
                        names.update(_imported_modules(binding.statement))
        loaded = self.index.loaded_modules()
        bases = {klass.name}
        out: dict[str, ClassSource] = {}
        grew = True
        while grew:
            grew = False
            pattern = re.compile(rb"class\s+\w+\s*\([^)]*\b(?:"
                                 + b"|".join(re.escape(n.encode()) for n in sorted(bases))
                                 + rb")\b")
            for name in sorted(names):
                found = self.index.find_module(name)
                if found is None or not found[0].is_file():
                    continue
                if name not in loaded:
                    data = self.index.sources.scan(found[0])
                    if data is None or not pattern.search(data):
                        continue
                info = self.index.module(name)
                for binding in (info.bindings.values() if info is not None else ()):
                    node = binding.node
                    if binding.kind != "class" or not isinstance(node, ast.ClassDef) or not any(
                            ast.unparse(b).rsplit(".", 1)[-1] in bases for b in node.bases):
                        continue
                    sub = self.class_named(name, node.name)
                    if sub is None or class_key(sub) in out or class_key(sub) == key:
                        continue
                    if any(getattr(k, "qualname", None) == klass.qualname
                           and getattr(k, "module", None) == klass.module
                           for k in self.model_for(sub).mro):
                        out[class_key(sub)] = sub
                        bases.add(node.name)
                        grew = True
        result = list(out.values())
        self._subclasses[key] = result
        return result

    def _resolve(self, fn: Fn, call: ast.Call) -> tuple[list[Fn], str]:
        func = call.func
        if isinstance(func, ast.Name):
            found = self.function_named(fn.module, func.id)
            if found is not None:
                return [found], ""
            local = self.local_import(fn, func.id)
            if local is not None:
                found = self.function_named(*local)
                if found is not None:
                    return [found], ""
                klass = self.class_named(*local)
                if klass is not None:
                    init = self.method(self.model_for(klass), "__init__")
                    return ([init] if init is not None else []), ""
            klass = self.class_of_expr(fn.module, func)
            if klass is not None:
                init = self.method(self.model_for(klass), "__init__")
                return ([init] if init is not None else []), ""
            return [], ""
        if isinstance(func, ast.Subscript):  # self._MAP[key](...): every value of the table
            return self.callables_of(fn, fn.module, func), ""
        if isinstance(func, ast.Call):  # self.get_cls()(...): the class it returns is built
            klass = self.constructed_class(fn, call)
            init = self.method(self.model_for(klass), "__init__") if klass is not None else None
            return ([init] if init is not None else []), ""
        if not isinstance(func, ast.Attribute):
            return [], ""
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == fn.self_name and fn.model:
            found = self.method(fn.model, func.attr)
            if found is not None:
                return [found], ""
            return self._field_callable(fn.model, func.attr), ""
        if (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
                and receiver.func.id == "super" and fn.model and fn.klass):
            found = self.method(fn.model, func.attr, after=fn.klass)
            return ([found] if found is not None else []), ""
        if (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
                and receiver.value.id == fn.self_name and fn.model):
            classes = self.component_classes(fn.model, receiver.attr)
            if not classes and self.holds_builtin(fn.model, receiver.attr):
                return [], ""  # dict.get, list.append: a method of the value itself
            if not classes:
                return [], f"receiver self.{receiver.attr} unresolved"
            out: list[Fn] = self._constructor_callables(fn.model, receiver.attr, func.attr)
            for klass in classes:
                model = self.model_for(klass)
                found = self.method(model, func.attr)
                if found is not None:
                    out.append(found)
                else:
                    out += self._field_callable(model, func.attr)
            return out, ""
        klass = self.class_of_expr(fn.module, receiver)
        if klass is not None:  # Cls.static_or_class_method(...)
            model = self.model_for(klass)
            found = self.method(model, func.attr)
            if found is None and func.attr == "apply":
                found = self.autograd_forward(model)
            return ([found] if found is not None else []), ""
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) \
                and fn.module:  # get_ctx().add(x): a getter of a module-level instance
            getter = self.function_named(fn.module, receiver.func.id)
            klass = self.returned_instance(getter) if getter is not None else None
            if klass is not None:
                found = self.method(self.model_for(klass), func.attr)
                return ([found] if found is not None else []), ""
        if isinstance(receiver, ast.Name):  # module.function(...)
            klass = self.instance_class(fn.module, receiver.id)
            if klass is not None and not _bound_in(fn.node, receiver.id):
                # a module-level instance: g_ctx.add(x)
                found = self.method(self.model_for(klass), func.attr)
                return ([found] if found is not None else []), ""
            info = self.index.module(fn.module)
            binding = info.bindings.get(receiver.id) if info else None
            target = None
            if binding is not None and binding.kind == "import" and binding.module:
                target = binding.module
            elif binding is not None and binding.kind == "from" and binding.module:
                sub = f"{binding.module}.{binding.name}"
                target = sub if self.index.find_module(sub) is not None else None
            if target is not None:
                found = self.function_named(target, func.attr)
                if found is not None:
                    return [found], ""
        return [], ""

    def _constructor_callables(self, model: ClassModel, component: str, name: str) -> list[Fn]:
        """``self.<component> = Cfg(<name>=self._m)``: the callable given for ``name``."""
        out: list[Fn] = []
        for write in field_writes(model).get(component, []):
            if not isinstance(write.value, ast.Call) or write.function is None:
                continue
            owner = Fn(write.function, "", write.file, write.klass.module, model, write.klass,
                       first_param(write.function))
            for keyword in write.value.keywords:
                if keyword.arg == name:
                    out += self.callables_of(owner, write.klass.module, keyword.value)
        return out

    def _field_callable(self, model: ClassModel, name: str) -> list[Fn]:
        """A callable held in field ``name``: ``self.name = self._m`` / ``= some_function``,
        or a dataclass field given as a constructor keyword (``Cfg(name=self._m)``)."""
        out: list[Fn] = []
        for write in field_writes(model).get(name, []):
            if write.value is None or write.kind not in ("assign", "default"):
                continue
            owner = Fn(write.function, "", write.file, write.klass.module, model, write.klass,
                       first_param(write.function)) if write.function is not None else None
            out += self.callables_of(owner, write.klass.module, write.value, model)
        return out

    def callables_of(self, fn: Fn | None, module: str, value: ast.expr,
                     model: ClassModel | None = None, depth: int = 0) -> list[Fn]:
        """Functions an expression refers to (not calls): ``self._m``, ``helper``, either
        side of a ternary (``self.step if q is None else self.step_with_queue``), a method
        bound by hand (``MethodType(f, self)``), and every value of a dispatch table it
        indexes (``self._MAP[type(cmd)]`` over a dict display held in a field, a class
        attribute or a module-level name; a class attribute's values name the class's own
        functions: DeepSpeed's pipeline ``_INSTRUCTION_MAP``)."""
        model = model or (fn.model if fn is not None else None)
        out: list[Fn] = []
        for expr in _alternatives(value):  # either side of a ternary
            found = None
            if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and fn
                    and expr.value.id == fn.self_name and fn.model):
                found = self.method(fn.model, expr.attr)
            elif isinstance(expr, ast.Name):
                found = self.function_named(module, expr.id)
                if found is None and model is not None and fn is None:
                    found = self.method(model, expr.id)  # a class body's own function
            elif depth < 4 and isinstance(expr, ast.Call) and expr.args and \
                    ast.unparse(expr.func).rsplit(".", 1)[-1] == "MethodType":
                out += [f for f in self.callables_of(fn, module, expr.args[0], model, depth + 1)
                        if f not in out]
            elif depth < 4 and isinstance(expr, ast.Subscript | ast.Dict):
                for table in self._tables(fn, module, expr, model):
                    out += [f for v in table.values if v is not None for f in
                            self.callables_of(None if table.owner is None else fn, module, v,
                                              model, depth + 1) if f not in out]
            if found is not None and found not in out:
                out.append(found)
        return out

    def _tables(self, fn: Fn | None, module: str, expr: ast.Subscript | ast.Dict,
                model: ClassModel | None) -> list[_Table]:
        """The dict displays an indexed expression reads (``self._MAP[k]``, ``_MAP[k]``)."""
        if isinstance(expr, ast.Dict):
            return [_Table(expr, fn)]
        base = expr.value
        out: list[_Table] = []
        if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and fn \
                and base.value.id == fn.self_name and model is not None:
            for write in field_writes(model).get(base.attr, []):
                if isinstance(write.value, ast.Dict) and write.kind in ("assign", "default"):
                    out.append(_Table(write.value, write.function))
        elif isinstance(base, ast.Name):
            info = self.index.module(module)
            binding = info.bindings.get(base.id) if info is not None else None
            if binding is not None and binding.kind == "alias" \
                    and isinstance(binding.node, ast.Dict):
                out.append(_Table(binding.node, binding.node))
        return out


def is_abstract(node: ast.AST) -> bool:
    """An interface's method: decorated ``@abstractmethod``, or a body (past its docstring)
    that only raises ``NotImplementedError`` or is ``...``. A ``pass`` body is a real no-op."""
    if any(ast.unparse(d).rsplit(".", 1)[-1] == "abstractmethod" for d in decorators(node)):
        return True
    body = list(getattr(node, "body", []))
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1:
        return False
    stmt = body[0]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return stmt.value.value is Ellipsis
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return ast.unparse(exc).rsplit(".", 1)[-1] == "NotImplementedError"
    return False


def _is_enum(klass: ClassSource) -> bool:
    """Whether a class derives, by name, from an Enum/Flag base (``Enum``, ``enum.IntEnum``)."""
    return any(ast.unparse(base).rsplit(".", 1)[-1].endswith(("Enum", "Flag"))
               for base in klass.node.bases)


def _unoptional(annotation: ast.expr) -> ast.expr:
    """``Optional[X]`` / ``X | None`` / ``"X"`` -> ``X``."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return annotation
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value).endswith("Optional"):
        return annotation.slice
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side in (annotation.left, annotation.right):
            if not (isinstance(side, ast.Constant) and side.value is None):
                return side
    return annotation


_BUILTIN_CONTAINERS = frozenset({"dict", "list", "set", "frozenset", "tuple", "deque",
                                 "defaultdict", "OrderedDict", "Counter", "bytearray"})
_DISPLAYS = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.DictComp, ast.ListComp, ast.SetComp,
             ast.Constant, ast.JoinedStr)


_BUILTIN_TYPES = _BUILTIN_CONTAINERS | {"List", "Dict", "Set", "FrozenSet", "Tuple", "Deque",
                                        "DefaultDict", "str", "int", "float", "bool", "bytes"}


def _names_builtin(annotation: ast.expr) -> bool:
    """An annotation naming a builtin type (``list[Request]``, ``Optional[Dict[str, int]]``,
    ``deque``)."""
    head = _unoptional(annotation)
    if isinstance(head, ast.Subscript):
        head = head.value
    return ast.unparse(head).rsplit(".", 1)[-1] in _BUILTIN_TYPES


def _builtin_value(expr: ast.expr | None) -> bool:
    if isinstance(expr, _DISPLAYS):
        return True
    return isinstance(expr, ast.Call) and ast.unparse(expr.func).rsplit(".", 1)[-1] \
        in _BUILTIN_CONTAINERS


def _imported_modules(statement: str) -> list[str]:
    """The modules an ``import a.b, c`` statement imports (``a.b``, ``c``)."""
    try:
        tree = ast.parse(statement)
    except SyntaxError:
        return []
    return [alias.name for node in tree.body if isinstance(node, ast.Import)
            for alias in node.names]


def argument_setting(model: ClassModel, init: Fn | None, call: ast.Call,
                      name: str) -> ast.expr | None:
    """What a construction ``call`` of ``model``'s class passes for its field ``name``: the
    keyword ``name`` or, without an ``__init__`` (a dataclass), the argument at the field's
    position among the class's annotated fields; with one, the argument for the parameter
    ``__init__`` stores into ``self.<name>`` (``self.name = param``)."""
    params: list[str] = []
    if init is None:
        for klass in reversed(model.sources):  # a dataclass's fields: the bases' first
            params += [s.target.id for s in klass.node.body if isinstance(s, ast.AnnAssign)
                       and isinstance(s.target, ast.Name) and s.target.id not in params]
        param = name if name in params else None
    else:
        param = None
        for write in field_writes(model).get(name, []):
            if (write.function is init.node and isinstance(write.value, ast.Name)
                    and write.kind == "assign"):
                param = write.value.id
        args = init.node.args
        params = [a.arg for a in args.posonlyargs + args.args][1:]
        if param is not None and param not in params + [a.arg for a in args.kwonlyargs]:
            param = None
    if param is None:
        return None
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    if param in params:
        position = params.index(param)
        if position < len(call.args) and not any(
                isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            return call.args[position]
    return None


@dataclass(frozen=True)
class _Table:
    """A dispatch table's dict display; ``owner``: the function that builds it (None for a
    class attribute, whose values name the class body's functions)."""

    display: ast.Dict
    owner: object

    @property
    def values(self) -> list[ast.expr | None]:
        return list(self.display.values)


def _alternatives(expr: ast.expr) -> list[ast.expr]:
    """The values an expression can take: both sides of a ternary / ``a or b``."""
    if isinstance(expr, ast.IfExp):
        return _alternatives(expr.body) + _alternatives(expr.orelse)
    if isinstance(expr, ast.BoolOp):
        return [e for v in expr.values for e in _alternatives(v)]
    return [expr]


def parameter_annotation(node: ast.AST, name: str) -> ast.expr | None:
    """The annotation of parameter ``name`` of function ``node``, else None."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    args = node.args
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if a.arg == name:
            return a.annotation
    return None


def _bound_in(node: ast.AST, name: str) -> bool:
    """Whether the function binds ``name`` itself (a parameter or a local), shadowing the
    module-level name."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        args = node.args
        if any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                       *([args.vararg] if args.vararg else []),
                                       *([args.kwarg] if args.kwarg else []))):
            return True
    for sub in subnodes(node):
        if isinstance(sub, ast.Global) and name in sub.names:
            return False
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store):
            return True
    return False
