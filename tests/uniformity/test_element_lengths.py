"""A loop variable read for its size or kind reads each element's length, not its content
(docs/uniformity.md "Inputs"): ``for buf in inputs: if not buf.is_floating_point():
continue`` depends on how long (and of what kind) each element of ``inputs`` is — the
tuple's elements followed one by one, through ``enumerate``/``zip``/``tuple(...)`` — not on
what the elements hold. Found on DeepSpeed's pipeline engine (``_exec_send_grads``: the
partition meta tensor holds ``self.rank``; its kind and length do not depend on it).
Twins: an element whose length is rank-local, and a read of an element's content, stay
RANK-LOCAL."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    import torch


    class Part:
        def __init__(self):
            self.rank = dist.get_rank()

        def to_meta(self):
            meta = [4]
            meta.append(self.rank)
            return torch.LongTensor(data=meta)


    class S:
        def step(self):
            part = Part()
            inputs = (part.to_meta(), ELEMENT)
            for LOOP:
                if TEST:
                    continue
                dist.all_reduce(buf, group=self.tp_cpu_group)
"""

LOOPS = {"plain": "buf in inputs", "enumerate": "i, buf in enumerate(inputs)",
         "zip": "n, buf in zip(range(2), inputs)", "tuple_copy": "buf in tuple(inputs)"}
SIZE_TESTS = {"kind": "not buf.is_floating_point()", "numel": "buf.numel() == 0",
              "len": "len(buf) == 0"}


def _exit(loop: str, test: str, element: str, make_pkg):
    source = SOURCE.replace("LOOP", loop).replace("TEST", test).replace("ELEMENT", element)
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    exits = [d for d in report.decisions if d.condition == test]
    assert exits, f"`if {test}: continue` is no decision: {report.decisions}"
    return exits[0]


@pytest.mark.parametrize("loop", list(LOOPS.values()), ids=list(LOOPS))
@pytest.mark.parametrize("test", list(SIZE_TESTS.values()), ids=list(SIZE_TESTS))
def test_an_elements_size_or_kind_does_not_read_its_content(make_pkg, loop, test):
    d = _exit(loop, test, "torch.zeros(3)", make_pkg)
    assert d.verdict is Verdict.UNIFORM, (
        f"`for {loop}: if {test}: continue`: every element's length and kind are fixed "
        f"(a meta tensor of two entries, a tensor of 3); the meta's content holds the rank, "
        f"which a size or kind read does not see: must be UNIFORM; got {d.verdict.value}: "
        f"{d.why}")


@pytest.mark.parametrize("loop", list(LOOPS.values()), ids=list(LOOPS))
def test_an_element_whose_length_is_rank_local_stays_rank_local(make_pkg, loop):
    d = _exit(loop, "buf.numel() == 0", "torch.zeros(dist.get_rank())", make_pkg)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`for {loop}: if buf.numel() == 0`: one element is torch.zeros(rank), its length "
        f"differs per rank: must be RANK-LOCAL; got {d.verdict.value}: {d.why}")
    assert "get_rank" in d.why, f"the witness must name the rank id: {d.why}"


@pytest.mark.parametrize("loop", list(LOOPS.values()), ids=list(LOOPS))
def test_an_elements_content_read_stays_rank_local(make_pkg, loop):
    d = _exit(loop, "buf.tolist()[-1] == 0", "torch.zeros(3)", make_pkg)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`for {loop}: if buf.tolist()[-1] == 0`: the meta tensor's last entry is the rank "
        f"(content, not length): must be RANK-LOCAL; got {d.verdict.value}: {d.why}")


def test_an_element_appended_under_a_rank_local_test_changes_the_kind(make_pkg):
    """What a list's elements are follows what was put in: an element appended as a clock
    or as a tensor (by a rank-local test) changes the kind a type test sees."""
    source = SOURCE.replace("inputs = (part.to_meta(), ELEMENT)",
                            "inputs = [part.to_meta()]\n"
                            "            inputs.append(torch.zeros(3) if time.time() > 5 else 7)"
                            ).replace("LOOP", "buf in inputs").replace(
        "TEST", "not isinstance(buf, torch.Tensor)")
    report = audit("pkg.s:S", root=make_pkg({"s.py": source}, ROOTS))
    d = [d for d in report.decisions if d.condition == "not isinstance(buf, torch.Tensor)"][0]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"an element appended as a tensor or an int by a clock test: whether it is a tensor "
        f"is rank-local: must be RANK-LOCAL; got {d.verdict.value}: {d.why}")
