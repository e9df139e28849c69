"""Record which way each decision of production code went, inside a rank process.

A *decision* is an ``if``/``elif``, a ``while`` test or a ``for`` step of project code (not the
standard library, not site-packages, not deskcheck), and every call of a project function (the
value it returned: ``min(vote, local_limit)`` decides without a branch). While recording, each
one appends a JSON line to the rank's file: where (file:line, function, the call path of
recorded functions), the condition's text, the way taken (or the value returned), and the values
the condition reads, taken just before it is evaluated (locals, globals and attribute chains
such as ``self.tp_size``; a property is never run, no ``repr`` of user objects is called: they
show as their type). Values the group's collectives produced are remembered, so an input that
shows one of them is marked *agreed*.

The way is read off the next line the frame runs: inside the body, the branch was taken. Each
line is written (and flushed) as it happens, so a rank killed in a hang leaves what it recorded
up to its stack. ``sys.settrace`` is set for the recording thread only and restored after.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import inspect
import json
import os
import sys
import sysconfig
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

RECORD_ENV = "DESKCHECK_RECORD"  # "off" turns the congruence arms' recording off
_MAX_VALUE = 48
_LIBRARY_ROOTS = tuple(sorted({str(Path(p).resolve()) + os.sep for p in (
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"], str(Path(__file__).resolve().parents[1]))}))


@dataclass(frozen=True)
class Branch:
    """One decision of the source: its kind, condition text, and the lines that mean 'taken'."""

    kind: str  # "if", "while" or "for"
    condition: str
    head: tuple[int, int]  # the lines of the condition (a line event there is not a way yet)
    body: tuple[int, int]  # a line event inside means the branch (or the loop body) was taken
    reads: tuple[str, ...]  # names and attribute chains the condition reads


def recording_enabled() -> bool:
    """Whether congruence arms record decisions (``DESKCHECK_RECORD=off`` turns it off)."""
    return os.environ.get(RECORD_ENV, "").strip().lower() not in {"off", "0", "no", "false"}


def recording_every_task() -> bool:
    """``DESKCHECK_RECORD=all`` (``--record``): every rank-pool task records, not only arms."""
    return os.environ.get(RECORD_ENV, "").strip().lower() == "all"


def is_project_file(filename: str) -> bool:
    """True for code a test's decision reaches: not the stdlib, site-packages or deskcheck."""
    if filename.startswith("<"):
        return False
    return not str(Path(filename).resolve()).startswith(_LIBRARY_ROOTS)


_BRANCHES: dict[str, dict[int, Branch]] = {}


def branches_of(filename: str) -> dict[int, Branch]:
    """Every decision of a source file, keyed by the line its condition starts on (cached)."""
    if filename not in _BRANCHES:
        try:
            tree = ast.parse(Path(filename).read_text(encoding="utf-8"), filename)
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        found: dict[int, Branch] = {}
        for node in ast.walk(tree):
            branch = _branch(node)
            if branch is not None:
                found[node.lineno] = branch
        _BRANCHES[filename] = found
    return _BRANCHES[filename]


def _branch(node: ast.AST) -> Branch | None:
    if isinstance(node, (ast.If, ast.While)):
        test, kind = node.test, "if" if isinstance(node, ast.If) else "while"
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        test, kind = node.iter, "for"
    else:
        return None
    body = node.body
    head_end = test.end_lineno or node.lineno
    if isinstance(node, (ast.For, ast.AsyncFor)):
        head_end = max(head_end, node.target.end_lineno or head_end)
    condition = ast.unparse(test) if kind != "for" \
        else f"{ast.unparse(node.target)} in {ast.unparse(test)}"
    return Branch(kind, condition, (node.lineno, head_end),
                  (body[0].lineno, max(b.end_lineno or b.lineno for b in body)), _reads(test))


