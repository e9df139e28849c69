"""A parsed file's text for generating many mutants of it at the cost of one.

libcst regenerates ``Module.code`` on every access, and ``deep_replace`` copies the whole tree:
done per mutant, that was most of auto's generation time (measured 12-42 s on a 99-line diff).
Here the file's text is generated once, each mutant is spliced over its node's span, the
function the engine cuts is cut from that text at the original function's lines (the file's
``ast`` parsed once), and the diff is computed on the changed window only.
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import Any

import libcst as cst

from deskcheck.errors import SourceResolutionError


class ModuleText:
    """A parsed file's text, generated once (libcst regenerates ``Module.code`` on every
    access: per mutant, that was most of the generation's cost), with its line offsets."""

    def __init__(self, module: cst.Module):
        self.module = module
        self.code = module.code
        self.lines = self.code.splitlines(keepends=True)
        self._starts = [0]
        for line in self.lines:
            self._starts.append(self._starts[-1] + len(line))
        self._exact: dict[int, Any] = {}
        self._tree: tuple[ast.Module, list[str]] | None = None

    def offset(self, line: int, column: int) -> int:
        return self._starts[line - 1] + column

    def mutated_code(self, candidate: Any) -> str:
        """The file with the mutated node spliced over the original node's text; the whole
        module regenerated only when the node's text is not where its position says."""
        start = self.offset(candidate.line, candidate.column)
        end = self.offset(*candidate.end) if candidate.end != (0, 0) else -1
        original = self.module.code_for_node(candidate.node)
        # a node that owns whitespace around it (`` not in ``) may start before its position
        lead, trail = len(original) - len(original.lstrip()), len(original) - len(original.rstrip())
        for left, right in ((start, end), (start - lead, end + trail), (start - lead, end),
                            (start, end + trail)):
            if 0 <= left <= right and self.code[left:right] == original:
                return self.code[:left] + self.module.code_for_node(candidate.mutated) \
                    + self.code[right:]
        mutated = self.module.deep_replace(candidate.node, candidate.mutated)
        assert isinstance(mutated, cst.Module)
        return mutated.code

    def exact(self, path: str, candidate: Any, function_line: int) -> Any:
        """The function's source as the engine cuts it (``FunctionSource``), once per
        function; None when the engine cannot cut it either."""
        key = id(candidate.function)
        if key not in self._exact:
            self._exact[key] = self._cut(path, candidate, function_line)
        return self._exact[key]

    def _cut(self, path: str, candidate: Any, function_line: int) -> Any:
        from deskcheck.mutants.source import segment_of

        if self._tree is None:  # the file's ast, parsed once for all its functions
            normal = self.code.replace("\r\n", "\n").replace("\r", "\n")
            try:
                self._tree = (ast.parse(normal, filename=path),
                              normal.splitlines(keepends=True))
            except SyntaxError:
                return None
        tree, lines = self._tree
        try:
            return segment_of(path, lines, tree, tuple(candidate.qualname.split(".")),
                              function_line)
        except SourceResolutionError:
            return None

    def mutated_exact(self, mutated_code: str, source: Any) -> str | None:
        """The mutated function cut from ``mutated_code`` at the original function's lines
        (moved by the lines the mutant adds or removes), dedented as the engine dedents it:
        no parse of the whole mutated file per mutant."""
        if source is None:
            return None
        normal = mutated_code.replace("\r\n", "\n").replace("\r", "\n")
        lines = normal.splitlines(keepends=True)
        shift = len(lines) - len(self.code.replace("\r\n", "\n").replace("\r", "\n")
                                 .splitlines())
        segment = lines[source.start_line - 1:source.end_line + shift]
        indent = source.indent
        if not segment or any(line.strip() and not line.startswith(indent) for line in segment):
            return None
        text = "".join(line[len(indent):] if line.startswith(indent) else line
                       for line in segment)
        return text if text.endswith("\n") else text + "\n"


def window_diff(path: str, text: ModuleText, mutated_code: str, candidate: Any) -> str:
    """The unified diff of the file (2 lines of context), computed on the changed window."""
    mutated_lines = mutated_code.splitlines(keepends=True)
    first = max(0, candidate.line - 1 - 3)
    shift = len(mutated_lines) - len(text.lines)
    last = min(len(text.lines), candidate.end[0] + 3 if candidate.end[0] else candidate.line + 3)
    before, after = text.lines[first:last], mutated_lines[first:last + shift]
    body = list(difflib.unified_diff(before, after, fromfile=f"a/{path}", tofile=f"b/{path}",
                                     n=2))
    return "".join(_shift_hunks(body, first))


def _shift_hunks(lines: list[str], by: int) -> list[str]:
    """Hunk headers of a diff of a window moved to the window's place in the file."""
    header = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
    out = []
    for line in lines:
        found = header.match(line)
        if found:
            line = (f"@@ -{int(found.group(1)) + by}{found.group(2) or ''} "
                    f"+{int(found.group(3)) + by}{found.group(4) or ''} @@"
                    + line[found.end():])
        out.append(line)
    return out
