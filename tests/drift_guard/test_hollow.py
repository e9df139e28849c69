"""Hollow parsing (bodies parsed on first use) must give exactly the full parse's bodies,
and fall back to the full parse whenever its line split is in doubt."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from deskcheck.drift_guard import surface
from deskcheck.static._hollow import hollow, parse_body
from deskcheck.static._sources import Sources

TRICKY = '''\
"""Module docstring.
class NotAClass:
def not_a_method(self):
    pass
"""
import os


def top(a, b=(1, 2)):
    x = """
def fake(self):
    return 1
"""
    return a + b[0] + len(x)


class C:
    @property
    def p(self):
        """Doc with ( unbalanced."""
        return self.a

    @p.setter
    def p(self, value):
        self.a = value

    def one_liner(self): return self.b

    async def coro(self,
                   x: int = 3,
                   ) -> int:
        async def inner():
            return self.c
        return await inner()

    def sig_with_colon(self, d: dict = {"k": 1}):  # comment: yes
        y = self.d  # trailing
        # comment at low indent
        return y

    def backslash(self):
        total = 1 + \\
            2
        return total + self.e
'''


def _bodies_match(text: str, tmp_path: Path, name: str = "m.py") -> int:
    """Every def of the hollow tree, through ``ParsedFile.function``, equals the full parse."""
    path = tmp_path / name
    path.write_text(text)
    parsed = Sources().parse(path)
    split = hollow(text)
    assert split is not None and parsed.bodies == split[1], (
        f"the hollow split of {name} must give the same function bodies as the parsed file; split "
        f"is {'None' if split is None else 'a different body map'}"
    )
    assert len(split[0].splitlines()) == len(text.splitlines()), (
        f"the hollow tree of {name} must keep every line ({len(text.splitlines())}); it has "
        f"{len(split[0].splitlines())}"
    )
    full = {(n.lineno, n.col_offset): n for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    seen = 0
    for node in ast.walk(parsed.tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            got, want = parsed.function(node), full[(node.lineno, node.col_offset)]
            assert ast.dump(got.args, include_attributes=True) == \
                ast.dump(want.args, include_attributes=True), (
                f"the arguments of {node.name} (line {node.lineno}) from the hollow tree differ "
                "from the full parse's"
            )
            assert [ast.dump(s, include_attributes=True) for s in got.body] == \
                [ast.dump(s, include_attributes=True) for s in want.body], node.lineno
            seen += 1
    assert seen == sum(1 for n in ast.walk(ast.parse(split[0]))
                       if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), (
        f"every def of the hollow tree of {name} must be compared; compared {seen}"
    )
    lines = text.splitlines(keepends=True)
    for body in split[1].values():
        parse_body(lines, body, name)  # every split yields exactly one def
    return len(split[1])


def test_hollow_bodies_equal_the_full_parse_on_tricky_source(tmp_path):
    assert _bodies_match(TRICKY, tmp_path) == 5, (
        "the 5 defs of the tricky source (top, p, coro, sig_with_colon, backslash) must be split; "
        f"{_bodies_match(TRICKY, tmp_path)} were"
    )  # top, p, coro, sig_with_colon, backslash


def test_strings_that_look_like_defs_are_not_split():
    split = hollow(TRICKY)
    assert split is not None, "the tricky source must split (hollow() returned None)"
    assert all(line > 5 for line in split[1]), (
        "text inside the module docstring that looks like a def must not be split; bodies at "
        f"lines {sorted(split[1])}"
    )  # nothing inside the module docstring


def test_a_doubtful_split_falls_back_to_the_full_parse(tmp_path: Path):
    odd = "class S:\n    def f(self):\n        x = (\n1,\n)\n        return self.x\n"
    path = tmp_path / "odd.py"
    path.write_text(odd)
    parsed = Sources().parse(path)
    method = parsed.tree.body[0].body[0]
    assert [type(s).__name__ for s in parsed.function(method).body] == ["Assign", "Return"], (
        "a doubtful split must fall back to the full parse of the method body (Assign, Return); "
        f"it gave {[type(s).__name__ for s in parsed.function(method).body]}"
    )


def test_hollow_and_full_surfaces_agree(shop_root, tmp_path):
    import shutil

    from deskcheck.static import _sources

    hollow_result = surface("dg_shop.scheduler:Scheduler.run_once", roots=[shop_root])
    _sources.clear_cache()
    shutil.copytree(shop_root / "dg_shop", tmp_path / "dg_shop")
    original = Sources.__init__

    def full_only(self, overlay=None, *, hollow=True):
        original(self, overlay, hollow=False)

    try:
        Sources.__init__ = full_only
        full_result = surface("dg_shop.scheduler:Scheduler.run_once", roots=[tmp_path])
    finally:
        Sources.__init__ = original

    def strip(result):
        return {n: [(s.line, s.kind, s.path) for s in u.sites] for n, u in result.names.items()}

    assert strip(hollow_result) == strip(full_result), (
        "the hollow and the full parse must give the same surface (names, lines, kinds, paths), "
        "yet they differ"
    )


@pytest.mark.skipif(not (Path(__file__).resolve().parents[2] / "bench/_work/sglang-0.5.23/sglang")
                    .is_dir(), reason="SGLang source not unpacked (python bench/drift_sglang.py)")
def test_hollow_bodies_equal_the_full_parse_on_sglang_managers(tmp_path):
    root = Path(__file__).resolve().parents[2] / "bench/_work/sglang-0.5.23/sglang/srt/managers"
    assert sum(_bodies_match(p.read_text(), tmp_path, p.name)
               for p in sorted(root.glob("sched*.py"))) > 100, (
        "the SGLang scheduler modules must give more than 100 defs whose hollow bodies equal the "
        "full parse"
    )
