"""What discovery finds: constructions of stand-ins, the tests that drive them, problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class _Unknown:
    """A value deskcheck cannot know without running the test."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()

# construction kinds
NEW = "new"              # Cls.__new__(Cls) / object.__new__(Cls): real methods, no __init__
NAMESPACE = "namespace"  # SimpleNamespace(...)
MOCK = "mock"            # MagicMock(spec=Cls) / create_autospec(Cls) / a spec-less Mock
PLAIN = "plain"          # an instance of a plain class defined in the test file
NONE = "none"            # None passed as self (Cls.method(None, ...)): provides no name


@dataclass(frozen=True)
class SetName:
    """A name the test sets on a stand-in: where, the source text, and the literal value
    (``UNKNOWN`` when it is not a constant)."""

    name: str
    line: int
    text: str
    value: Any = UNKNOWN

    @property
    def constant(self) -> bool:
        return self.value is not UNKNOWN


@dataclass(frozen=True)
class Choices:
    """A name the test binds to one literal per row: a loop over a literal tuple or list
    (``for fast in (True, False)``), a parametrize table's column. ``row`` is this name's
    value in each row; names of one table or loop share ``source``, so a call passing two
    of them walks their rows together, never a mix of rows."""

    source: int
    row: tuple[Any, ...]


def is_marker(name: str) -> bool:
    """``req.``: the stand-in's field ``req`` holds a namespace whose names are all listed
    (``req.rid``...), so a name it lacks is judged (see ``Obj.nested``); ``queue.[]`` and
    ``queue.[].rid``: the field ``queue`` holds a container whose elements' names are listed
    (what their classes provide included). Not a name set, nor one to find reverse."""
    return name.endswith(".") or ".[]" in name


@dataclass
class Construction:
    """One place a stand-in is built (``file:line``), and the names set on it there, in the
    factories it is returned through and in the fixture that yields it."""

    file: str
    line: int
    kind: str
    form: str                       # the construction as written, shortened
    model_expr: str | None          # the class expression as written (``Scheduler``)
    scope: str                      # the function it is built in
    sets: dict[str, SetName] = field(default_factory=dict)
    class_names: tuple[str, ...] = ()   # PLAIN: names its class body and methods provide
    fields: dict[str, object] = field(default_factory=dict)  # PLAIN: attributes known by value
    through: list[str] = field(default_factory=list)  # factories/fixtures returning it
    dynamic: list[str] = field(default_factory=list)  # names set in ways deskcheck cannot read
    # a namespace handed on whole (to a call, another name, a container): what it holds
    # may change where deskcheck does not look, so it is not listed inside another
    escaped: bool = False

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.file, self.line, id(self))


@dataclass(frozen=True)
class Drive:
    """A test drives a production method on a stand-in: ``Cls.method(obj)``,
    ``obj.method()`` on a ``__new__`` instance, or ``MethodType(Cls.method, obj)``."""

    construction: Construction
    test: str            # pytest node id
    test_file: str
    method: str
    model_expr: str      # the class expression the method is taken from
    how: str             # "Cls.method(obj)" | "obj.method()" | "MethodType" | "property"
    file: str
    line: int
    sets: tuple[SetName, ...] = ()   # every name set on the stand-in when it is driven
    args: Any = None  # deskcheck.static.CallArgs: what the test's call passes (None: unknown)
    argument: str = ""  # how="argument": the parameter (position after self, or keyword)
    receiver: tuple[SetName, ...] = ()  # how="argument": the names the method's self holds

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Problem:
    """Something discovery could not judge, with where it is, why, and the fix."""

    kind: str    # syntax-error | unresolved-model | missing-method | too-dynamic
    file: str
    line: int
    message: str
    fix: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "line": self.line,
                "message": self.message, "fix": self.fix}

    def render(self) -> str:
        return f"{self.where}: {self.message}\n  fix: {self.fix}"


@dataclass
class FileFindings:
    """Everything one test file yields."""

    file: str
    constructions: list[Construction] = field(default_factory=list)
    drives: list[Drive] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    unfollowed: list[Any] = field(default_factory=list)  # flow.Unfollowed, judged later


@dataclass(frozen=True)
class Symbol:
    """A module-level name a test assigns, such as an enum member
    (``sglang.srt.disaggregation.utils.DisaggregationMode.NULL``)."""

    name: str

    @property
    def short(self) -> str:
        return ".".join(self.name.split(".")[-2:])

    def __repr__(self) -> str:
        return self.short


@dataclass(frozen=True, slots=True)
class Constructed:
    """A production class the test builds with literal arguments and passes to the driven
    method (``AbortReq(abort_all=True)``): resolved into its known fields when judged
    (``record_values``). Slots, no ``__dict__``: never read as an object with fields."""

    qualified: str
    positional: tuple[Any, ...]
    keywords: tuple[tuple[str, Any], ...]
    where: str

    def __repr__(self) -> str:
        args = [repr(v) for v in self.positional] + [f"{k}={v!r}" for k, v in self.keywords]
        return f"{self.qualified.rpartition('.')[2]}({', '.join(args)})"
