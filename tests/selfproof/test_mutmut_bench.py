"""The mutmut bench's shards hold (bench/selfproof_mutmut.py; docs/selfproof.md, *mutmut over
the process-free modules*): every module a shard mutates, every test file it runs and every
support path it copies exists, and no shard runs a test file twice. A test file moved or
renamed without the bench following fails here, not after an hour of mutmut."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("selfproof_mutmut_bench",
                                                  ROOT / "bench" / "selfproof_mutmut.py")
    assert spec and spec.loader, "bench/selfproof_mutmut.py cannot be loaded"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_problems(shards: dict[str, tuple[list[str], list[str]]], support: list[str],
                   root: Path) -> list[str]:
    """``shard NAME: ...`` for every missing or repeated path of a shard, ``SUPPORT: ...`` for
    every missing support path."""
    bad = []
    for name, (modules, tests) in shards.items():
        for kind, paths in (("module", modules), ("test file", tests)):
            for path in paths:
                if not (root / path).exists():
                    bad.append(f"shard {name}: {kind} {path} does not exist")
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
    shards = {"one": (["mod.py", "gone.py"], ["test_mod.py", "test_gone.py", "test_mod.py"])}
    got = bench_problems(shards, ["conftest.py"], tmp_path)
    assert got == [
        "shard one: module gone.py does not exist",
        "shard one: test file test_gone.py does not exist",
        "shard one: runs test_mod.py twice",
        "SUPPORT: conftest.py does not exist",
    ], f"the bench path check missed or misnamed a problem: {got}"
