"""A torch.distributed function re-exported under another name by a project module is
still that collective (docs/uniformity.md "Collective sites": torch.distributed functions,
through the imports that name them). SGLang 0.5.23's ``sglang.srt.distributed.utils`` binds
``all_gather_single`` from ``torch.distributed`` inside ``try: ... except ImportError:``
(falling back to ``all_gather_into_tensor`` on older torch) and re-exports it as a module
global; ``prefill_delayer.py`` calls it after ``from sglang.srt.distributed.utils import
all_gather_single``. The call was no site at all, so the per-rank clock deciding whether a
rank joins it (SGLang issue #32454, fixed in 0.5.22) reached nothing. Twins: the alias
made by an assignment of ``dist.<name>``, a project function of the same name (no
collective), and ``reduce_scatter_single``."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

UTILS = """
    try:
        from torch.distributed import all_gather_single as _all_gather_single
        from torch.distributed import reduce_scatter_single as _reduce_scatter_single
    except ImportError:  # older torch builds only have the *_tensor names
        from torch.distributed import all_gather_into_tensor as _all_gather_single
        from torch.distributed import reduce_scatter_tensor as _reduce_scatter_single

    import torch.distributed._functional_collectives as funcol

    all_gather_single = _all_gather_single
    reduce_scatter_single = _reduce_scatter_single
    gather_flat = dist.all_gather_into_tensor
    gather = dist.all_gather_into_tensor
    reduce_total = funcol.all_reduce


    def local_gather(out, inp, group=None):
        return out
"""

SOURCE = """
    from pkg.dutils import (
        all_gather_single,
        gather,
        gather_flat,
        local_gather,
        reduce_scatter_single,
        reduce_total,
    )


    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self, out, inp):
            if time.monotonic() > 5:
                CALL
"""


def _decisions(make_pkg, call: str):
    root = make_pkg({"dutils.py": UTILS, "s.py": SOURCE.replace("CALL", call)}, ROOTS)
    return audit("pkg.s:S", root=root)


@pytest.mark.parametrize("call", [
    "all_gather_single(out, inp, group=self.tp_group)",
    "gather_flat(out, inp, group=self.tp_group)",
    "reduce_scatter_single(out, inp, group=self.tp_group)",
    "gather(out, inp, self.tp_group)",
    "reduce_scatter_single(out, inp, dist.ReduceOp.SUM, self.tp_group)",
], ids=["try_import_alias", "assigned_attribute", "reduce_scatter", "named_like_another",
        "reduce_scatter_positional"])
def test_a_re_exported_torch_collective_is_a_site(make_pkg, call):
    report = _decisions(make_pkg, call)
    sites = [s.call for s in report.sites]
    assert sites == [call.split("(")[0]], (
        f"`{call}` calls a torch.distributed collective re-exported by pkg.dutils: it must be "
        f"a collective site; got sites {sites}")
    clock = [d for d in report.decisions if d.condition == "time.monotonic() > 5"]
    assert clock and clock[0].verdict is Verdict.RANK_LOCAL, (
        f"the rank's clock decides whether it joins `{call}`: RANK-LOCAL expected, got "
        f"{[(d.condition, d.verdict.value) for d in report.decisions]}")
    assert report.sites[0].group == "self.tp_group", (
        f"the group is the `group=` keyword, or the argument where the original torch "
        f"function's signature puts it (all_gather_into_tensor: third, reduce_scatter_single: "
        f"fourth), not where a function named like the alias would: got "
        f"{report.sites[0].group!r}")


def test_a_re_exported_functional_collective_makes_its_result_agreed(make_pkg):
    report = _decisions(make_pkg, "pass").decisions  # the clock's own decision gates nothing
    step = SOURCE.replace("if time.monotonic() > 5:\n                CALL",
                          "total = reduce_total(time.monotonic(), 'max', group=self.tp_group)\n"
                          "            if total > 5:\n"
                          "                dist.barrier(group=self.tp_group)")
    root = make_pkg({"dutils.py": UTILS, "s.py": step}, ROOTS)
    found = [d for d in audit("pkg.s:S", root=root).decisions if d.condition == "total > 5"]
    assert report == [] and found and found[0].verdict is Verdict.UNIFORM, (
        "`reduce_total = funcol.all_reduce` re-exported: `total = reduce_total(clock, 'max', "
        "group=self.tp_group)` is the functional all-reduce's result, agreed over TP, so "
        f"`if total > 5:` is UNIFORM; got {[(d.condition, d.verdict.value) for d in found]}")


def test_a_project_function_named_like_nothing_torch_has_is_no_site(make_pkg):
    report = _decisions(make_pkg, "local_gather(out, inp, group=self.tp_group)")
    assert not report.sites, (
        "pkg.dutils.local_gather is a project function that issues nothing: no site; got "
        f"{[s.call for s in report.sites]}")