def _reads(test: ast.expr) -> tuple[str, ...]:
    """Names and attribute chains the condition reads, outermost chain only, called names not."""
    called = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
    inner = {id(n.value) for n in ast.walk(test) if isinstance(n, ast.Attribute)}
    out: list[str] = []
    for node in ast.walk(test):
        if id(node) in called or id(node) in inner or not isinstance(node, (ast.Name,
                                                                             ast.Attribute)):
            continue
        text = _chain(node)
        if text and text not in out:
            out.append(text)
    return tuple(out)


def _chain(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


_MISSING = object()
_PROPERTY = "<property>"
_NOT_AN_INPUT = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)


def _static_attribute(value: Any, attr: str) -> Any:
    """``inspect.getattr_static`` for the common cases, fast: the instance's own ``__dict__``,
    then the classes of its MRO; never runs a descriptor."""
    own = getattr(value, "__dict__", None)
    if type(own) is dict and attr in own:
        return own[attr]
    for klass in type(value).__mro__:
        if attr in klass.__dict__:
            return klass.__dict__[attr]
    try:
        return inspect.getattr_static(value, attr)  # modules, classes as values, the rest
    except AttributeError:
        return _MISSING


def _lookup(frame: types.FrameType, chain: str) -> Any:
    """The value ``chain`` (``x`` or ``self.a.b``) has in ``frame``, never running a property."""
    head, *rest = chain.split(".")
    if head in frame.f_locals:
        value = frame.f_locals[head]
    elif head in frame.f_globals:
        value = frame.f_globals[head]
    else:
        return _MISSING
    if not rest and isinstance(value, _NOT_AN_INPUT):
        return _MISSING
    for attr in rest:
        found = _static_attribute(value, attr)
        if found is _MISSING:
            return _MISSING
        if isinstance(found, (types.MemberDescriptorType, types.GetSetDescriptorType)):
            found = getattr(value, attr, _MISSING)  # __slots__ and C fields: plain storage
        elif isinstance(found, (property, functools.cached_property)):
            return _PROPERTY
        value = found
    return value


_SCALARS = (bool, int, float, str, bytes, type(None))
_NUMBERS = (bool, int, float, type(None))
_MASK = 0xFFFFFFFF


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:8]


def _user_repr(value: Any) -> bool:
    """Whether ``repr(value)`` would run a ``__repr__`` written in project code (a user
    subclass of ``str`` or ``int``); the built-in and standard-library ones (enums) are safe."""
    return _user_repr_of(type(value))


@functools.cache
def _user_repr_of(klass: type) -> bool:
    code = getattr(klass.__repr__, "__code__", None)
    return code is not None and is_project_file(code.co_filename)


def show(value: Any) -> str:
    """A short, stable rendering that never runs user code: scalars and small containers of
    scalars by their repr (a digest when long), anything else by its type (and length)."""
    if value is _PROPERTY:
        return value
    if isinstance(value, _SCALARS) and not _user_repr(value):
        text = repr(value)
        if len(text) <= _MAX_VALUE:
            return text
        return f"<{type(value).__name__} sha1:{_sha1(text)}>"
    if isinstance(value, (tuple, list)) and len(value) <= 256 \
            and not any(_user_repr(v) for v in value):
        if all(isinstance(v, _NUMBERS) for v in value):  # hash() of numbers is the same in
            if len(value) <= 8:                          # every process: cheap and stable
                return repr(value)
            return f"<{type(value).__name__} len={len(value)} #{hash(tuple(value)) & _MASK:08x}>"
        if all(isinstance(v, _SCALARS) for v in value):
            text = repr(value)
            return text if len(text) <= _MAX_VALUE \
                else f"<{type(value).__name__} len={len(value)} sha1:{_sha1(text)}>"
    try:
        size = f" len={len(value)}" if isinstance(value, (tuple, list, dict, set, frozenset,
                                                            str, bytes)) else ""
    except TypeError:
        size = ""
    return f"<{type(value).__name__}{size}>"


_TOO_COMMON = frozenset({"0", "1", "-1", "True", "False", "None", "0.0", "1.0", "()", "[]"})
_SUSPENDS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_COLLECTIVES = ("all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
                "broadcast", "reduce", "all_gather_object", "broadcast_object_list",
                "all_to_all_single")


