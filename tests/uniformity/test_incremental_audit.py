"""Reusing a cached audit after a code edit: the answer always equals a cold audit's.

An edit that stays inside function bodies the audit never read (never parsed, and, for a
body the field-write scan searched, still holding no field write, and no write of a
module-level name the audit read) is answered from the cache; any other edit is audited
again. Each edit below is checked both ways: the audit
with a cache holding the unedited tree equals a cold audit of the edited tree (decisions,
verdicts, witnesses, sites), and it came from the cache exactly when it should."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deskcheck.uniformity import audit, changed_since
from deskcheck.uniformity.cache import AuditCache
from deskcheck.uniformity.model import AuditReport

sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))  # as audit() sets it: before
# hypothesis records the limit, so it need not warn that the limit changed under it

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"
BASE = """
    import logging

    from outside import broadcast
    from pkg.base import Base

    logger = logging.getLogger(__name__)
    _LIMITS = {}


    class S(Base):
        def step(self):
            '''Step once.'''
            if self.limit > 2:
                dist.barrier(group=self.tp_cpu_group)
            if self.count(flag=True):
                dist.barrier(group=self.tp_cpu_group)
            if time.time() > 5:
                dist.barrier(group=self.tp_cpu_group)
            if self.budget:
                dist.barrier(group=self.tp_cpu_group)
            if self.mode == "fast":
                dist.barrier(group=self.tp_cpu_group)
            if _LIMITS.get("x"):
                dist.barrier(group=self.tp_cpu_group)
            logger.info("stepped")
            logger.info(f"limit {self.limit}", stacklevel=2)
            self.note("x")
            ready = self.count(flag=True)
            broadcast(ready, "tp group")
            if ready:
                dist.barrier(group=self.tp_cpu_group)

        def note(self, what):
            if what == "x":
                dist.barrier(group=self.tp_cpu_group)

        def count(self, flag):
            if flag:
                return 1
            return self.waiting

        def unused(self):
            y = 3
            return y
"""
BASE_CLASS = """
    class Base:
        def __init__(self, server_args):
            self.server_args = server_args
            self.limit = server_args.limit
            self.waiting = []

        def helper_unused(self):
            x = 1
            return x + 2


    def free_unused(a):
        b = a + 1
        return b
