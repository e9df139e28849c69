"""Record which way each decision of production code went, inside a rank process.

The recorded functions are those of project code (not the standard library, site-packages or
deskcheck; ``include`` narrows them) found in the loaded modules and the recording caller's
own namespace. For the recorded run each one's ``__code__`` is swapped for an instrumented copy
(:mod:`deskcheck.suites._instrument`) and restored after, so the rest runs at full speed and
no trace function is set. Each decision becomes a record: where (file:line, function, the call
path of recorded functions), the condition's text, the way taken (an ``if``'s or a ternary's
way, a loop's trip count, the value a call returned or a declared agreed field was given), and
the values its condition read, as it read them (user objects show as their type, no ``repr``
of them is run). Values the group's collectives produced are remembered, so an input showing
one of them is marked *agreed*.

Records are written before every collective and at the end, so a rank killed in a hang leaves
what it recorded up to the collective it waits in. A record is cheap at the cause: no text is
made for a number, bool, None or str (the reader shows them, only when a split is asked for),
and a call is two rows, its entry and its return, from which the reader builds the call path.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import enum
import functools
import io
import linecache
import marshal
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from deskcheck.suites._instrument import HOOK, REWRITES, SITES
from deskcheck.suites._swap import FunctionSwap
from deskcheck.suites._values import NOT_AN_INPUT, is_project_file, show

__all__ = ["RECORD_ENV", "DecisionRecorder", "is_project_file", "prepare_recording",
           "rank_file", "record_decisions", "recording_enabled", "recording_every_task", "show"]

RECORD_ENV = "DESKCHECK_RECORD"  # "off" turns the congruence arms' recording off
_FLUSH_EVERY = 512
# marshal's format 2: no table of the objects written (format 3 on keeps one, to write each
# object once: a third of a batch's time); a value that holds itself is refused, and shown
_MARSHAL = 2


def recording_enabled() -> bool:
    """Whether congruence arms record decisions (``DESKCHECK_RECORD=off`` turns it off)."""
    return os.environ.get(RECORD_ENV, "").strip().lower() not in {"off", "0", "no", "false"}


def recording_every_task() -> bool:
    """``DESKCHECK_RECORD=all`` (``--record``): every rank-pool task records, not only arms."""
    return os.environ.get(RECORD_ENV, "").strip().lower() == "all"


_get_ident = threading.get_ident
# Kept as they are, shown when read; the rest is kept shown (its text, as bytes: a str is a
# value the code read), or, for a list or tuple, as it is (see _kept).
_RAW = frozenset((bool, int, float, type(None), str))
# A read that is no input (skipped after an and/or, or a function, module or class read by a
# plain name), in a decision's tuple of reads: marshal writes it, and the one value that
# could be read as it (the class itself) is no input anyway.
NO_INPUT = StopIteration
_TOO_COMMON = frozenset({"0", "1", "-1", "True", "False", "None", "0.0", "1.0", "()", "[]"})
_SCALARS = (bool, int, float, str, bytes, type(None))
_COLLECTIVES = ("all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
                "broadcast", "reduce", "all_gather_object", "broadcast_object_list",
                "all_to_all_single")


class _Missing:
    """A read the condition skipped this time (after an ``and``/``or``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not read>"


MISSING = _Missing()


class _PassThrough:
    """The hooks while nothing records (a closure built during a recorded run, called
    later): every value goes through unchanged."""

    missing = MISSING

    def d(self, _site: int, result: Any, _values: tuple[Any, ...]) -> bool:
        return True if result else False

    def stored(self, _site: int, value: Any, _values: tuple[Any, ...]) -> Any:
        return value

    def o(self) -> dict[str, Any]:
        return {}

    def v(self, _name: str, value: Any) -> Any:
        return value

    def b(self, _site: int, _values: dict[str, Any], result: Any) -> bool:
        return bool(result)

    def loop(self, _site: int, _values: dict[str, Any], _count: int) -> None:
        return None

    def s(self, _site: int, _values: dict[str, Any], value: Any) -> Any:
        return value

    def e(self, _site: int, _args: tuple[Any, ...]) -> int:
        return -1

    def r(self, _depth: int, value: Any) -> Any:
        return value

    def x(self, _depth: int, _exc: BaseException) -> None:
        return None


_IDLE = _PassThrough()


class DecisionRecorder(_PassThrough):
    """The hooks of the instrumented functions, for the thread that records; writes each
    decision to ``out`` (JSON lines, as :mod:`deskcheck.suites.records` reads them)."""

    def __init__(self, out: TextIO, include: Callable[[str], bool] = is_project_file,
                 include_key: Any = None):
        """``include_key``: a hashable name of ``include``: the functions it chose are
        remembered under it for the next recording in this process."""
        self.out = out
        self.swap = FunctionSwap(include, include_key)
        self.epoch = 0
        self.agreed: set[str] = set()
        self.thread = threading.get_ident()
        self._open: list[dict[str, Any]] = []
        self._depth = 0  # the calls entered and not yet left
        self._buffer: list[tuple[Any, ...]] = []
        self._new_agreed: set[str] = set()  # agreed since the last line written
        self._file: _Written | None = None  # what the file held before this recording
        # a binary file (record_decisions opens one, unbuffered) is given each line as bytes
        self._binary = isinstance(out, (io.RawIOBase, io.BufferedIOBase))
        self.rewritten: list[str] = []  # what this recording had to instrument first

    # -- the hooks (see _instrument) --------------------------------------------------------
    # Cheap at the cause: a hook keeps a number, bool, None or str as it is (shown by the
    # reader, only when a split is asked for) and shows a user object by its type now (a list
    # is copied: it may change before the flush); a row is one tuple, ``(site, way, inputs)``
    # for a decision, ``(site, args)`` for a call's entry and ``(~depth, value)`` for its
    # return (with no args or a None value: the int alone); the record's number, its epoch,
    # the call path and the agreed inputs are the reader's.
    def o(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        self._open.append(values)
        return values

    def v(self, name: str, value: Any) -> Any:
        stack = self._open
        if stack:
            kind = type(value)
            if kind in _RAW:
                stack[-1][name] = value
            elif kind in _AS_TYPE:  # a user object: shown by its type
                stack[-1][name] = _AS_TYPE[kind]
            elif "." in name or not isinstance(value, NOT_AN_INPUT):
                stack[-1][name] = _kept(value)
        return value

    def _close(self, values: dict[str, Any]) -> bool:
        stack = self._open
        if stack and stack[-1] is values:
            stack.pop()
            return True
        for index in range(len(stack) - 1, -1, -1):
            if stack[index] is values:
                del stack[index:]
                return True
        return False

    def b(self, site: int, values: dict[str, Any], result: Any) -> bool:
        took = True if result else False
        stack = self._open
        if stack and stack[-1] is values:
            stack.pop()
        elif not self._close(values):
            return took
        self._emit(site, took, values)
        return took

    def d(self, site: int, result: Any, values: tuple[Any, ...]) -> bool:
        """A decision: its condition's value and the values it read (bound in the copy)."""
        took = True if result else False
        for value in values:  # the commonest: every input a number, bool, None or str
            if type(value) not in _RAW:
                values = _shown_inputs(site, values)
                break
        buffer = self._buffer  # _emit, inline: the commonest record
        buffer.append((site, took, values))
        if len(buffer) >= _FLUSH_EVERY:
            self.flush()
        return took

    def stored(self, site: int, value: Any, values: tuple[Any, ...]) -> Any:
        self._emit(site, _keep(value), _inputs(site, values))
        return value

    def loop(self, site: int, values: dict[str, Any] | tuple[Any, ...], count: int) -> None:
        where = SITES[site]
        if where.kind == "while":  # the frame's locals as the loop ended
            self._emit(site, count, _kept_values(_ended_on(values, where.names)))  # type: ignore[arg-type]
        elif type(values) is tuple:
            self._emit(site, count, _inputs(site, values))
        elif self._close(values):  # type: ignore[arg-type]
            self._emit(site, count, values)

    def s(self, site: int, values: dict[str, Any], value: Any) -> Any:
        if self._close(values):
            self._emit(site, _keep(value), values)
        return value

    def e(self, site: int, args: tuple[Any, ...]) -> int:
        if _get_ident() != self.thread:
            return -1
        if args:
            for arg in args:
                if type(arg) not in _RAW:
                    args = tuple(map(_keep, args))
                    break
            self._buffer.append((site, args))
        else:
            self._buffer.append(site)
        depth = self._depth
        self._depth = depth + 1
        return depth

    def r(self, depth: int, value: Any) -> Any:
        if 0 <= depth < self._depth:  # a call entered in this recording, on this thread
            self._depth = depth
            buffer = self._buffer
            buffer.append(~depth if value is None else (
                ~depth, value if type(value) in _RAW else _keep(value)))
            if len(buffer) >= _FLUSH_EVERY:
                self.flush()
        return value

    def x(self, depth: int, exc: BaseException) -> None:
        if 0 <= depth < self._depth:
            self._depth = depth
            self._buffer.append((~depth, f"raised {type(exc).__name__}".encode()))

    # -- records ----------------------------------------------------------------------------
    def _emit(self, site: int, took: Any, inputs: dict[str, Any] | tuple[Any, ...]) -> None:
        buffer = self._buffer
        buffer.append((site, took, inputs))
        if len(buffer) >= _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what was recorded so far (before a collective: a hang keeps it): one line
        with the batch of rows, the collectives run before them (their epoch: a flush comes
        before every collective), the sites this file lacks, and the values the group agreed
        on since the last line (:mod:`deskcheck.suites.records` reads it); no loop over the
        rows here."""
        rows = self._buffer
        if not rows:
            return
        self._buffer = []
        new = 0
        written = self._file
        if written is None:  # a new recording: the reader's numbers, agreed, calls start anew
            written = self._file = _written(self.out)
            new = 1
        known = len(SITES)  # the file's table: every site of this process up to now
        table = _site_table(written.sites, known) if written.sites < known else b""
        written.sites = known
        agreed = sorted(self._new_agreed)
        self._new_agreed.clear()
        try:  # marshal: a tenth of json's time; the line stays a JSON line a cut drops
            packed = marshal.dumps((self.epoch, rows, agreed, new), _MARSHAL)
        except ValueError:  # a list kept as it is holds an object marshal refuses: mended
            packed = marshal.dumps((self.epoch, _marshalable(rows), agreed, new), _MARSHAL)
        line = b'{"r":"' + base64.b64encode(packed) + b'","s":"' + table + b'"}\n'
        if self._binary:
            self.out.write(line)  # type: ignore[arg-type]
        else:
            self.out.write(line.decode("ascii"))
            self.out.flush()

    # -- collectives ------------------------------------------------------------------------
    def collective(self, collective: Callable[..., Any], args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Any:
        """Run a collective of the group: what was recorded is written first (a hang keeps
        it), the values it agreed on are remembered after."""
        self.flush()
        result = collective(*args, **kwargs)
        for value in (*args, *kwargs.values()):
            self._remember(value)
        self.epoch = _collectives()
        return result

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
            shown = {show(v) for v in flat}
            shown.add(show(value))
        elif isinstance(value, _SCALARS):
            shown = {show(value)}
        else:
            return
        shown -= _TOO_COMMON
        self._new_agreed.update(shown - self.agreed)
        self.agreed |= shown

    # -- the swap ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def active(self, namespaces: Sequence[dict[str, Any]] = (),
               named: Sequence[types.FunctionType] = ()) -> Iterator[DecisionRecorder]:
        """Swap the instrumented copies in (restored on exit); ``named``: functions to record
        whatever their file."""
        dist = sys.modules.get("torch.distributed")
        originals = {name: getattr(dist, name) for name in _COLLECTIVES
                     if dist is not None and hasattr(dist, name)}
        for name, function in originals.items():
            setattr(dist, name, _remembering(function))
        previous = getattr(builtins, HOOK, _IDLE)
        setattr(builtins, HOOK, self)
        self.epoch = _collectives()
        before = len(REWRITES)
        swapped = self.swap.swap_in(namespaces, named)
        self.rewritten = REWRITES[before:]
        try:
            yield self
        finally:
            for function, code in swapped:
                function.__code__ = code
            setattr(builtins, HOOK, previous)
            for name, function in originals.items():
                setattr(dist, name, function)
            self.flush()
            self._open.clear()
            self._depth = 0


_WRAPPERS: dict[Callable[..., Any], Callable[..., Any]] = {}  # a collective -> its wrapper
_WRAPPED: set[Callable[..., Any]] = set()  # the wrappers


def _remembering(collective: Callable[..., Any]) -> Callable[..., Any]:
    """``collective`` as a recording runs it (:meth:`DecisionRecorder.collective`, by the
    recorder the hooks name at the call), built once a process."""
    if collective in _WRAPPED:  # a recording inside a recording: wrapped once
        return collective
    wrapper = _WRAPPERS.get(collective)
    if wrapper is None:
        @functools.wraps(collective)
        def remembering(*args: Any, **kwargs: Any) -> Any:
            recorder = getattr(builtins, HOOK, None)
            if isinstance(recorder, DecisionRecorder):
                return recorder.collective(collective, args, kwargs)
            return collective(*args, **kwargs)
        wrapper = _WRAPPERS[collective] = remembering
        _WRAPPED.add(wrapper)
    return wrapper


_AS_TYPE: dict[type, bytes] = {}  # the types of user objects -> how they are kept
_SIZED = {set: "set", frozenset: "frozenset", dict: "dict"}
# The exact types the first item of a list or tuple kept as it is may have (show() shows a
# flat one by its repr or a hash of numbers, the same in any process; marshal writes them).
_FLAT = frozenset((bool, int, float, str, bytes, type(None)))
_FLAT_MAX = 256  # longer ones show() shows by their type and length: shown now
_MEMBERS: dict[int, tuple[Any, bytes]] = {}  # an enum member's id -> (the member, its text)


def _kept(value: Any) -> Any:
    """A value that is no number, bool, None or str, as a record keeps it: shown now (its
    text as bytes: the reader takes it as it is), or a list or tuple that starts with a
    scalar kept as it is (a list copied now), which the reader shows as :func:`show` would
    (what show() says of it depends on its length and on its items' types and scalars, which
    the copy keeps; marshal takes exact scalar types only, and a batch it refuses is mended
    by :func:`_marshalable`); a user object's type is remembered, its next value is kept
    without a call, an enum member's text too."""
    kind = type(value)
    if kind in _SIZED:  # show()'s answer for a plain set or dict: its type and size
        return f"<{_SIZED[kind]} len={len(value)}>".encode()
    if kind is list or kind is tuple:  # marshal writes it, the reader shows it
        if len(value) <= _FLAT_MAX and (not value or type(value[0]) in _FLAT):
            return value[:] if kind is list else value
    else:
        member = _MEMBERS.get(id(value))
        if member is not None and member[0] is value:
            return member[1]
    text = show(value).encode()
    if isinstance(value, enum.Enum):  # a member lives as long as its class: kept with it
        _MEMBERS[id(value)] = (value, text)
        return text
    if text == f"<{kind.__name__}>".encode() and not issubclass(
            kind, (*NOT_AN_INPUT, tuple, list, dict, set, frozenset, str, bytes)):
        _AS_TYPE[kind] = text
    return text


def _keep(value: Any) -> Any:
    """``value`` as a hook keeps it (see :meth:`DecisionRecorder.v`)."""
    kind = type(value)
    if kind in _RAW:
        return value
    kept = _AS_TYPE.get(kind)
    return kept if kept is not None else _kept(value)


def _inputs(site: int, values: tuple[Any, ...]) -> tuple[Any, ...]:
    """A decision's bound reads as a record keeps them, a tuple in the order of the site's
    names: itself when every one is a number, bool, None or str, else each kept as
    :meth:`DecisionRecorder.v` keeps it, a read that is no input (:data:`MISSING`; a
    function, module or class read by a plain name) as :data:`NO_INPUT`."""
    for value in values:
        if type(value) not in _RAW:
            return _shown_inputs(site, values)
    return values


_DOTTED: dict[int, tuple[bool, ...]] = {}  # a site -> which of its reads are attribute chains


def _shown_inputs(site: int, values: tuple[Any, ...]) -> tuple[Any, ...]:
    """:func:`_inputs` of reads not all numbers, bools, None or str."""
    dotted = _DOTTED.get(site)
    if dotted is None:
        dotted = _DOTTED[site] = tuple("." in name for name in SITES[site].names)
    return tuple(map(_input, values, dotted))


def _input(value: Any, dotted: bool) -> Any:
    """One read, as :func:`_shown_inputs` keeps it."""
    if value is MISSING:
        return NO_INPUT
    kind = type(value)
    if kind in _RAW:
        return value
    kept = _AS_TYPE.get(kind)
    if kept is not None:
        return kept
    if not dotted and isinstance(value, NOT_AN_INPUT):
        return NO_INPUT
    return _kept(value)


def _marshalable(rows: list[Any]) -> list[Any]:
    """``rows`` with each kept value marshal refuses (a list that started with a scalar and
    holds an object further on) shown, as bytes (see :func:`_kept`)."""
    mended: list[Any] = []
    for row in rows:
        if type(row) is int:
            mended.append(row)
        elif len(row) == 3:  # a decision: its way and its inputs
            site, took, inputs = row
            inputs = {k: _written_value(v) for k, v in inputs.items()} \
                if type(inputs) is dict else tuple(map(_written_value, inputs))
            mended.append((site, _written_value(took), inputs))
        elif row[0] >= 0:  # a call's entry: its args
            mended.append((row[0], tuple(map(_written_value, row[1]))))
        else:  # a call's return: its value
            mended.append((row[0], _written_value(row[1])))
    return mended


def _written_value(value: Any) -> Any:
    """``value`` if marshal writes it, else shown (bytes)."""
    try:
        marshal.dumps(value, _MARSHAL)
    except ValueError:
        return show(value).encode()
    return value


_SITE_ROWS: dict[int, tuple[Any, ...]] = {}
_SITE_TABLES: dict[tuple[int, int], bytes] = {}  # a range of sites -> its table, packed


def _site_table(start: int, end: int) -> bytes:
    """The table of the sites ``start`` to ``end`` as a flush writes it (marshal, base64),
    built once a range: a rank writes the same range into each new rank file."""
    table = _SITE_TABLES.get((start, end))
    if table is None:
        if len(_SITE_TABLES) >= 256:
            _SITE_TABLES.clear()
        table = _SITE_TABLES[start, end] = base64.b64encode(marshal.dumps(
            {site: _site_row(site) for site in range(start, end)}))
    return table


def _site_row(site: int) -> tuple[Any, ...]:
    """A site as a rank file's table holds it (file, line, kind, condition, function, the
    names its inputs pair with)."""
    row = _SITE_ROWS.get(site)
    if row is None:
        where = SITES[site]
        row = _SITE_ROWS[site] = (where.file, where.line, where.kind, where.condition,
                                  where.function, where.names if where.kind != "while" else ())
    return row


def _kept_values(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` as a hook keeps them: immutable scalars as they are, the rest shown now,
    functions, modules and classes (no input of a condition) left out."""
    return {k: _keep(v) for k, v in values.items()
            if type(v) in _RAW or "." in k or not isinstance(v, NOT_AN_INPUT)}


def _ended_on(local: dict[str, Any], reads: Sequence[str]) -> dict[str, Any]:
    """The values of ``reads`` in a frame's locals: attribute chains through instance
    ``__dict__`` only (no property or descriptor is run)."""
    values: dict[str, Any] = {}
    for name in reads:
        head, *rest = name.split(".")
        value = local.get(head, _IDLE)
        for attr in rest:
            own = getattr(value, "__dict__", None)
            value = own.get(attr, _IDLE) if type(own) is dict else _IDLE
        if value is not _IDLE:
            values[name] = value
    return values


@dataclass
class _Written:
    """What a rank file already holds: the table of the sites up to ``sites`` (a process
    numbers its sites in order), which later batches refer to."""

    size: int = 0
    sites: int = 0


_WRITTEN: dict[tuple[int, int], _Written] = {}


def _written(out: TextIO) -> _Written:
    """The file's own table (a file emptied or made anew since starts a new one)."""
    try:
        stat = os.fstat(out.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return _Written()
    key = (stat.st_dev, stat.st_ino)
    known = _WRITTEN.get(key)
    if known is None or stat.st_size < known.size or stat.st_size == 0:
        known = _WRITTEN[key] = _Written()
    known.size = stat.st_size + 1  # grows with this write
    return known


def _collectives() -> int:
    """How many collectives the default group has run (0 outside a process group)."""
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is None or not dist.is_initialized():
            return 0
        return int(dist.group.WORLD._get_sequence_number_for_group())
    except Exception:  # noqa: BLE001 - a backend without sequence numbers: no epochs
        return 0


def prepare_recording(namespaces: Sequence[dict[str, Any]] = ()) -> int:
    """Build the instrumented copies a default recording (project code) swaps in, now: the
    first use rewrites whole modules (seconds on a loaded machine), which inside a recorded
    task would count against its collectives' timeout. How many functions have one."""
    return FunctionSwap(is_project_file, "project").prepare(namespaces)


def rank_file(folder: str | Path, rank: int) -> Path:
    """Where rank ``rank`` writes its decisions inside ``folder``."""
    return Path(folder) / f"rank{rank}.jsonl"


def _callers_namespace() -> dict[str, Any]:
    """The globals of the code that entered :func:`record_decisions` (a script's or a test
    module's own functions are recorded even when it is not an imported module)."""
    frame = sys._getframe(1)
    here = (__file__, contextlib.__file__)
    while frame is not None and frame.f_code.co_filename in here:
        frame = frame.f_back  # type: ignore[assignment]
    return frame.f_globals if frame is not None else {}


@contextlib.contextmanager
def record_decisions(folder: str | Path, rank: int,
                     include: Callable[[str], bool] | Sequence[str] | None = None,
                     functions: Sequence[Callable[..., Any]] = (),
                     ) -> Iterator[DecisionRecorder]:
    """Record this rank's decisions into ``folder`` for :func:`deskcheck.suites.first_split`.

    Use it inside each rank of your own multi-rank test (``mp.spawn``, your own groups):
    ``with record_decisions(tmp, rank): step()``. ``include`` narrows what is recorded: a
    predicate on file names, or path fragments (``["tp_scheduler/"]``); default: project code
    (the functions of loaded modules and of the caller's module). ``functions``: more functions
    to record by name (built by ``exec``, not in any module).
    """
    if include is None:
        chosen: Callable[[str], bool] = is_project_file
        key: Any = "project"
    elif callable(include):
        chosen, key = include, include
    else:
        fragments = tuple(include)
        chosen = lambda name: any(f in name for f in fragments)  # noqa: E731
        key = fragments
    namespace = _callers_namespace()
    named = [f for f in functions if isinstance(f, types.FunctionType)]
    unreadable = [f for f in named if not linecache.getlines(f.__code__.co_filename)]
    if unreadable:
        raise ValueError("record_decisions cannot record " + ", ".join(
            f"{f.__qualname__} ({f.__code__.co_filename}:{f.__code__.co_firstlineno})"
            for f in unreadable) + ": its source cannot be read (built by exec from a string "
            "with no file behind it); fix: compile it from a file "
            "(`exec(compile(text, path, 'exec'), ns)` with the text written to path) or put "
            "the text in linecache under its file name")
    with open(os.path.join(folder, f"rank{rank}.jsonl"), "ab", buffering=0) as out:
        with DecisionRecorder(out, chosen, key).active([namespace], named) as recorder:
            yield recorder
