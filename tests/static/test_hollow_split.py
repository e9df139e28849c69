"""Hollow parsing (deskcheck/static/_hollow.py): which defs are hollowed, the exact lines
each ``Body`` spans, strings and comments that only look like code, and ``parse_body``'s
refusal of a split that does not hold exactly one def."""

from __future__ import annotations

import ast

import pytest

from deskcheck.static._hollow import Body, _inside_string, hollow, parse_body


def _real_defs(text: str) -> dict[int, tuple[int, int]]:
    """{def line: (end line, column)} of the top-level functions and methods of the full
    parse: what the hollow split must find (those with two body lines or more)."""
    out = {}
    for node in ast.parse(text).body:
        inner = node.body if isinstance(node, ast.ClassDef) else [node]
        for d in inner:
            if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and \
                    d.end_lineno - d.body[0].lineno >= 1:
                out[d.lineno] = (d.end_lineno, d.col_offset)
    return out


def _assert_split(text: str) -> dict[int, Body]:
    split = hollow(text)
    want = _real_defs(text)
    got = {} if split is None else {k: (b.end_line, b.indent) for k, b in split[1].items()}
    assert got == want, (
        "every top-level function and method with two body lines or more is hollowed, each "
        f"Body spanning its def line to its real last line, and nothing else:\n got  {got}\n "
        f"want {want}")
    if split is not None:
        hollow_text = split[0]
        assert len(hollow_text.splitlines()) == len(text.splitlines()), "line count changed"
        lines = text.splitlines(keepends=True)
        for body in split[1].values():
            node = parse_body(lines, body, "m.py")
            assert (node.lineno, node.end_lineno) == (body.def_line, body.end_line), (
                f"parse_body of the Body at line {body.def_line} must give the def at its own "
                f"lines; got {node.lineno}-{node.end_lineno}")
        # the hollow text keeps every non-function statement, strings included, unchanged
        module_strings = [ast.dump(s) for s in ast.parse(hollow_text).body
                          if not isinstance(s, ast.FunctionDef | ast.ClassDef)]
        assert module_strings == [ast.dump(s) for s in ast.parse(text).body
                                  if not isinstance(s, ast.FunctionDef | ast.ClassDef)], (
            "a module-level statement (a string holding text that looks like a def) was "
            "changed by the hollow split")
    return {} if split is None else split[1]


def test_a_def_on_the_first_line_and_defs_without_blank_lines_between_are_hollowed():
    _assert_split("def first(a):\n    b = a\n    return b\ndef second(a):\n    b = a\n"
                  "    return b\nx = 1\ndef third(a):\n    b = a\n    return b\n")


def test_a_def_right_after_a_one_line_def_is_hollowed():
    bodies = _assert_split("def one(a): return a\ndef two(a):\n    b = a\n    return b\n")
    assert list(bodies) == [2], bodies


def test_a_comment_at_column_zero_inside_a_body_does_not_end_it():
    bodies = _assert_split("class C:\n    def m(self):\n        a = 1\n# a note at column 0\n"
                           "        b = 2\n        return a + b\n")
    assert bodies[2].end_line == 6, bodies


def test_a_comment_holding_two_hashes_after_the_signature_is_still_hollowed():
    bodies = _assert_split("def f(self):  # see issue #12 and #13\n    a = 1\n    return a\n")
    assert list(bodies) == [1], bodies


def test_a_one_line_def_is_not_hollowed_even_with_continuation_lines():
    text = "def f(x): return \\\n        x + \\\n        1\n"
    assert hollow(text) is None, (
        "a def whose body is on its own line ('def f(x): return ...') is a one-line def: "
        "the docstring of _header_end says it is not hollowed")


def test_an_unfinished_def_on_the_last_line_is_not_hollowed():
    assert hollow("x = 1\ndef f(x):\n") is None, (
        "a def with no body (a truncated file) has nothing to hollow; the caller's full "
        "parse then reports the syntax error")


TRIPLE = '''\
x = """start
end""" + """second
def fake_a(self):
    a = 1
    return a
"""
y = \'\'\'
def fake_b(self):
    a = 1
    return a
\'\'\'
z = 1  # a comment with """ in it
def real_a(self):
    a = 1
    return a
w = """an escaped \\""" does not close it
def fake_c(self):
    a = 1
    return a
"""
v = """
\\""" at the start of a line does not close it either
def fake_d(self):
    a = 1
    return a
"""
u = """ends with a quote\\""""
def real_b(self):
    a = 1
    return a
t = """a"""# comment with """
def real_c(self):
    a = 1
    return a
s = """x \\""" y""" + """z
def fake_e(self):
    a = 1
    return a
"""
def real_d(self):
    a = 1
    return a
'''


def test_defs_inside_triple_quoted_strings_are_never_hollowed():
    bodies = _assert_split(TRIPLE)
    names = {TRIPLE.splitlines()[line - 1].split("(")[0] for line in bodies}
    assert names == {"def real_a", "def real_b", "def real_c", "def real_d"}, names


def test_inside_string_tells_which_lines_start_inside_a_triple_quoted_string():
    lines = TRIPLE.splitlines(keepends=True)
    inside = _inside_string(lines)
    want = [False] * len(lines)
    for start, end in ((2, 6), (8, 11), (17, 20), (22, 26), (36, 39)):
        for line in range(start, end + 1):
            want[line - 1] = True
    wrong = [i + 1 for i, (a, b) in enumerate(zip(inside, want, strict=True)) if a != b]
    assert not wrong, f"lines {wrong} were judged wrongly (inside a triple-quoted string or not)"


# --- parse_body: exactly one def, or SyntaxError ---------------------------------------------

@pytest.mark.parametrize("chunk, indent", [
    ("    def f(self):\n        return 1\nx = 2\n", 4),          # a dedented statement after
    ("    def f(self):\n        return 1\n    def g(self):\n        return 2\n", 4),
    ("def f():\n    return 1\ndef g():\n    return 2\n", 0),
])
def test_parse_body_refuses_a_split_that_is_not_exactly_one_def(chunk, indent):
    lines = chunk.splitlines(keepends=True)
    body = Body(1, len(lines), indent)
    with pytest.raises(SyntaxError, match=r"hollow split of m\.py:1 did not yield one def"):
        parse_body(lines, body, "m.py")


@pytest.mark.parametrize("indent", [0, 4])
def test_parse_body_names_the_file_of_a_split_that_does_not_parse(indent):
    pad = " " * indent
    lines = [f"{pad}def f(self):\n", f"{pad}    return (\n"]
    with pytest.raises(SyntaxError) as raised:
        parse_body(lines, Body(1, 2, indent), "pkg/sched.py")
    assert raised.value.filename == "pkg/sched.py", (
        f"the SyntaxError must name the file split, got {raised.value.filename!r}")