"""
# (name, file, old, new, answered from the cache)
EDITS = [
    ("a line in a method nothing reaches", "s.py", "y = 3", "y = 4", True),
    ("a call with a constant argument in a method nothing reaches", "s.py", "y = 3",
     "y = self.count(flag=False)", False),
    ("a line in a module function nothing reaches", "base.py", "b = a + 1", "b = a + 2", True),
    ("a write of module state the audit read, in a method nothing reaches", "s.py", "y = 3",
     "_LIMITS['x'] = self.tp_rank", False),
    ("a field write in a method elsewhere in the MRO", "base.py", "x = 1",
     "self.budget = self.tp_rank", False),
    ("a call's function in a method nothing reaches", "s.py", "y = 3", "y = len(3)", False),
    ("a call site's constant argument", "s.py", "self.count(flag=True)",
     "self.count(flag=False)", False),
    ("a rank-local rule's input", "s.py", "if time.time() > 5:", "if self.server_args.x > 5:",
     False),
    ("a new decision", "s.py", "        if self.budget:",
     "        if self.budget or self.count(flag=False):", False),
    ("a removed function", "s.py", "    def unused(self):\n        y = 3\n"
     "        return y\n", "", False),
    ("a constructor's field write", "base.py", "self.limit = server_args.limit",
     "self.limit = time.monotonic()", False),
    ("a docstring's words in a body the audit parses", "s.py", "'''Step once.'''",
     "'''Step once, then return.'''", True),
    ("a bare string statement in a body the audit parses", "s.py", "if self.budget:",
     'if self.budget:\n            "reads nothing"', False),
    ("a docstring that gains a line in a body the audit parses", "s.py", "'''Step once.'''",
     '"""Step once.\n\n            Then return."""', False),
    ("a docstring that gains the line its code loses, in a body the audit parses", "s.py",
     "'''Step once.'''\n        if self.limit > 2:\n            dist.barrier(",
     "'''Step once.\n        Then return.'''\n        if self.limit > 2: dist.barrier(",
     False),
    ("a docstring that turns into code in a body the audit parses", "s.py",
     "'''Step once.'''", "dist.barrier()", False),
    ("a string compared in a decision the audit parses", "s.py", '"fast"', '"slow"', False),
    ("a log message's words in a body the audit parses", "s.py", 'logger.info("stepped")',
     'logger.info("stepped once")', True),
    ("an f-string log message's words in a body the audit parses", "s.py",
     'logger.info(f"limit {self.limit}", stacklevel=2)',
     'logger.info(f"the limit is {self.limit}",   stacklevel=2)', True),
    ("a log message that turns into a call in a body the audit parses", "s.py",
     'logger.info("stepped")', "logger.info(dist.barrier())", False),
    ("a string passed to a method the audit reads", "s.py", 'self.note("x")',
     'self.note("y")', False),
    ("the group named to a bare collective name outside the root", "s.py", '"tp group"',
     '"dp group"', False),
]


def _shown(report: AuditReport) -> dict:
    data = report.to_json()
    data.pop("seconds", None)
    return data


def _write(root, files: dict[str, str]) -> None:
    import textwrap

    for name, text in files.items():
        (root / "pkg" / name).write_text("import time\nimport torch.distributed as dist\n\n"
                                         + textwrap.dedent(text))


@pytest.mark.parametrize("name,file,old,new,cached", EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_is_answered_as_a_cold_audit_answers_it(make_pkg, tmp_path, name, file, old,
                                                        new, cached):
    root = make_pkg({"s.py": BASE, "base.py": BASE_CLASS}, CFG)
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    before = audit("pkg.s:S", root=root, cache=cache)
    path = root / "pkg" / file
    text = path.read_text()
    assert old in text, f"the fixture lost {old!r}"
    path.write_text(text.replace(old, new, 1))
    cold = audit("pkg.s:S", root=root)
    hits = cache.hits
    warm = audit("pkg.s:S", root=root, cache=cache)
    assert _shown(warm) == _shown(cold), (
        f"after {name}, the audit with a cache differs from a cold audit:\n"
        f"cache:  {[(d.line, d.condition, d.verdict.value) for d in warm.decisions]}\n"
        f"cold:   {[(d.line, d.condition, d.verdict.value) for d in cold.decisions]}")
    assert (cache.hits - hits == 1) is cached, (
        f"after {name}, the audit was {'audited again' if cached else 'read from the cache'}"
        f"; expected {'the cache' if cached else 'a new audit'}")
    if not cached and "nothing reaches" not in name and name != "a removed function":
        assert _shown(cold) != _shown(before), f"the fixture's {name} changes nothing"


def test_a_field_write_added_where_only_the_write_scan_looked_is_audited_again(
        make_pkg, tmp_path):
    """The body of ``Base.helper_unused`` is never parsed: only searched for a field write
    (none) and read for its calls. A write added there (no new call) makes ``self.budget``
    rank-local: the cache must not answer."""
    edit = next(e for e in EDITS if e[0] == "a field write in a method elsewhere in the MRO")
    test_an_edit_is_answered_as_a_cold_audit_answers_it(make_pkg, tmp_path, *edit)


def test_an_audit_after_another_in_one_process_still_records_what_it_read(make_pkg,
                                                                          tmp_path):
    """``--changed-since`` audits twice in one process: the second audit finds the field
    writes already scanned (a cache of deskcheck.static) and must still record the bodies
    that scan read, or an edit there is answered from its stale entry."""
    root = make_pkg({"s.py": BASE, "base.py": BASE_CLASS}, CFG)
    audit("pkg.s:S", root=root)  # fills deskcheck.static's own caches for this tree
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)  # kept with what it read
    path = root / "pkg" / "base.py"
    path.write_text(path.read_text().replace("x = 1", "self.budget = self.tp_rank"))
    warm = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 0, ("a field write added where the second audit's scan looked was "
                             "answered from the cache")
    assert _shown(warm) == _shown(audit("pkg.s:S", root=root)), (
        "the audit with a cache differs from a cold audit")


def test_a_call_added_where_only_the_declaration_sweep_looked_is_audited_again(
        make_pkg, tmp_path):
    """The stale-declaration check reads every method's calls: ``self.my_reduce`` is
    declared a collective and called nowhere (stale) until a method nothing reaches calls
    it. The cache must not answer with the stale finding."""
    root = make_pkg({"s.py": BASE, "base.py": BASE_CLASS},
                    CFG + 'collectives = ["self.my_reduce"]\n')
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    before = audit("pkg.s:S", root=root, cache=cache)
    assert [f.status for f in before.declarations] == ["stale"], before.declarations
    path = root / "pkg" / "s.py"
    path.write_text(path.read_text().replace("y = 3", "y = self.my_reduce(3)"))
    warm = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 0, ("a new call in a body read for its calls was answered from "
                             "the cache")
    assert _shown(warm) == _shown(audit("pkg.s:S", root=root)), (
        "after a call was added, the audit with a cache differs from a cold audit")
    assert warm.declarations == [], f"the declaration is still stale: {warm.declarations}"


def test_changed_since_answers_an_unread_edit_from_the_cache_as_a_cold_run(make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE, "base.py": BASE_CLASS}, CFG)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root,
                       check=True, capture_output=True)
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)  # the branch point, kept by an earlier run
    path = root / "pkg" / "s.py"
    path.write_text(path.read_text().replace("y = 3", "y = 4"))
    cold = changed_since("pkg.s:S", root=root, ref="main")
    hits = cache.hits
    warm = changed_since("pkg.s:S", root=root, ref="main", cache=cache)
    got, want = warm.to_json(), cold.to_json()
    got.pop("seconds")
    want.pop("seconds")
    assert got == want, "--changed-since with the cache differs from a cold run"
    assert cache.hits - hits == 2, (
        f"{cache.hits - hits} of 2 sides read from the cache after an edit in a method the "
        "audit never reads")


_SNIPPETS = ["self.budget = self.tp_rank", "y = len(3)", "self.count(flag=False)", "pass",
             "z = time.time()", "self.waiting.append(1)", "y = 5", "return self.limit",
             'logger.info("words")', "'''words'''", 'broadcast(ready, "words")']


def _statement_lines(text: str) -> list[int]:
    """Indexes of the lines inside a function body that hold one simple statement."""
    lines = text.splitlines()
    return [i for i, line in enumerate(lines) if line.startswith("        ")
            and not line.rstrip().endswith((":", "(", ","))]


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_one_line_edit_is_answered_as_a_cold_audit_answers_it(make_pkg, tmp_path_factory,
                                                                   data):
    """A one-line edit anywhere in a body (a new statement, a comment): the audit with a
    cache holding the unedited tree equals a cold audit of the edited one."""
    import ast

    root = make_pkg({"s.py": BASE, "base.py": BASE_CLASS}, CFG)
    cache = AuditCache(tmp_path_factory.mktemp("cache") / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    path = root / "pkg" / data.draw(st.sampled_from(["s.py", "base.py"]), label="file")
    text = path.read_text()
    lines = text.splitlines()
    index = data.draw(st.sampled_from(_statement_lines(text)), label="line")
    indent = lines[index][:len(lines[index]) - len(lines[index].lstrip())]
    edit = data.draw(st.sampled_from(["# comment", *_SNIPPETS]), label="edit")
    lines[index] = (lines[index] + "  # note" if edit == "# comment" else indent + edit)
    edited = "\n".join(lines) + "\n"
    try:
        ast.parse(edited)
    except SyntaxError:
        return
    path.write_text(edited)
    warm = audit("pkg.s:S", root=root, cache=cache)
    cold = audit("pkg.s:S", root=root)
    assert _shown(warm) == _shown(cold), (
        f"{path.name} line {index + 1} -> {lines[index].strip()!r}: the audit with a cache "
        "differs from a cold audit")


def test_comparing_a_reworded_log_message_leaves_pythons_shared_ast_objects_alone(
        make_pkg, tmp_path):
    """The cache blanks a log message's columns to compare two bodies; `ast.Load()` is one
    object shared by every parsed tree, so blanking its columns gave every later tree a
    `col_offset = None` (deskcheck's in-memory injection then failed on clean code, found
    as a BASELINE_RED in a fresh-clone self-sweep)."""
    import ast

    root = make_pkg({"s.py": BASE, "base.py": BASE_CLASS}, CFG)
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    path = root / "pkg" / "s.py"
    old = 'logger.info(f"limit {self.limit}", stacklevel=2)'
    assert old in path.read_text(), "the fixture lost its keyword log message"
    path.write_text(path.read_text().replace(
        old, 'logger.info(f"the limit is {self.limit}",   stacklevel=2)', 1))
    hits = cache.hits
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits - hits == 1, "the reworded message should be answered from the cache"
    shared = ast.parse("x").body[0].value.ctx  # the parser's one Load object
    leaked = [name for name in ("col_offset", "end_col_offset") if name in vars(shared)]
    assert not leaked, (
        f"comparing the message set {leaked} on ast.Load(), the context object every parsed "
        f"tree shares: later trees read columns that are not theirs")
