"""The mutmut bench's shards hold (bench/selfproof_mutmut.py; docs/selfproof.md, *mutmut over
the process-free modules*): every module a shard mutates, every test file (or test) it runs and
every support path it copies exists, and no shard runs a test file twice. A test file moved or
renamed without the bench following fails here, not after an hour of mutmut. And every test
file that imports a shard's module runs in that shard or is left out with its reason: a test
moved to a file the shard does not list fails here instead of dropping the shard's score."""

from __future__ import annotations

import ast
import functools
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _bench():
    spec = importlib.util.spec_from_file_location("selfproof_mutmut_bench",
                                                  ROOT / "bench" / "selfproof_mutmut.py")
    assert spec and spec.loader, "bench/selfproof_mutmut.py cannot be loaded"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _importers() -> dict[str, set[str]]:
    return _bench().shard_importers(ROOT)


def _defines(path: Path, names: list[str]) -> bool:
    """``path`` defines the test ``names`` (``[function]`` or ``[Class, method]``)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    for name in names:
        node = next((n for n in body if isinstance(n, ast.FunctionDef | ast.ClassDef)
                     and n.name == name), None)
        if node is None:
            return False
        body = getattr(node, "body", [])
    return True


def bench_problems(shards: dict[str, tuple[list[str], list[str]]], support: list[str],
                   root: Path) -> list[str]:
    """``shard NAME: ...`` for every missing or repeated path of a shard, ``SUPPORT: ...`` for
    every missing support path."""
    bad = []
    for name, (modules, tests) in shards.items():
        for kind, paths in (("module", modules), ("test file", tests)):
            for path in paths:
                path, _, test = path.partition("::")
                if not (root / path).exists():
                    bad.append(f"shard {name}: {kind} {path} does not exist")
                elif test and not _defines(root / path, test.split("::")):
                    bad.append(f"shard {name}: test {path}::{test} does not exist")
        repeated = sorted({t for t in tests if tests.count(t) > 1})
        if repeated:
            bad.append(f"shard {name}: runs {', '.join(repeated)} twice")
    bad += [f"SUPPORT: {path} does not exist" for path in support if not (root / path).exists()]
    return bad


def test_every_path_of_the_mutmut_bench_exists() -> None:
    bench = _bench()
    bad = bench_problems(bench.SHARDS, bench.SUPPORT, ROOT)
    assert not bad, ("bench/selfproof_mutmut.py names paths that do not exist (a test moved? "
                     "follow it in SHARDS / SUPPORT):\n" + "\n".join(bad))


def test_the_bench_check_can_fail(tmp_path: Path) -> None:
    """Can-fail arm: a missing module, a missing test file, a repeated test file and a missing
    support path are each named."""
    (tmp_path / "mod.py").write_text("")
    (tmp_path / "test_mod.py").write_text("")
    (tmp_path / "test_some.py").write_text("def test_here():\n    pass\n")
    shards = {"one": (["mod.py", "gone.py"], ["test_mod.py", "test_gone.py", "test_mod.py",
                                              "test_some.py::test_here",
                                              "test_some.py::test_gone"])}
    got = bench_problems(shards, ["conftest.py"], tmp_path)
    assert got == [
        "shard one: module gone.py does not exist",
        "shard one: test file test_gone.py does not exist",
        "shard one: test test_some.py::test_gone does not exist",
        "shard one: runs test_mod.py twice",
        "SUPPORT: conftest.py does not exist",
    ], f"the bench path check missed or misnamed a problem: {got}"


def test_every_test_file_importing_a_shards_module_runs_in_it_or_is_left_out() -> None:
    bench = _bench()
    bad = bench.unrun_importers(bench.SHARDS, bench.LEFT_OUT, _importers())
    assert not bad, ("a test file imports a module the mutmut bench mutates but the shard "
                     "does not run it, so the shard's score silently drops:\n" + "\n".join(bad))


def test_the_importer_check_can_fail() -> None:
    """Can-fail arm: dropping one listed file from its shard, dropping one process test file
    from LEFT_OUT, and a LEFT_OUT entry that imports nothing are each named."""
    bench = _bench()
    importers = _importers()
    modules, tests = bench.SHARDS["gate"]
    shards = {**bench.SHARDS, "gate": (modules, [t for t in tests
                                                 if t != "tests/gate/test_gate_promise_rules.py"])}
    left_out = {k: v for k, v in bench.LEFT_OUT.items() if k != "tests/gate/test_redfirst.py"}
    left_out["tests/test_layering.py"] = "imports no shard module"
    got = bench.unrun_importers(shards, left_out, importers)
    named = [line.split(" imports")[0] for line in got]
    assert named == [
        "shard gate: tests/gate/test_gate_promise_rules.py",
        "shard gate: tests/gate/test_redfirst.py",
        "LEFT_OUT: tests/test_layering.py",
    ], f"the importer check missed or misnamed a problem: {got}"


_MUTATED = '''\
def x_f__mutmut_orig(a):
    return a.encode("utf-8")

def x_f__mutmut_1(a):
    return a.encode("UTF-8")

def x_f__mutmut_2(a):
    return a.encode(None)
'''


def _rerun_names(tmp_path: Path, monkeypatch, gaps_only: bool) -> list[str]:
    """The mutants ``rerun_survivors`` hands mutmut for a fake shard whose full run left two
    survivors of ``pkg/m.py``: one an equivalent rule explains, one it does not."""
    bench = _bench()
    work_root = tmp_path / "work"
    module = tmp_path / "root" / "pkg" / "m.py"
    module.parent.mkdir(parents=True)
    module.write_text("def f(a):\n    return a.encode('utf-8')\n", encoding="utf-8")
    full_run = work_root / "fake"
    (full_run / "mutants" / "pkg").mkdir(parents=True)
    (full_run / "pkg").mkdir()
    (full_run / "pkg" / "m.py").write_text(module.read_text(), encoding="utf-8")
    (full_run / "mutants" / "pkg" / "m.py").write_text(_MUTATED, encoding="utf-8")
    (full_run / "mutants" / "pkg" / "m.py.meta").write_text(
        '{"exit_code_by_key": {"pkg.m.x_f__mutmut_1": 0, "pkg.m.x_f__mutmut_2": 0}}')
    handed: list[str] = []

    def fake_run(work, max_children, names=()):
        handed.extend(names)
        return 0.0, type("Done", (), {"returncode": 0, "stdout": "", "stderr": ""})()

    monkeypatch.setattr(bench, "WORK_ROOT", work_root)
    monkeypatch.setattr(bench, "ROOT", tmp_path / "root")
    monkeypatch.setattr(bench, "SHARDS", {"fake": (["pkg/m.py"], [])})
    monkeypatch.setattr(bench, "EQUIVALENT_RULES", [("pkg.m.x_f", 'encode("UTF-8")', "same")])
    monkeypatch.setattr(bench, "prepare", lambda shard, work: work.mkdir(parents=True))
    monkeypatch.setattr(bench, "run_mutmut", fake_run)
    bench.rerun_survivors("fake", 1, gaps_only=gaps_only)
    return handed


def test_gaps_only_reruns_just_the_survivors_no_rule_explains(tmp_path, monkeypatch) -> None:
    handed = _rerun_names(tmp_path, monkeypatch, gaps_only=True)
    assert handed == ["pkg.m.x_f__mutmut_2"], (
        "--rerun-survivors --gaps-only must hand mutmut only the survivor no equivalent rule "
        f"explains (x_f__mutmut_2, encode(None)); it handed {handed}")


def test_without_gaps_only_every_survivor_is_rerun(tmp_path, monkeypatch) -> None:
    handed = _rerun_names(tmp_path, monkeypatch, gaps_only=False)
    assert handed == ["pkg.m.x_f__mutmut_1", "pkg.m.x_f__mutmut_2"], (
        "--rerun-survivors without --gaps-only must hand mutmut every survivor of the full "
        f"run, the equivalent one (x_f__mutmut_1) included; it handed {handed}")
