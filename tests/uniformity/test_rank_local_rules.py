"""Where the audit stops (docs/uniformity.md): a function outside the roots is a function of
its arguments, except the rank-local rules: clocks, random, pool sizes, caches, IPC polls and
CUDA event queries."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

SRC = {"rl.py": """
    import math
    import random

    class S:
        def r_clock(self):
            if time.monotonic() > self.deadline_s:
                dist.barrier(group=self.tp_group)
        def r_random(self):
            if random.random() < 0.5:
                dist.barrier(group=self.tp_group)
        def r_pool(self):
            if self.token_to_kv_pool.available_size() > 0:
                dist.barrier(group=self.tp_group)
        def r_cache(self):
            if self.tree_cache.match_prefix(self.key):
                dist.barrier(group=self.tp_group)
        def r_ipc(self):
            if self.recv_from_tokenizer.recv_pyobj():
                dist.barrier(group=self.tp_group)
        def r_event(self):
            if self.copy_done.query():
                dist.barrier(group=self.tp_group)
        def r_blocks(self):
            if self.block_pool.get_num_free_blocks() > 4:
                dist.barrier(group=self.tp_group)
        def r_pure(self):
            if math.ceil(self.server_args.chunk / 2) > 1:
                dist.barrier(group=self.tp_group)
"""}

CASES = [("r_clock", "clock"), ("r_random", "random"), ("r_pool", "per-rank resource size"),
         ("r_cache", "cache"), ("r_ipc", "IPC poll"), ("r_event", "IPC poll"),
         ("r_blocks", "per-rank resource size")]  # vLLM's KV block pool


@pytest.fixture(scope="module")
def decisions(tmp_path_factory):
    import textwrap

    from tests.uniformity.conftest import HEADER

    root = tmp_path_factory.mktemp("rules")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "rl.py").write_text(HEADER + textwrap.dedent(SRC["rl.py"]))
    (root / "pyproject.toml").write_text('[tool.deskcheck.uniformity]\nroots = ["r_*"]\n')
    return {d.function.rsplit(".", 1)[-1]: d for d in audit("pkg.rl:S", root=root).decisions}


@pytest.mark.parametrize("method, reason", CASES, ids=[c[0] for c in CASES])
def test_each_rank_local_rule_makes_its_read_rank_local(decisions, method, reason):
    d = decisions[method]
    assert d.verdict is Verdict.RANK_LOCAL and reason in d.why, (
        f"`if {d.condition}` reads a value each rank has its own of ({reason}); it must be "
        f"RANK-LOCAL naming '{reason}', it was {d.verdict}: {d.why}")


def test_a_library_function_of_configuration_is_uniform(decisions):
    d = decisions["r_pure"]
    assert d.verdict is Verdict.UNIFORM, (
        "math.ceil(self.server_args.chunk / 2) is a function of its arguments (configuration): "
        f"the decision must be UNIFORM; it was {d.verdict}: {d.why}")
