"""The audit cache: a cached or half-cached audit equals a cold one, and every change the
audit could see (a file, a comment it reads, a module appearing, the config) invalidates it."""

from __future__ import annotations

import pickle
import subprocess
import textwrap
import warnings

import pytest

from deskcheck.uniformity import audit, changed_since, load_uniformity_config
from deskcheck.uniformity.cache import AuditCache
from deskcheck.uniformity.model import AuditReport

CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"
BASE = """
    class S:
        def step(self):
            if self.tp_rank == 0:
                dist.barrier(group=self.tp_cpu_group)
            if self.server_args.on:
                dist.barrier(group=self.tp_cpu_group)
"""
FLIPPED = """
    class S:
        def step(self):
            if self.server_args.leader:
                dist.barrier(group=self.tp_cpu_group)
            if self.server_args.on and time.time() > 5:
                dist.barrier(group=self.tp_cpu_group)
"""


def _shown(report: AuditReport) -> dict:
    data = report.to_json()
    data.pop("seconds", None)
    return data


def _verdicts(report: AuditReport) -> list[tuple[int, str]]:
    return [(d.line, d.verdict.value) for d in report.decisions]


def _cold(root, config=None) -> AuditReport:
    return audit("pkg.s:S", root=root, config=config)


def _git(root, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root,
                   check=True, capture_output=True)


def test_changed_since_with_the_cache_equals_a_cold_run_when_verdicts_flip_both_ways(
        make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE}, CFG)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    cache = AuditCache(tmp_path / "cache" / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)  # the branch point, kept by an earlier run
    (root / "pkg" / "s.py").write_text("import time\nimport torch.distributed as dist\n\n"
                                       + textwrap.dedent(FLIPPED))
    cold = changed_since("pkg.s:S", root=root, ref="main")
    assert sorted((k, d.condition, d.verdict.value) for k, d in cold.decisions) == [
        ("added", "self.server_args.leader", "UNIFORM"),
        ("added", "self.server_args.on and time.time() > 5", "RANK-LOCAL")], cold.lines()
    for run in ("REF side cached", "both sides cached"):
        hits = cache.hits
        warm = changed_since("pkg.s:S", root=root, ref="main", cache=cache)
        expected_hits = 1 if run == "REF side cached" else 2
        assert cache.hits - hits == expected_hits, (
            f"{run}: {cache.hits - hits} audit(s) read from the cache, expected "
            f"{expected_hits}")
        got = warm.to_json()
        want = cold.to_json()
        got.pop("seconds")
        want.pop("seconds")
        assert got == want, f"{run}: --changed-since with the cache differs from a cold run"
    assert _verdicts(audit("pkg.s:S", root=root, cache=cache)) == [
        (7, "UNIFORM"), (9, "RANK-LOCAL")], "the work tree's cached audit is not the cold one"
    (root / "pkg" / "s.py").write_text("import time\nimport torch.distributed as dist\n\n"
                                       + textwrap.dedent(BASE))
    back = audit("pkg.s:S", root=root, cache=cache)
    assert _shown(back) == _shown(_cold(root)), "after changing back, the cache is not cold"
    assert _verdicts(back) == [(7, "RANK-LOCAL"), (9, "UNIFORM")], _verdicts(back)


def test_a_changed_file_is_audited_again_not_read_from_the_cache(make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE}, CFG)
    cache = AuditCache(tmp_path / "c.sqlite")
    first = audit("pkg.s:S", root=root, cache=cache)
    assert _verdicts(first) == [(7, "RANK-LOCAL"), (9, "UNIFORM")], first.decisions
    (root / "pkg" / "s.py").write_text("import time\nimport torch.distributed as dist\n\n"
                                       + textwrap.dedent(FLIPPED))
    again = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 0, "the audit of a changed file was read from the cache"
    assert _verdicts(again) == [(7, "UNIFORM"), (9, "RANK-LOCAL")], (
        f"after the change the verdicts are {_verdicts(again)}: the stale audit was kept")
    assert _shown(again) == _shown(_cold(root)), "the re-audit differs from a cold audit"
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, "an unchanged tree was audited again instead of read from cache"


