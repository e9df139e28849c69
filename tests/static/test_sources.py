"""Reading and parsing production source (docs/drift.md, *The production surface*: "each file
is parsed once per content hash ... hollow: method bodies are left out and each is parsed when
the trace first enters it (line numbers exact; any doubt about the split falls back to a full
parse)"; *Errors*: "a syntax error in a production file (file:line)"). Pinned: the errors for
a file that does not parse or cannot be read; each file keeps its own path, text and tree even
when another has the same content; a file in another encoding; exact lines inside a hollowed
body; a wrong split still gives the real def; one snapshot per Sources. Gaps mutmut found in
static/_sources.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from deskcheck.drift_guard import clear_cache
from deskcheck.errors import SourceResolutionError
from deskcheck.static._hollow import Body
from deskcheck.static._sources import Sources
from deskcheck.static._surface import surface

SYNTAX_FIX = "fix the syntax error at that line (deskcheck parses, never imports)"


@pytest.fixture(autouse=True)
def _cold_caches():
    clear_cache()
    yield
    clear_cache()


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _defs(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


# -- errors ----------------------------------------------------------------------------------

BROKEN_AT_MODULE_LEVEL = """\
class K:
    def run(self):
        first = self.a
        return first

x = (1,
"""


@pytest.mark.parametrize("hollow", [True, False], ids=["hollow", "full"])
def test_a_syntax_error_is_named_at_its_file_and_line_with_the_fix(tmp_path, hollow):
    path = _write(tmp_path / "broken.py", BROKEN_AT_MODULE_LEVEL)
    with pytest.raises(SourceResolutionError) as caught:
        Sources(hollow=hollow).parse(path)
    got = (caught.value.message, caught.value.location, caught.value.fix)
    assert got == ("syntax error in production source: '(' was never closed",
                   f"{path.resolve()}:6", SYNTAX_FIX), (
        f"an unclosed '(' at line 6 (after a method the hollow parse leaves out) must be "
        f"reported with Python's words at file:6 and the fix; got {got}")


def test_a_file_python_cannot_locate_the_error_in_is_named_at_line_1(tmp_path):
    path = _write(tmp_path / "nul.py", b"class K:\n    x = 1\x00\n")
    with pytest.raises(SourceResolutionError) as caught:
        Sources().parse(path)
    got = (caught.value.message, caught.value.location, caught.value.fix)
    assert got == ("syntax error in production source: source code string cannot contain "
                   "null bytes", f"{path.resolve()}:1", SYNTAX_FIX), (
        f"a null byte is a syntax error Python gives no line for: it must be reported at "
        f"line 1 of the file, with the fix; got {got}")


def test_a_syntax_error_inside_a_method_body_is_named_when_the_trace_enters_it(tmp_path):
    _write(tmp_path / "pkg" / "__init__.py", "")
    path = _write(tmp_path / "pkg" / "mod.py", """\
class K:
    def fine(self):
        value = self.a
        return value

    def broken(self):
        value = self.b
        return value +
""")
    ok = surface("pkg.mod:K.fine", roots=[tmp_path], mode="static")
    assert set(ok.names) == {"a"}, (
        f"K.fine parses (the broken body is another method's): its surface is self.a; "
        f"got {sorted(ok.names)}")
    with pytest.raises(SourceResolutionError) as caught:
        surface("pkg.mod:K.broken", roots=[tmp_path], mode="static")
    got = (caught.value.message, caught.value.location, caught.value.fix)
    assert got == ("syntax error in production source: invalid syntax",
                   f"{path.resolve()}:8", SYNTAX_FIX), (
        f"the syntax error at line 8 of K.broken's body must be reported at file:8 with the "
        f"fix when the trace enters it; got {got}")


def test_a_file_that_cannot_be_read_is_named_with_the_fix(tmp_path):
    missing = tmp_path / "gone.py"
    with pytest.raises(SourceResolutionError) as caught:
        Sources().parse(missing)
    got = (caught.value.message, caught.value.location, caught.value.fix)
    assert got == ("cannot read production source: No such file or directory",
                   str(missing.resolve()), "check the path and the --root folders"), (
        f"a production file that does not exist must be named with the reason and the fix; "
        f"got {got}")


# -- one parse per content, each file its own ------------------------------------------------

SAME = """\
class K:
    def run(self):
        first = self.a
        return first
"""


@pytest.mark.parametrize("hollow", [True, False], ids=["hollow", "full"])
def test_files_with_the_same_content_each_keep_their_own_path_and_text(tmp_path, hollow):
    one = _write(tmp_path / "one.py", SAME)
    two = _write(tmp_path / "two.py", SAME)
    sources = Sources(hollow=hollow)
    got = [(p.path, p.data) for p in (sources.parse(one), sources.parse(two))]
    expected = [(str(one.resolve()), SAME.encode()), (str(two.resolve()), SAME.encode())]
    assert got == expected, (
        f"one.py and two.py hold the same text: they share a parse, but each must name its "
        f"own file and hold its text; got {got}")


def test_a_full_parse_holds_every_body(tmp_path):
    path = _write(tmp_path / "mod.py", SAME)
    parsed = Sources(hollow=False).parse(path)
    run = _defs(parsed.tree)["run"]
    assert parsed.bodies == {} and ast.unparse(run.body[0]) == "first = self.a", (
        f"Sources(hollow=False) must parse every body (citations need each def's real "
        f"extent): bodies {parsed.bodies}, run's first statement "
        f"{ast.unparse(run.body[0])!r}")
    hollow = Sources().parse(path)
    assert set(hollow.bodies) == {2}, (
        f"the default (hollow) parse leaves run's body (line 2) for later; got {hollow.bodies}")


def test_a_sources_reads_each_file_once(tmp_path):
    path = _write(tmp_path / "mod.py", SAME)
    sources = Sources()
    first = sources.parse(path)
    path.write_text(SAME.replace("self.a", "self.b"), encoding="utf-8")
    again = sources.parse(path)
    assert again.data == first.data == SAME.encode(), (
        "one Sources is one snapshot: a file edited after it was read is read from the "
        "first text again, so a model never mixes two versions of a file")
    fresh = Sources().parse(path)
    assert b"self.b" in fresh.data, "a new Sources must read the edited file"


LATIN = "# -*- coding: latin-1 -*-\nclass {name}:\n    def m(self):\n" \
        "        label = 'caf\xe9'\n        return self.{attr}\n"


def test_a_file_in_another_declared_encoding_is_parsed_each_its_own(tmp_path):
    _write(tmp_path / "pkg" / "__init__.py", "")
    one = _write(tmp_path / "pkg" / "one.py", LATIN.format(name="One", attr="first")
                 .encode("latin-1"))
    two = _write(tmp_path / "pkg" / "two.py", LATIN.format(name="Two", attr="second")
                 .encode("latin-1"))
    for path, name, attr in ((one, "One", "first"), (two, "Two", "second")):
        parsed = Sources().parse(path)
        classes = [n.name for n in parsed.tree.body if isinstance(n, ast.ClassDef)]
        assert (parsed.path, classes) == (str(path.resolve()), [name]), (
            f"{path.name} declares latin-1 (PEP 263) and is not UTF-8: it must be parsed "
            f"as its own file with class {name}; got {parsed.path} with {classes}")
        found = surface(f"pkg.{path.stem}:{name}.m", roots=[tmp_path], mode="static")
        assert set(found.names) == {attr}, (
            f"{name}.m reads self.{attr}; got {sorted(found.names)}")


# -- hollow bodies: exact lines, and a wrong split never gives a wrong answer ----------------

def test_a_statement_spanning_lines_in_a_hollowed_body_keeps_its_lines(tmp_path):
    _write(tmp_path / "pkg" / "__init__.py", "")
    path = _write(tmp_path / "pkg" / "mod.py", """\
class K:
    def total(self):
        return (self.first +
                self.second)
""")
    found = surface("pkg.mod:K.total", roots=[tmp_path], mode="static")
    lines = {name: [s.line for s in use.sites] for name, use in found.names.items()}
    assert lines == {"first": [3], "second": [4]}, (
        f"self.first is read at line 3 and self.second at line 4 of {path.name} (one return "
        f"statement over two lines): line numbers must be exact; got {lines}")


SPLIT = """\
class K:
    def first(self):
        a = self.a
        return a

    def target(self):
        b = (self.{attr} +
             self.c)
        return b
"""


def test_a_wrong_split_of_a_body_falls_back_to_the_real_def(tmp_path):
    got = []
    for name, attr in (("one.py", "b"), ("two.py", "x")):
        path = _write(tmp_path / name, SPLIT.format(attr=attr))
        parsed = Sources().parse(path)
        assert set(parsed.bodies) == {2, 6}, f"both methods are hollowed: {parsed.bodies}"
        parsed.bodies[6] = Body(6, 7, 4)  # a split that cuts target's body mid-statement
        hollow_target = _defs(parsed.tree)["target"]
        real = parsed.function(hollow_target)
        got.append((real.name, real.lineno, real.end_lineno, ast.unparse(real.body[0])))
    assert got == [("target", 6, 9, "b = self.b + self.c"),
                   ("target", 6, 9, "b = self.x + self.c")], (
        "a split that ends a body inside a statement cannot be parsed alone: each file's "
        "real def (its name, lines 6-9 and first statement) must come from a full parse of "
        f"that file, never another def nor another file's; got {got}")


def test_the_full_parse_of_a_hollow_file_is_that_files(tmp_path):
    got = []
    for name, attr in (("one.py", "b"), ("two.py", "x")):
        path = _write(tmp_path / name, SPLIT.format(attr=attr))
        parsed = Sources().parse(path)
        full = parsed.full()
        target = _defs(full.tree)["target"]
        got.append((full.path, full.bodies, ast.unparse(target.body[0])))
    assert got == [(str((tmp_path / "one.py").resolve()), {}, "b = self.b + self.c"),
                   (str((tmp_path / "two.py").resolve()), {}, "b = self.x + self.c")], (
        f"full() of a hollow parse must be that same file parsed with every body; got {got}")


def test_a_path_with_dots_or_a_link_is_read_as_the_file_it_names(tmp_path):
    """A path is looked up as the file it resolves to (``..`` and symbolic links followed), so
    an overlay given for the file answers every spelling of it, and the file is recorded as
    read once."""
    from deskcheck.static import Sources

    (tmp_path / "pkg").mkdir()
    (tmp_path / "other").mkdir()
    module = tmp_path / "pkg" / "mod.py"
    module.write_text("X = 1\n")
    (tmp_path / "link.py").symlink_to(module)
    sources = Sources(overlay={str(module): "X = 2\n"})
    for asked in (tmp_path / "other" / ".." / "pkg" / "mod.py", tmp_path / "link.py"):
        assert sources.text(asked) == b"X = 2\n", (
            f"{asked} names {module}: the overlay text must answer it (the path resolved, not "
            f"only made absolute), got {sources.text(asked)!r}")
        assert sources.parse(asked).digest == sources.parse(module).digest, (
            f"{asked} and {module} are one file: parsed as one content")
    assert list(sources.read) == [str(module.resolve())], (
        f"one file read under three spellings must be recorded once, got {list(sources.read)}")
