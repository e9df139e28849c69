"""A ready-to-paste catalog entry for a surviving auto mutant.

The entry uses the catalog's ``replace`` operator with an exact snippet that occurs once in the
target function (the changed line when it is unique, else the mutated node, else the smallest
unique run of whole lines), so the mutant survives refactors elsewhere in the function and goes
STALE, visibly, when its own code changes. Owners are left for the reviewer to fill in: the
covering tests are listed in a comment.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence

from deskcheck.mutants.auto.generate import AutoMutant

_TOKEN = re.compile(r"\w+|\*\*=?|//=?|<<=?|>>=?|[<>!=]=|[-+*/%&|^@]=|\S")
_SYMBOL_WORDS = {
    "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne",
    "+": "plus", "-": "minus", "*": "times", "/": "div", "//": "floordiv", "%": "mod",
    "**": "pow", "&": "bitand", "|": "bitor", "^": "xor", "<<": "lshift", ">>": "rshift",
    "~": "invert", "=": "assign", "+=": "iadd", "-=": "isub", "*=": "imul", "/=": "idiv",
}
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def toml_string(text: str) -> str:
    """A TOML basic string (JSON escapes are valid TOML escapes)."""
    return json.dumps(text, ensure_ascii=False)


def _words(tokens: Sequence[str]) -> str:
    return "-".join(_SYMBOL_WORDS.get(t, t) for t in tokens if t.strip()) or "none"


def change_slug(before: str, after: str) -> str:
    """``ge-to-gt`` style name of what changed between two lines."""
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    removed: list[str] = []
    added: list[str] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed.extend(old[i1:i2])
            added.extend(new[j1:j2])
    slug = f"{_words(removed[:4])}-to-{_words(added[:4])}"
    return _ID_UNSAFE.sub("_", slug)[:48].strip("-_")


def suggested_id(mutant: AutoMutant) -> str:
    leaf = mutant.module.rsplit(".", 1)[-1]
    function = mutant.function.rsplit(".", 1)[-1].strip("_") or "fn"
    slug = change_slug(mutant.changed_line_before, mutant.changed_line_after)
    return _ID_UNSAFE.sub("_", f"{leaf}.{function}.{mutant.family.lower()}-{slug}")


def _reproduces(source: str, mutated: str, old: str, new: str) -> bool:
    return bool(old) and source.count(old) == 1 and source.replace(old, new, 1) == mutated


def _line_windows(source: str, mutated: str) -> Iterable[tuple[str, str]]:
    """Growing runs of whole lines around the changed region (both sides)."""
    a, b = source.splitlines(keepends=True), mutated.splitlines(keepends=True)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    tail = 0
    while tail < min(len(a), len(b)) - start and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    for grow in range(0, len(a)):
        lo, hi_a, hi_b = max(0, start - grow), len(a) - tail + grow, len(b) - tail + grow
        yield "".join(a[lo:hi_a]).rstrip("\n"), "".join(b[lo:hi_b]).rstrip("\n")
        if lo == 0 and hi_a >= len(a):
            return


def replace_snippet(mutant: AutoMutant) -> tuple[str, str] | None:
    """``(old, new)`` for the ``replace`` operator, or ``None`` if nothing unique reproduces it."""
    source, mutated = mutant.function_source, mutant.mutated_function_source
    candidates = [(mutant.changed_line_before, mutant.changed_line_after),
                  (mutant.original, mutant.mutated), *_line_windows(source, mutated)]
    for old, new in candidates:
        if _reproduces(source, mutated, old, new):
            return old, new
    return None


def catalog_entry(mutant: AutoMutant, covering_tests: Sequence[str] = ()) -> str:
    """The TOML ``[[mutant]]`` table a reviewer can paste into the catalog."""
    snippet = replace_snippet(mutant)
    title = (f"{mutant.function}: {mutant.changed_line_before} -> "
             f"{mutant.changed_line_after} ({mutant.family}, found by deskcheck auto)")
    lines = [
        "[[mutant]]",
        f"id = {toml_string(suggested_id(mutant))}",
        f"title = {toml_string(title)}",
        f"target = {toml_string(mutant.target)}",
        'operator = "replace"',
    ]
    if snippet is None:
        lines.append("# no unique snippet reproduces this mutant: widen `old` by hand")
        lines.append(f"old = {toml_string(mutant.changed_line_before)}")
        lines.append(f"new = {toml_string(mutant.changed_line_after)}")
    else:
        lines.append(f"old = {toml_string(snippet[0])}")
        lines.append(f"new = {toml_string(snippet[1])}")
    covering = ", ".join(covering_tests) if covering_tests else "none"
    lines.append(f"owners = []  # fill in the test that must kill it; covering now: {covering}")
    return "\n".join(lines) + "\n"