def test_a_comment_in_a_line_keeps_the_cache_and_a_deskcheck_comment_does_not(
        make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE}, CFG)
    cache = AuditCache(tmp_path / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    path = root / "pkg" / "s.py"
    text = path.read_text()
    path.write_text(text.replace("def step(self):", "def step(self):  # touched"))
    kept = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, "a comment the audit does not read invalidated the cache"
    assert _shown(kept) == _shown(_cold(root)), (
        "an audit read from the cache after a comment-only edit differs from a cold audit")
    path.write_text(text.replace("if self.tp_rank == 0:",
                                 "if self.tp_rank == 0:  # deskcheck: role leader barrier"))
    role = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, "a new '# deskcheck:' declaration was answered from the cache"
    assert _verdicts(role) == [(7, "ROLE"), (9, "UNIFORM")], _verdicts(role)


def test_a_module_that_appears_invalidates_the_cache(make_pkg, tmp_path):
    source = """
        from pkg.helpers import leader

        class S:
            def step(self):
                if leader():
                    dist.barrier(group=self.tp_cpu_group)
    """
    root = make_pkg({"s.py": source}, CFG)
    cache = AuditCache(tmp_path / "c.sqlite")
    before = audit("pkg.s:S", root=root, cache=cache)
    (root / "pkg" / "helpers.py").write_text("import os\n\ndef leader():\n"
                                             "    return os.getpid() == 1\n")
    after = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 0, "a module that was missing and now exists was not looked up again"
    assert _shown(after) == _shown(_cold(root)) and _shown(after) != _shown(before), (
        "the audit did not change when pkg/helpers.py appeared")


def test_a_compiled_module_that_disappears_invalidates_the_cache(make_pkg, tmp_path):
    """A base from a compiled extension (``fastpkg/_core...so``) is an external base; once the
    extension is gone the base cannot be resolved, and a cached audit must not say otherwise."""
    from deskcheck.errors import SourceResolutionError

    source = """
        from fastpkg._core import Base

        class S(Base):
            def step(self):
                if self.tp_rank == 0:
                    dist.barrier(group=self.tp_cpu_group)
    """
    root = make_pkg({"s.py": source}, CFG)
    (root / "fastpkg").mkdir()
    (root / "fastpkg" / "__init__.py").write_text("")
    core = root / "fastpkg" / "_core.cpython-311-x86_64-linux-gnu.so"
    core.write_bytes(b"")
    cache = AuditCache(tmp_path / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, "an unchanged tree with a compiled module was not read from the cache"
    core.unlink()
    try:
        stale = audit("pkg.s:S", root=root, cache=cache)
    except SourceResolutionError as exc:
        assert "cannot resolve base" in str(exc), f"the wrong error once the .so is gone: {exc}"
    else:
        pytest.fail(f"fastpkg/_core's compiled extension was deleted, yet the audit answered "
                    f"({cache.hits} cache hit(s)) with notes {stale.notes}: the cache did not "
                    f"look the compiled module up again")


def test_a_config_change_invalidates_the_cache(make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE}, CFG)
    cache = AuditCache(tmp_path / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    (root / "pyproject.toml").write_text(CFG + textwrap.dedent("""
        [[tool.deskcheck.uniformity.role]]
        condition = "self.tp_rank == 0"
        why = "rank 0 leads"
    """))
    config = load_uniformity_config(root / "pyproject.toml")
    after = audit("pkg.s:S", root=root, config=config, cache=cache)
    assert cache.hits == 0, "an audit under another config was read from the cache"
    assert _verdicts(after) == [(7, "ROLE"), (9, "UNIFORM")], _verdicts(after)


@pytest.mark.parametrize("garbage", [b"not a database at all" * 100, b""])
def test_a_corrupt_cache_is_ignored_with_a_warning_and_replaced(make_pkg, tmp_path, garbage):
    root = make_pkg({"s.py": BASE}, CFG)
    path = tmp_path / "c.sqlite"
    path.write_bytes(garbage)
    cache = AuditCache(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = audit("pkg.s:S", root=root, cache=cache)
    assert _shown(report) == _shown(_cold(root)), "a corrupt cache changed the audit"
    if garbage:
        assert any("cache" in str(w.message) and "unreadable" in str(w.message)
                   for w in caught), [str(w.message) for w in caught]
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, "the corrupt cache was not replaced by a working one"


def test_a_corrupt_entry_is_ignored_with_a_warning(make_pkg, tmp_path):
    import sqlite3

    root = make_pkg({"s.py": BASE}, CFG)
    path = tmp_path / "c.sqlite"
    cache = AuditCache(path)
    audit("pkg.s:S", root=root, cache=cache)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE audits SET report = ?", (b"\x80\x04garbage",))
    db.close()
    with pytest.warns(UserWarning, match="unreadable"):
        report = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 0 and _shown(report) == _shown(_cold(root)), (
        "a corrupt entry was used or changed the audit")


def test_the_command_keeps_its_cache_beside_the_config_unless_told_not_to(make_pkg, capsys):
    import json

    from deskcheck.cli import main

    root = make_pkg({"s.py": BASE}, CFG)
    path = root / ".deskcheck" / "uniformity_cache.sqlite"
    args = ["uniformity", "pkg.s:S", "--root", str(root), "--json"]
    assert main([*args, "--no-cache"]) == 1, (
        "`deskcheck uniformity --no-cache` on a rank-local fixture must exit 1")
    assert not path.exists(), "--no-cache wrote the audit cache"
    cold = json.loads(capsys.readouterr().out)
    assert main(args) == 1 and path.is_file(), f"the command kept no cache at {path}"
    assert main(args) == 1, "a cached `deskcheck uniformity` run must exit 1 like the cold one"
    first, second = (json.loads(part) for part in
                     capsys.readouterr().out.replace("}\n{", "}\n\x00{").split("\x00"))
    for report in (first, second, cold):
        report.pop("seconds")
    assert first == second == cold, "the cached command's report differs from a cold one"
    assert (root / ".deskcheck" / ".gitignore").is_file(), "the cache folder is not ignored"


def test_another_version_of_the_analysis_code_misses(make_pkg, tmp_path, monkeypatch):
    from deskcheck.uniformity import cache as cache_module

    root = make_pkg({"s.py": BASE}, CFG)
    cache = AuditCache(tmp_path / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    monkeypatch.setattr(cache_module, "_ANALYSIS", ["the analysis code edited in place"])
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 0, "an audit made by other analysis code was read from the cache"


def test_up_to_eight_entries_are_kept_per_key(tmp_path):
    import sqlite3

    from deskcheck.static import Sources

    cache = AuditCache(tmp_path / "c.sqlite")
    cache.store("other", Sources(), AuditReport("other", []))
    for n in range(10):
        cache.store("key", Sources(), AuditReport(f"t{n}", []))
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        kept = {k: [pickle.loads(r).target for (r,) in db.execute(
            "SELECT report FROM audits WHERE key = ? ORDER BY used", (k,))]
            for k in ("key", "other")}
    assert kept["key"] == [f"t{n}" for n in range(2, 10)], (
        "the cache keeps up to 8 entries per key, the least recently used dropped "
        f"(docs/uniformity.md); after 10 stores under one key it keeps {kept['key']}")
    assert kept["other"] == ["other"], (
        f"entries under another key must not be dropped; it keeps {kept['other']}")


def test_a_replica_arms_test_file_is_part_of_the_key(make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE}, CFG + textwrap.dedent("""
        [[tool.deskcheck.uniformity.replica]]
        field = "self.server_args"
        arm = "tests/test_arm.py::test_args_congruent"
    """))
    (root / "tests").mkdir()
    arm = root / "tests" / "test_arm.py"
    arm.write_text("def test_args_congruent():\n    pass\n")
    cache = AuditCache(tmp_path / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, f"an unchanged audit was not read back (hits {cache.hits})"
    arm.write_text("def test_renamed():\n    pass\n")
    audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == 1, (
        "the bytes of every replica arm's test file are part of the cache key "
        "(docs/uniformity.md): the arm's file changed, yet the audit was read from the cache")


def test_the_root_methods_and_the_target_are_part_of_the_key(make_pkg, tmp_path):
    root = make_pkg({"s.py": BASE + """
        def other(self):
            if self.tp_rank == 1:
                dist.barrier(group=self.tp_cpu_group)
    """}, CFG)
    cache = AuditCache(tmp_path / "c.sqlite")
    audit("pkg.s:S", root=root, cache=cache)
    other = audit("pkg.s:S", root=root, roots_methods=["other"], cache=cache)
    assert cache.hits == 0 and other.roots == ["S.other"], (
        "the root methods are part of the cache key (docs/uniformity.md): an audit from "
        f"`other` was answered with roots {other.roots} ({cache.hits} cache hit(s))")
    method = audit("pkg.s:S.other", root=root, cache=cache)
    assert cache.hits == 0 and method.roots == ["S.other"], (
        "the target is part of the cache key: `pkg.s:S.other` was answered with roots "
        f"{method.roots} ({cache.hits} cache hit(s))")


def test_no_cache_never_reads_an_existing_cache(make_pkg, monkeypatch, capsys):
    from deskcheck.cli import main
    from deskcheck.uniformity import cache as cache_module

    root = make_pkg({"s.py": BASE}, CFG)
    args = ["uniformity", "pkg.s:S", "--root", str(root), "--json"]
    assert main(args) == 1 and (root / ".deskcheck" / "uniformity_cache.sqlite").is_file(), (
        "the first run must keep a cache to read back")
    looked: list[str] = []
    real = cache_module.AuditCache.lookup

    def spy(self, key, sources):
        looked.append(key)
        return real(self, key, sources)

    monkeypatch.setattr(cache_module.AuditCache, "lookup", spy)
    assert main([*args, "--no-cache"]) == 1, "the --no-cache run must exit 1 like the first"
    capsys.readouterr()
    assert looked == [], (
        "`--no-cache` neither reads nor writes the audit cache (docs/uniformity.md), yet the "
        f"cache was looked up {len(looked)} time(s) though it exists")


def test_an_entry_read_back_is_kept_over_an_older_unread_one(tmp_path):
    """The least *recently used* entry is dropped, not the oldest stored: a lookup that finds
    an entry marks it used (set L, 12: a hit that left `used` alone evicted the branch
    point's audit read back just before the ninth store)."""
    from deskcheck.static import Sources

    path = tmp_path / "mod.py"
    path.write_text("")

    def version(n: int) -> Sources:
        sources = Sources({str(path): f"x = {n}\n"})
        sources.parse(str(path))  # the audit's read of the file: its digest is the entry's
        return sources

    cache = AuditCache(tmp_path / "c.sqlite")
    for n in range(8):
        cache.store("key", version(n), AuditReport(f"t{n}", []))
    found = cache.lookup("key", version(0))
    assert found is not None and found.target == "t0", (
        f"the first entry should be found for the sources it read: {found}")
    cache.store("key", version(8), AuditReport("t8", []))
    kept = {n: cache.lookup("key", version(n)) is not None for n in (0, 1)}
    assert kept == {0: True, 1: False}, (
        "after t0 was read back, the ninth store must drop t1 (least recently used), not t0 "
        f"(the oldest stored); found: {kept}")
