"""Catalog validation in one pass (docs/mutants.md, *Validation reports every problem in one
pass*): each problem of a catalog as ``catalog.toml:LINE: problem`` with its fix, sorted by
line, none held back for a second run. One catalog with a problem in every key pins the line,
the words and the fix of each; a wrong line, a lost problem or a missing fix is named by the
failure. Gaps mutmut found in mutants/catalog.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.errors import CatalogError
from deskcheck.mutants import load_catalog
from tests.owner_files import write_placeholder_owners

EVERY_PROBLEM = '''\
[sweep]
tests = "tests"
timeout_factor = 0
timeout_s = -1
search_timeout_s = inf
wrong_failure_types = "TypeError"
retries = 2

[[mutant]]
id = "bad id!"
title = "  "
target = "pkg.mod:func"
operator = "return"
value = "None"
owners = "tests/test_x.py::test_y"
expect = 5
accepted_survivor = " "
timeout_s = 0

[[mutant]]
id = "no.title"
target = "pkg/mod.py:12"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y", " "]
expect = "("

[[mutant]]
id = "twice"
title = "fine"
target = "pkg.mod:func"
operator = "teleport"
ownres = ["tests/test_x.py::test_y"]

[[mutant]]
id = "twice"
title = "again"
target = "pkg.mod:func"
operator = "return"
valeu = "None"
owners = ["tests/test_x.py::test_y"]

[[mutant]]
id = "after"
title = "an entry after a duplicate is still checked"
target = "pkg.mod:func"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y"]
timeout_s = -3
'''

OWNERS_FIX = 'e.g. owners = ["tests/test_x.py::test_y"]'
EXPECTED = [
    (2, "[sweep] tests must be a list of paths", 'e.g. tests = ["tests"]'),
    (3, "[sweep] timeout_factor must be a positive number", "e.g. timeout_factor = 3"),
    (4, "[sweep] timeout_s must be a positive number", "e.g. timeout_s = 3"),
    (5, "[sweep] search_timeout_s must be a positive number", "e.g. search_timeout_s = 3"),
    (6, "[sweep] wrong_failure_types must be a list of exception names",
     'e.g. wrong_failure_types = ["ImportError", "TypeError"]'),
    (7, "unknown [sweep] key 'retries'",
     "allowed keys: tests, timeout_factor, timeout_s, search_timeout_s, wrong_failure_types, crash_kills"),
    (10, "mutant id 'bad id!' has characters other than letters, digits, '_', '.', '-'",
     "rename it, e.g. ballot.M2"),
    (11, "mutant needs a non-empty string 'title'", 'add title = "..." to this [[mutant]]'),
    (15, "owners must be a list of test node ids or '-k EXPR' / '-m EXPR'", OWNERS_FIX),
    (16, "expect must be a regex string", 'e.g. expect = "told to admit"'),
    (17, "accepted_survivor needs the reason as a string",
     'e.g. accepted_survivor = "equivalent: the guard is re-checked below"'),
    (18, "timeout_s must be a positive number of seconds", "timeout_s = 5"),
    (20, "mutant needs a non-empty string 'title'", 'add title = "..." to this [[mutant]]'),
    (22, "target 'pkg/mod.py:12' is not 'package.module:Qualified.name' (line numbers are "
         "never used)", 'e.g. target = "tp_scheduler.prefetch_ballot:advance_mismatch_streak"'),
    (25, "owners must be a list of test node ids or '-k EXPR' / '-m EXPR'", OWNERS_FIX),
    (26, "expect is not a valid regex: missing ), unterminated subpattern at position 0",
     "fix the pattern"),
    (28, "mutant 'twice' has no owners: no owners = [...] and no test marked "
         "@pytest.mark.kills('twice') in the [sweep] tests",
     'add owners = ["tests/test_x.py::test_y"] (the test that must kill it)'),
    (32, "unknown operator 'teleport'",
     "use one of: drop-call, drop-collective, force-branch, group-size-one, offset, "
     "rank-local, reduce-op, replace, return, skip-on-rank, slot-shift, swap, swap-group"),
    (33, "unknown key 'ownres' in [[mutant]]; did you mean 'owners'?",
     "keys: id, title, target, operator, owners, expect, accepted_survivor, timeout_s + the "
     "operator's own"),
    (35, "duplicate mutant id 'twice' (first at line 28)", "give every mutant a unique id"),
    (39, "operator 'return' needs key 'value'",
     'add value = ... (value = "expression the function returns instead")'),
    (40, "unknown key 'valeu' in [[mutant]] (operator 'return'); did you mean 'value'?",
     "keys: id, title, target, operator, owners, expect, accepted_survivor, timeout_s; "
     "return: value"),
    (50, "timeout_s must be a positive number of seconds", "timeout_s = 5"),
]


def _problems(tmp_path: Path, text: str) -> tuple[CatalogError, list[tuple[int, str, str]]]:
    path = tmp_path / "mutants.toml"
    path.write_text(text)
    write_placeholder_owners(tmp_path)  # the owners exist: only the rules under test fire
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    found = []
    for error in info.value.errors:
        file, _, line = str(error.location).rpartition(":")
        assert file == str(path.resolve()), f"a problem is placed in another file: {file}"
        found.append((int(line), error.message, error.fix))
    return info.value, found


def test_every_problem_of_a_catalog_is_named_at_its_line_with_its_fix(tmp_path):
    error, found = _problems(tmp_path, EVERY_PROBLEM)
    missing = [p for p in EXPECTED if p not in found]
    extra = [p for p in found if p not in EXPECTED]
    assert not missing and not extra, (
        "one pass must name every problem of the catalog at its own line with its fix; "
        f"missing (or placed/worded wrongly): {missing}; unexpected: {extra}")
    assert found == sorted(found, key=lambda p: p[0]), "the problems are not sorted by line"
    assert error.location == str((tmp_path / "mutants.toml").resolve()), (
        f"the summary of the problems must name the catalog file: {error.location}")
    assert error.message == f"{len(EXPECTED)} problem(s) in catalog {tmp_path / 'mutants.toml'}", (
        f"the summary line does not count the problems: {error.message}")


@pytest.mark.parametrize(("text", "expected"), [
    ("surprise = 1\n", [(1, "unknown top-level key 'surprise'",
                         "use [sweep], [uniformity] and [[mutant]] tables only")]),
    ("sweep = 3\n", [(1, "[sweep] must be a table", "write it as a [sweep] section")]),
    ("uniformity = 3\n", [(1, "[uniformity] must be a table",
                           "write it as a [uniformity] section")]),
    ('mutant = "x"\n', [(1, "'mutant' must be an array of tables",
                         "write each mutant as [[mutant]]")]),
    ("mutant = [1]\n", [(1, "a mutant must be a table", "write it as [[mutant]] with keys")]),
])
def test_a_catalog_of_the_wrong_shape_is_named_at_line_one(tmp_path, text, expected):
    _, found = _problems(tmp_path, text)
    assert found == expected, (
        f"{text.strip()!r} has the wrong shape for a catalog: the problem belongs to the whole "
        f"file (line 1) with its fix; got {found}")


TARGET_FIX = "correct the qualified name (package.module:Class.method)"
SHAPES = '''\
  [[mutant]]
  id = "one"
  title = "an indented header"
  target = "pkg.mod:func"
  operator = "force-branch"
  condition = "x"
  to = true
  line = 12
  owners = ["tests/test_x.py::test_y"]

[[mutant]]
id = "two"
title = "t"
target = "pkg.mod"
operator = 5
owners = ["tests/test_x.py::test_y"]

[[mutant]]
title = "no id, no owners"
target = "pkg.mod:other"
operator = "return"
value = "None"

[[mutant]]
id = "three"
title.text = "a dotted key makes title a table"
target = 5
operator = "teleport"
line = 3
owners = ["tests/test_x.py::test_y"]

[[mutant]]
id = "four"
title = "the last entry"
target = "pkg.mod:other"
operator = "return"
value = "None"
owners = ["tests/test_x.py::test_y"]
'''


def test_targets_keys_and_headers_in_less_common_forms_are_named_at_their_lines(tmp_path):
    folder = tmp_path / "odd:name"  # a ':' in a folder must not upset the line of a problem
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "mod.py").write_text("def other():\n    pass\n")
    _, found = _problems(folder, SHAPES)
    assert found == [
        (4, "target 'pkg.mod:func': pkg.mod defines no 'func'", TARGET_FIX),
        (8, "unknown key 'line' in [[mutant]] (operator 'force-branch'); mutants are located "
            "by qualified name and snippet, never by line",
         "keys: id, title, target, operator, owners, expect, accepted_survivor, timeout_s; "
         "force-branch: condition, to, occurrence"),
        (14, "target 'pkg.mod' is not 'package.module:Qualified.name'",
         'e.g. target = "tp_scheduler.prefetch_ballot:advance_mismatch_streak"'),
        (15, "mutant needs a non-empty string 'operator'",
         'add operator = "..." to this [[mutant]]'),
        (18, "mutant needs a non-empty string 'id'", 'add id = "..." to this [[mutant]]'),
        (24, "mutant needs a non-empty string 'title'", 'add title = "..." to this [[mutant]]'),
        (27, "mutant needs a non-empty string 'target'", 'add target = "..." to this [[mutant]]'),
        (28, "unknown operator 'teleport'",
         "use one of: drop-call, drop-collective, force-branch, group-size-one, offset, "
     "rank-local, reduce-op, replace, return, skip-on-rank, slot-shift, swap, swap-group"),
        (29, "unknown key 'line' in [[mutant]]; mutants are located by qualified name and "
             "snippet, never by line",
         "keys: id, title, target, operator, owners, expect, accepted_survivor, timeout_s + "
         "the operator's own"),
    ], (
        "an indented [[mutant]] header, a target its module does not define, a 'line' key "
        "(with a known or an unknown operator), a target without ':' or not a string, a "
        "non-string operator, a missing id and a dotted key (title.text: no line of its own, "
        "so the entry's header, never a later entry's title) must each be one problem at its "
        f"own line (no second problem for the same key, no owners check without an id): {found}")


def test_inline_tables_have_no_lines_of_their_own_so_their_problems_are_at_line_one(tmp_path):
    entry = 'id = "x", title = "t", target = "pkg.mod:func", operator = "return", owners = ["t.py"]'
    _, found = _problems(tmp_path, f'mutant = [{{ {entry} }}, {{ {entry}, value = "1" }}]\n')
    assert found == [
        (1, "operator 'return' needs key 'value'",
         'add value = ... (value = "expression the function returns instead")'),
        (1, "duplicate mutant id 'x' (first at line 1)", "give every mutant a unique id"),
    ], f"inline [[mutant]] tables: each problem at line 1, none lost: {found}"
    _, found = _problems(tmp_path, 'sweep = { tests = "x" }\n')
    assert found == [(1, "[sweep] tests must be a list of paths", 'e.g. tests = ["tests"]')], (
        f"an inline [sweep] table's problem is at line 1: {found}")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("x = \n", 1, "catalog is not valid TOML: Invalid value (at line 1, column 5)"),
    ("a = 1\nb = [\n", 1, "catalog is not valid TOML: Invalid value (at end of document)"),
])
def test_a_catalog_that_is_not_toml_is_named_at_the_line_toml_gives(tmp_path, text, line,
                                                                     message):
    path = tmp_path / "mutants.toml"
    path.write_text(text)
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert (info.value.location, info.value.message, info.value.fix) == (
        f"{path}:{line}", message, "correct the TOML syntax at that line"), (
        "a TOML syntax error must be named at its line (line 1 when TOML names none) with "
        f"the fix: {info.value.render()}")


def test_a_missing_catalog_is_named_with_the_fix(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert (info.value.location, info.value.message, info.value.fix) == (
        str(path), f"catalog {path} does not exist",
        "create it or point --catalog / [tool.deskcheck] catalog at it"), info.value.render()


def test_a_definition_fingerprint_is_stable_and_ignores_where_the_mutant_is_written():
    from deskcheck.mutants.catalog import Mutant

    first = Mutant(id="m.a", title="t", target="pkg.mod:f", operator="replace",
                   params={"old": "a", "new": "b"}, owners=("tests/t.py::x",), expect="e")
    moved = Mutant(id="m.a", title="reworded", target="pkg.mod:f", operator="replace",
                   params={"new": "b", "old": "a"}, owners=("tests/t.py::x",), expect="e",
                   catalog_file="other.toml", line=90)
    assert first.definition_fingerprint() == moved.definition_fingerprint(), (
        "the title, the catalog file, the line and the order params are written in do not "
        "define a mutant: its fingerprint must not change with them")
    assert first.definition_fingerprint() == "dd0a0b7beadf20de", (
        "the fingerprint of a definition is stored with every result and compared across "
        "runs and deskcheck versions: a change in how it is computed makes every stored "
        f"result look stale (got {first.definition_fingerprint()})")


BRACKETS = '''\
[[mutant]]
id = "a"
title.text = "dotted"
target = "pkg.mod:func"
operator = "replace"
old = "xs = list(ys)"
new = """
[y for y in ys]
"""
owners = ["tests/test_x.py::test_y"]
expect = "("

[Extra]
title = "not the mutant's title"
'''


def test_bracketed_lines_that_are_not_tables_and_capitalised_tables_keep_lines_right(tmp_path):
    _, found = _problems(tmp_path, BRACKETS)
    assert found == [
        (1, "unknown top-level key 'Extra'", "use [sweep], [uniformity] and [[mutant]] tables only"),
        (1, "mutant needs a non-empty string 'title'", 'add title = "..." to this [[mutant]]'),
        (11, "expect is not a valid regex: missing ), unterminated subpattern at position 0",
         "fix the pattern"),
    ], (
        "a line of a multi-line string that starts with '[' is no table header (the entry goes "
        "on to 'expect' at line 11), and [Extra] is one (the entry's dotted title is not the "
        f"title = of [Extra] at line 14): {found}")


def test_the_operators_a_catalog_accepts_do_not_depend_on_what_else_was_imported(tmp_path):
    """docs/mutants.md lists the catalog's operators; ``auto-source`` is the in-memory operator
    of ``deskcheck auto`` (registered when that part is imported) and is never one of them."""
    from deskcheck.mutants.auto.engine import AUTO_OPERATOR, ensure_registered

    ensure_registered()  # as any test of `deskcheck auto` in the same process would
    entry = ('[[mutant]]\nid = "x"\ntitle = "t"\ntarget = "pkg.mod:func"\n'
             f'operator = "{AUTO_OPERATOR}"\noriginal = "def f(): pass"\n'
             'mutated = "def f(): return 1"\nowners = ["t.py"]\n')
    path = tmp_path / "mutants.toml"
    path.write_text(entry)
    write_placeholder_owners(tmp_path)
    try:
        load_catalog(path)
        found = []
    except CatalogError as error:
        found = [(int(str(e.location).rpartition(":")[2]), e.message, e.fix)
                 for e in error.errors]
    operators = [f for f in found if f[1].startswith("unknown operator")]
    assert operators == [
        (5, f"unknown operator {AUTO_OPERATOR!r}",
         "use one of: drop-call, drop-collective, force-branch, group-size-one, offset, "
     "rank-local, reduce-op, replace, return, skip-on-rank, slot-shift, swap, swap-group")], (
        "a hand-written catalog must refuse the internal auto-source operator and list only the "
        f"documented operators, whatever modules were imported before: {found}")


def _one_mutant(tmp_path: Path, mutant_id: str) -> Path:
    path = tmp_path / "mutants.toml"
    path.write_text(f'[[mutant]]\nid = "{mutant_id}"\ntitle = "t"\ntarget = "pkg.mod:func"\n'
                    'operator = "return"\nvalue = "None"\nowners = ["tests/test_x.py::test_y"]\n',
                    encoding="utf-8")
    write_placeholder_owners(tmp_path)
    return path


@pytest.mark.parametrize("mutant_id", ["ballot.M2.recovery_edge-disabled", "9lives", "a", "A_b.C-d"])
def test_an_id_of_letters_digits_underscores_dots_and_dashes_is_accepted(tmp_path, mutant_id):
    try:
        catalog = load_catalog(_one_mutant(tmp_path, mutant_id))
    except CatalogError as error:
        raise AssertionError(
            f"docs/mutants.md: an id is letters, digits, '_', '.', '-'; {mutant_id!r} was refused: "
            f"{error.render()}") from None
    assert [m.id for m in catalog.mutants] == [mutant_id], (
        f"the id {mutant_id!r} was not kept as written: {[m.id for m in catalog.mutants]}")


@pytest.mark.parametrize("mutant_id", ["a b", "ballot/M2", "pkg:f", "m+1", "é"])
def test_an_id_with_any_other_character_is_named_at_its_line(tmp_path, mutant_id):
    with pytest.raises(CatalogError) as caught:
        load_catalog(_one_mutant(tmp_path, mutant_id))
    rendered = caught.value.render()
    assert f"mutants.toml:2: mutant id {mutant_id!r} has characters other than" in rendered, (
        f"docs/mutants.md: an id of other characters ({mutant_id!r}) is a catalog error at "
        f"the id's line (2); the error says {rendered!r}")


def test_an_empty_key_in_the_uniformity_table_is_named_at_its_own_line(tmp_path):
    text = ('# the audit\n[uniformity]\ntarget = "pkg.mod:Cls"\n"" = 1\n\n'
            '[[mutant]]\nid = "one"\ntitle = "t"\ntarget = "pkg.mod:f"\noperator = "return"\n'
            'value = "None"\nowners = ["tests/test_x.py::test_y"]\n')
    _, found = _problems(tmp_path, text)
    assert found == [(4, "unknown [uniformity] key ''", "allowed keys: target, root, pyproject, "
                      "strict")], (
        "an unknown key of [uniformity] is named at its own line, the empty key `\"\" = 1` "
        f"(line 4) too, not at the line after the table's header; got {found}")
