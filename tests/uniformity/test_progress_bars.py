"""A progress bar is its iterable (docs/uniformity.md "Inputs"): ``tqdm(xs)`` yields ``xs``'s
elements, so a bar shown on one rank only does not make the loop rank-local. Found on vLLM's
CUDA-graph capture (``gpu_model_runner.py``: ``if is_global_first_rank(): compilation_cases =
tqdm(compilation_cases, ...)``, then ``for num_tokens in compilation_cases: self._dummy_run(
...)``, whose forward joins the DP padding all-reduce): six decisions were RANK-LOCAL through
"which value of compilation_cases reaches: is_global_first_rank()". SGLang's CPU graph runner
writes the same as a ternary. Each shape has a twin where the rank's branch really changes what
is iterated."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

LOOP = """
    from tqdm import tqdm
    import tqdm as tqdm_module

    WARMUP = [1, 2]

    class S:
        def step(self):
            cases = self.server_args.sizes
BODY
            for size in cases:
                dist.barrier(group=self.tp_cpu_group)
"""

# (the lines that pick `cases`, whether the loop is uniform)
SHAPES = {
    "a bar rebound on rank 0 (vLLM)": ("""
            if self.tp_rank == 0:
                cases = tqdm(cases, desc="capturing", disable=not self.server_args.bars)""",
                                        True),
    "a bar in a ternary (SGLang)": ("""
            cases = tqdm_module.tqdm(list(reversed(cases))) if self.tp_rank == 0 \\
                else reversed(cases)""", True),
    "a bar given by keyword": ("""
            if self.tp_rank == 0:
                cases = tqdm(iterable=cases)""", True),
    "rank 0 iterates fewer": ("""
            if self.tp_rank == 0:
                cases = cases[:1]""", False),
    "a ternary over different sequences": ("""
            cases = tqdm(list(cases)) if self.tp_rank == 0 else cases[1:]""", False),
    "another function's result on rank 0": ("""
            if self.tp_rank == 0:
                cases = shuffle(cases)""", False),
    "a bar over a rank-local sequence": ("""
            cases = tqdm(range(int(time.monotonic())))""", False),
    "a bar given its description first": ("""
            cases = tqdm(desc="capturing", iterable=range(int(time.monotonic())))""", False),
    "a set on rank 0's side (drops repeats)": ("""
            cases = tqdm(set(cases)) if self.tp_rank == 0 else cases""", False),
    "a ternary over ranges of different sizes": ("""
            cases = range(2) if self.tp_rank == 0 else range(3)""", False),
    "a bar over another sequence on rank 0": ("""
            if self.tp_rank == 0:
                cases = tqdm(WARMUP)""", False),
}


def _ids(shapes: dict) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_a_progress_bar_on_one_rank_iterates_what_every_rank_does(make_pkg, shape):
    body, uniform = SHAPES[shape]
    src = LOOP.replace("BODY", body.strip("\n"))
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    loop = [d for d in report.decisions if d.kind == "for"][0]
    if uniform:
        assert loop.verdict is Verdict.UNIFORM, (
            f"{shape}: rank 0 only wraps the same sizes in a tqdm progress bar, which yields "
            f"them unchanged, so the loop's trip count is the configured list on every rank "
            f"(UNIFORM); got {loop.verdict.value}: {loop.why}")
    else:
        assert loop.verdict is Verdict.RANK_LOCAL, (
            f"{shape}: what the loop iterates differs per rank, so its trip count is "
            f"RANK-LOCAL; got {loop.verdict.value}: {loop.why}")


def test_a_name_called_tqdm_that_is_not_the_library_is_read_as_any_call(make_pkg):
    src = """
    def tqdm(xs):
        return xs[: int(time.monotonic())]

    class S:
        def step(self):
            cases = self.server_args.sizes
            if self.tp_rank == 0:
                cases = tqdm(cases)
            for size in cases:
                dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    loop = [d for d in report.decisions if d.kind == "for"][0]
    assert loop.verdict is Verdict.RANK_LOCAL, (
        "this module's own tqdm() cuts the list by a clock: it is no progress bar from the "
        "tqdm library, so rank 0's rebinding changes what is iterated (RANK-LOCAL); got "
        f"{loop.verdict.value}: {loop.why}")