class DecisionRecorder:
    """Traces project frames of the current thread and writes each decision to ``out``.

    Two kinds of record: a branch (``if``/``while``/``for``: the way taken) and a call of a
    project function (the value it returned, its arguments as inputs). Values a collective of
    the group produced are remembered as *agreed*: an input showing one of them is marked so.
    """

    def __init__(self, out: TextIO, include: Callable[[str], bool] = is_project_file):
        self.out = out
        self.include = include
        self.count = 0
        self.agreed: set[str] = set()
        self._wanted: dict[types.CodeType, bool] = {}
        self._pending: dict[types.FrameType, tuple[Branch, int, dict[str, str]]] = {}
        self._args: dict[types.FrameType, dict[str, str]] = {}
        self._raised: dict[types.FrameType, str] = {}
        self._loops: dict[tuple[types.FrameType, int], tuple[Branch, int]] = {}
        self._path: list[str] = []

    def _trace_calls(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        wanted = self._wanted.get(code)
        if wanted is None:
            wanted = self._wanted[code] = self.include(code.co_filename) \
                and not code.co_name.startswith("<")  # comprehensions and lambdas: no calls
        if not wanted:
            return None
        self._path.append(getattr(code, "co_qualname", code.co_name))
        count = code.co_argcount + code.co_kwonlyargcount
        names = code.co_varnames[:count]
        local = frame.f_locals
        self._args[frame] = {n: show(local[n]) for n in names
                             if n not in ("self", "cls") and n in local}
        return self._trace_lines

    def _inputs(self, frame: types.FrameType, branch: Branch) -> dict[str, str]:
        inputs = {}
        for chain in branch.reads:
            value = _lookup(frame, chain)
            if value is not _MISSING:
                inputs[chain] = show(value)
        return inputs

    def _trace_lines(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        pending = self._pending.get(frame)
        if event == "exception":
            self._raised[frame] = f"raised {arg[0].__name__}"
        elif event == "line":
            self._raised.pop(frame, None)  # handled inside the frame
            line = frame.f_lineno
            if pending is not None and not pending[0].head[0] <= line <= pending[0].head[1]:
                del self._pending[frame]
                self._resolve(frame, pending, pending[0].body[0] <= line <= pending[0].body[1])
            branch = branches_of(frame.f_code.co_filename).get(line)
            if branch is not None and frame not in self._pending:
                # an if's values are read before its body runs; a loop's when it ends
                inputs = self._inputs(frame, branch) if branch.kind == "if" else {}
                self._pending[frame] = (branch, line, inputs)
        elif event == "return":
            if pending is not None:  # the branch ran no line of its own after the condition
                del self._pending[frame]
                self._resolve(frame, pending, None)
            for key in [k for k in self._loops if k[0] is frame]:  # returned inside a loop
                branch, count = self._loops.pop(key)
                self._write_branch(frame, (branch, key[1], self._inputs(frame, branch)), count)
            code = frame.f_code
            args = self._args.pop(frame, {})
            raised = self._raised.pop(frame, None)
            if not code.co_flags & _SUSPENDS:  # a yield is not a return
                self._emit(code.co_filename, code.co_firstlineno, "call",
                           f"{getattr(code, 'co_qualname', code.co_name)}({', '.join(args)})",
                           raised or show(arg), args)
            if self._path:
                self._path.pop()
        return self._trace_lines

    def _resolve(self, frame: types.FrameType, pending: tuple[Branch, int, dict[str, str]],
                 taken: bool | None) -> None:
        """An if is written at once; a loop counts its iterations and is written once, with
        its trip count, when it ends (one record a loop, not one an iteration)."""
        branch, line, _inputs = pending
        if branch.kind == "if":
            self._write_branch(frame, pending, taken)
            return
        key = (frame, line)
        if taken:
            _branch, count = self._loops.get(key, (branch, 0))
            self._loops[key] = (branch, count + 1)
        else:
            _branch, count = self._loops.pop(key, (branch, 0))
            self._write_branch(frame, (branch, line, self._inputs(frame, branch)), count)

    def _write_branch(self, frame: types.FrameType,
                      pending: tuple[Branch, int, dict[str, str]], took: bool | int | None
                      ) -> None:
        branch, line, inputs = pending
        self._emit(frame.f_code.co_filename, line, branch.kind, branch.condition, took, inputs)

    def _emit(self, file: str, line: int, kind: str, condition: str,
              took: bool | int | str | None,
              inputs: dict[str, str]) -> None:
        self.count += 1
        record = {"n": self.count, "c": _collectives(), "file": file, "line": line,
                  "kind": kind, "condition": condition, "took": took, "inputs": inputs,
                  "agreed": [k for k, v in inputs.items() if v in self.agreed],
                  "path": list(self._path)}
        self.out.write(json.dumps(record) + "\n")

    def _wrap(self, collective: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(collective)
        def remembering(*args: Any, **kwargs: Any) -> Any:
            result = collective(*args, **kwargs)
            for value in (*args, *kwargs.values()):
                self._remember(value)
            return result
        return remembering

    def _remember(self, value: Any) -> None:
        """Note the values a collective left in its tensors and lists as agreed (not the
        commonest ones, 0, 1, -1, booleans and None, which would mark half the inputs)."""
        tolist = getattr(value, "tolist", None)
        if callable(tolist) and getattr(value, "numel", lambda: 1 << 20)() <= 4096:
            value = tolist()
        if isinstance(value, list):
            flat: list[Any] = []
            for item in value:
                flat.extend(item if isinstance(item, list) else [item])
            self.agreed.update(show(v) for v in flat)
            self.agreed.add(show(value))
        elif isinstance(value, _SCALARS):
            self.agreed.add(show(value))
        self.agreed -= _TOO_COMMON

    @contextlib.contextmanager
    def active(self) -> Iterator[DecisionRecorder]:
        dist = sys.modules.get("torch.distributed")
        originals = {name: getattr(dist, name) for name in _COLLECTIVES
                     if dist is not None and hasattr(dist, name)}
        for name, function in originals.items():
            setattr(dist, name, self._wrap(function))
        previous = sys.gettrace()
        sys.settrace(self._trace_calls)
        try:
            yield self
        finally:
            sys.settrace(previous)
            for name, function in originals.items():
                setattr(dist, name, function)
            self._pending.clear()
            self._args.clear()
            self._raised.clear()
            self._loops.clear()
            self._path.clear()


def _collectives() -> int:
    """How many collectives the default group has run (0 outside a process group)."""
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is None or not dist.is_initialized():
            return 0
        return int(dist.group.WORLD._get_sequence_number_for_group())
    except Exception:  # noqa: BLE001 - a backend without sequence numbers: no epochs
        return 0


def rank_file(folder: str | Path, rank: int) -> Path:
    """Where rank ``rank`` writes its decisions inside ``folder``."""
    return Path(folder) / f"rank{rank}.jsonl"


@contextlib.contextmanager
def record_decisions(folder: str | Path, rank: int,
                     include: Callable[[str], bool] | Sequence[str] | None = None,
                     ) -> Iterator[DecisionRecorder]:
    """Record this rank's decisions into ``folder`` for :func:`deskcheck.suites.first_split`.

    Use it inside each rank of your own multi-rank test (``mp.spawn``, your own groups):
    ``with record_decisions(tmp, rank): step()``. ``include`` narrows what is recorded: a
    predicate on file names, or path fragments (``["tp_scheduler/"]``); default: project code.
    """
    if include is None:
        chosen: Callable[[str], bool] = is_project_file
    elif callable(include):
        chosen = include
    else:
        fragments = tuple(include)
        chosen = lambda name: any(f in name for f in fragments)  # noqa: E731
    with open(rank_file(folder, rank), "a", buffering=1, encoding="utf-8") as out:
        with DecisionRecorder(out, chosen).active() as recorder:
            yield recorder
