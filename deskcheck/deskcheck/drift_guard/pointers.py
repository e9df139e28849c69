"""Citation drift: ``path.py:LINE`` citations in docs and comments must still point at the
symbol they name (a catalog citing ``:504`` for a def that moved to ``:547`` is drift).

The cited symbol is the code-like name right before the citation (``calc_priority
(schedule_policy.py:197)``, ``` `Foo.bar` at foo.py:12 ```) or right after it in parentheses
or backticks (``foo.py:12 (`bar`)``). A bare ``:LINE`` reuses the last cited file of the
same text. Without a symbol only the file and line are checked to exist.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deskcheck.errors import SourceResolutionError
from deskcheck.static import Sources

_TEXT_SUFFIXES = {".md", ".rst", ".txt", ".py", ".toml", ".cfg", ".ini", ".yaml", ".yml"}
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "_work", ".deskcheck",
              "build", "dist", ".tox", ".mypy_cache", ".ruff_cache"}
_CITE = re.compile(r"(?:(?<![\w/.-])(?P<path>[\w./-]*\w\.py)|(?<![\w:.)]))"
                   r":(?P<line>\d+)(?:-(?P<end>\d+))?(?![\d:])")
_BEFORE = re.compile(r"`?(?P<sym>[A-Za-z_][\w.]*)(?P<call>\(\))?`?\s*(?:\(|\bat\s+|\bin\s+|@\s*)?"
                     r"[`(]*$")
_AFTER = re.compile(r"^[`)]*\s*(?:\(\s*`?(?P<p>[A-Za-z_][\w.]*)(?:\(\))?`?\s*\)|`(?P<b>[A-Za-z_][\w.]*)"
                    r"(?:\(\))?`)")


@dataclass(frozen=True)
class Citation:
    file: str
    line: int
    text: str
    target: str
    start: int
    end: int
    symbol: str | None


@dataclass(frozen=True)
class PointerFinding:
    citation: Citation
    problem: str
    fix: str


@dataclass
class PointerReport:
    checked: list[Citation] = field(default_factory=list)
    findings: list[PointerFinding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def render(self) -> str:
        lines = [f"{f.citation.file}:{f.citation.line}: {f.citation.text}: {f.problem}\n"
                 f"  fix: {f.fix}" for f in self.findings]
        lines.append(f"{len(self.checked)} citation(s) checked, {len(self.findings)} stale")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checked": len(self.checked),
                "findings": [{"file": f.citation.file, "line": f.citation.line,
                              "citation": f.citation.text, "symbol": f.citation.symbol,
                              "problem": f.problem, "fix": f.fix} for f in self.findings]}


def _code_like(sym: str, backticked: bool, called: bool) -> bool:
    if keyword.iskeyword(sym) or not sym:
        return False
    return backticked or called or "_" in sym or "." in sym.strip(".") or \
        (sym[0].isupper() and any(c.islower() for c in sym[1:]) and any(c.isupper() for c in sym[1:]))


def _symbol(text: str, start: int, end: int) -> str | None:
    before = _BEFORE.search(text[:start])
    if before:
        sym = before.group("sym").strip(".")
        raw = before.group(0)
        if _code_like(sym, "`" in raw, bool(before.group("call"))):
            return sym
    after = _AFTER.match(text[end:])
    if after:
        return (after.group("p") or after.group("b")).strip(".")
    return None


def find_citations(file: Path) -> list[Citation]:
    out: list[Citation] = []
    last_path: str | None = None
    for number, text in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        for match in _CITE.finditer(text):
            path = match.group("path")
            if path is None:
                if last_path is None or match.start() > 0 and text[match.start() - 1] not in " (`[,":
                    continue
                path = last_path
            last_path = path
            target = f"{path}:{match.group('line')}" + (f"-{match.group('end')}" if match.group("end") else "")
            out.append(Citation(str(file), number, match.group(0), target, int(match.group("line")),
                                int(match.group("end") or match.group("line")),
                                _symbol(text, match.start(), match.end())))
    return out


class _Resolver:
    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [r.resolve() for r in roots]
        self._index: list[Path] | None = None

    def resolve(self, cited: str, citing: Path) -> list[Path]:
        for base in (citing.parent, *self.roots):
            candidate = (base / cited)
            if candidate.is_file():
                return [candidate.resolve()]
        suffix = "/" + cited.lstrip("./")
        return [p for p in self.index() if str(p).endswith(suffix)]

    def index(self) -> list[Path]:
        if self._index is None:
            self._index = [p.resolve() for r in self.roots for p in _walk(r, {".py"})]
        return self._index


def _walk(root: Path, suffixes: set[str]) -> Iterable[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.iterdir()):
        if path.is_dir():
            if path.name not in _SKIP_DIRS and not path.name.endswith(".egg-info"):
                yield from _walk(path, suffixes)
        elif path.suffix in suffixes:
            yield path


# the statement lists of a compound statement (an except handler or a match case is one too)
_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def _definitions(tree: ast.Module) -> list[tuple[str, str, int, int, int]]:
    """(qualname, name, first line incl. decorators, def line, last line) of every def/class."""
    out: list[tuple[str, str, int, int, int]] = []

    def walk(body: Iterable[ast.AST], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                qual = f"{prefix}{node.name}"
                out.append((qual, node.name, first, node.lineno, node.end_lineno or node.lineno))
                walk(node.body, qual + ".")
            else:  # if/else, for, while, with, try (its handlers, else, finally), match cases
                walk([child for block in _BLOCKS for child in getattr(node, block, [])], prefix)

    walk(tree.body, "")
    return out


def _check(cite: Citation, file: Path, sources: Sources) -> PointerFinding | None:
    lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    display = cite.target.rsplit(":", 1)[0]
    if cite.end > len(lines) or cite.start < 1:
        return PointerFinding(cite, f"{display} has {len(lines)} lines",
                              "update the line number to where the code is now")
    if cite.symbol is None:
        return None
    name = cite.symbol.split(".")[-1]
    owner = cite.symbol.split(".")[-2] if "." in cite.symbol else None
    try:
        defs = _definitions(sources.parse(file).tree)
    except SourceResolutionError:
        defs = []
    named = [d for d in defs if d[1] == name and (owner is None or d[0].endswith(f"{owner}.{name}")
                                                   or d[0] == name)]
    for _qual, _name, first, _def, last in named:
        if first <= cite.end and cite.start <= last:
            return None
    word = re.compile(rf"\b{re.escape(name)}\b")
    if any(word.search(lines[i - 1]) for i in range(cite.start, cite.end + 1)):
        return None
    if named:
        where = ", ".join(f"{display}:{d[3]}" for d in named)
        return PointerFinding(cite, f"line {cite.start} is not in `{cite.symbol}`; it is defined at "
                                    f"{where}", f"cite {display}:{named[0][3]}")
    return PointerFinding(cite, f"`{cite.symbol}` is not at {cite.target} and is not defined in "
                                f"{display}", "point the citation at where the symbol lives now")


def check_pointers(paths: Sequence[Path], roots: Sequence[Path] = (Path("."),)) -> PointerReport:
    """Check every ``path.py:LINE`` citation in ``paths`` (files or folders)."""
    resolver = _Resolver(roots)
    sources = Sources(hollow=False)  # citations need every def's real extent
    report = PointerReport()
    for root in paths:
        for text_file in _walk(root, _TEXT_SUFFIXES):
            for cite in find_citations(text_file):
                cited = cite.target.rsplit(":", 1)[0]
                found = resolver.resolve(cited, text_file)
                report.checked.append(cite)
                if not found:
                    report.findings.append(PointerFinding(
                        cite, f"no file {cited} under {[str(r) for r in resolver.roots]}",
                        "fix the path, or pass the folder it lives in with --root"))
                elif len(found) > 1:
                    report.findings.append(PointerFinding(
                        cite, f"{cited} is ambiguous: {[str(f) for f in found[:4]]}",
                        "cite a longer path that names one file"))
                else:
                    finding = _check(cite, found[0], sources)
                    if finding is not None:
                        report.findings.append(finding)
    return report
