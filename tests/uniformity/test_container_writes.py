"""A local container's content and membership come from what is written into it
(docs/uniformity.md: containers, length and membership apart from content): an item write
(`d[k] = v`) or a mutating call (`xs.append(v)`) carries v's classification to the reads."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

CASES = {
    "item write": """
        class S:
            def step(self):
                sizes = {}
                sizes["free"] = self.pool.available_size()
                if sizes["free"] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """,
    "append": """
        class S:
            def step(self):
                sizes = []
                sizes.append(self.pool.available_size())
                if sizes[0] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """,
    "membership by a guarded item write": """
        class S:
            def step(self):
                picked = {}
                for rid in self.queue:
                    if self.pool.available_size() < 4:
                        continue
                    picked[rid] = 1
                if picked:
                    dist.barrier(group=self.tp_cpu_group)
    """,
}


def _verdicts(make_pkg, src: str) -> dict:
    """condition -> (verdict, why) of the audit of ``src`` rooted at ``step``."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    return {d.condition: (d.verdict, d.why) for d in report.decisions}


@pytest.mark.parametrize("shape", sorted(CASES))
def test_a_rank_local_value_written_into_a_local_container_is_rank_local(make_pkg, shape):
    report = audit("pkg.s:S", root=make_pkg({"s.py": CASES[shape]}, ROOTS))
    gating = [d for d in report.decisions if "barrier" not in d.condition]
    assert gating, f"{shape}: the audit found no gating decision at all: {report.decisions}"
    verdicts = {d.condition: (d.verdict.value, d.why) for d in gating}
    assert all(d.verdict is Verdict.RANK_LOCAL for d in gating), (
        f"{shape}: a per-rank pool size written into a local container gates a barrier, so the "
        f"decision must be RANK-LOCAL (the container's content/membership comes from it); "
        f"the audit said {verdicts}")


def test_an_agreed_value_written_into_a_local_container_stays_agreed(make_pkg):
    src = """
        class S:
            def step(self):
                t = torch.tensor([self.pool.available_size()])
                dist.all_reduce(t, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)
                sizes = {}
                sizes["free"] = t.item()
                if sizes["free"] > 0:
                    dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    verdicts = {d.condition: d.verdict for d in report.decisions}
    assert verdicts.get('sizes["free"] > 0') is Verdict.UNIFORM or \
        verdicts.get("sizes['free'] > 0") is Verdict.UNIFORM, (
        "a value agreed by an all_reduce and written into a local dict is still agreed: the "
        f"decision on it must be UNIFORM, not a false alarm; the audit said {verdicts}")


def test_an_elements_existence_comes_from_whether_it_was_put_not_from_its_content(make_pkg):
    """`slots[i] is not None` tests the element's existence (docs/uniformity.md: `x is None`
    tests existence): a slot always filled, even with a per-rank value, exists on every rank;
    a slot filled only under a per-rank condition does not."""
    src = """
        class S:
            def step(self):
                slots = [None, None]
                slots[0] = self.pool.available_size()
                if slots[0] is not None:
                    dist.barrier(group=self.tp_cpu_group)
                maybe = [None, None]
                if self.pool.available_size() > 3:
                    maybe[0] = 1
                if maybe[0] is not None:
                    dist.barrier(group=self.tp_cpu_group)
    """
    verdicts = _verdicts(make_pkg, src)
    always = verdicts.get("slots[0] is not None")
    assert always and always[0] is Verdict.UNIFORM, (
        "a slot filled on every path exists on every rank whatever its content: "
        f"`slots[0] is not None` must be UNIFORM, not a false alarm; the audit said {always}")
    sometimes = verdicts.get("maybe[0] is not None")
    assert sometimes and sometimes[0] is Verdict.RANK_LOCAL, (
        "a slot filled only when the per-rank pool size is > 3 exists on some ranks only: "
        f"`maybe[0] is not None` must be RANK-LOCAL; the audit said {sometimes}")


def test_an_elements_existence_is_followed_into_a_callee_that_takes_the_container(make_pkg):
    src = """
        class S:
            def step(self):
                slots = [None, None]
                slots[0] = self.pool.available_size()
                self._send(slots)
            def _send(self, slots):
                if slots[0] is not None:
                    dist.barrier(group=self.tp_cpu_group)
    """
    verdicts = _verdicts(make_pkg, src)
    got = verdicts.get("slots[0] is not None")
    assert got and got[0] is Verdict.UNIFORM, (
        "a container passed to a helper keeps its elements' existence: a slot filled on every "
        "path exists on every rank, so `slots[0] is not None` in the callee must be UNIFORM; "
        f"the audit said {got}")


def test_a_zipped_loop_variable_comes_from_its_own_sequence_only(make_pkg):
    """`for entry, ok in zip(entries, agreed)`: `ok` is an element of `agreed` alone (the
    pattern of SGLang's deferred KV releases: per-rank flags reduced by MIN, then zipped with
    the entries); the entries' per-rank content must not leak into it."""
    src = """
        class S:
            def step(self):
                flags = []
                for entry in range(4):
                    flags.append(time.monotonic() > entry)
                t = torch.tensor(flags)
                dist.all_reduce(t, op=dist.ReduceOp.MIN, group=self.tp_cpu_group)
                stamps = [time.monotonic() for _entry in range(4)]
                kept = []
                for entry, ok in zip(stamps, t.tolist()):
                    if not ok:
                        kept.append(entry)
                if kept:
                    dist.barrier(group=self.tp_cpu_group)
    """
    verdicts = _verdicts(make_pkg, src)
    got = verdicts.get("kept")
    assert got and got[0] is Verdict.UNIFORM, (
        "`kept` holds the entries whose agreed flag is false: its length comes from the "
        "all_reduce'd flags, not from the per-rank clock stamps zipped beside them; `if kept:` "
        f"must be UNIFORM; the audit said {got}")


_POSITIONAL = """
class S:
    def __init__(self):
        self.pollers = []
    def poll_all(self):
        return [p.poll() for p in self.pollers]
    def step(self):
        polls = {build}
        {loop}
            if polls[i] == 2:
                {store}
        if len(polls) > 0:
            dist.broadcast(self.x, src=0, group=self.tp_group)
"""


_LIST = "[p.poll() for p in self.pollers]"
# built by a call: not known for a list where it is bound, so only the loop's count tells an
# element replaced from one added
_RETURNED = "self.poll_all()"
_DICT = "{i: p.poll() for i, p in enumerate(self.pollers)}"  # a mapping: a key store may grow it


@pytest.mark.parametrize("loop", ["for i, p in enumerate(self.pollers):",
                                  "for i in range(len(self.pollers)):"])
def test_an_element_replaced_at_a_counted_position_keeps_the_length(make_pkg, loop):
    root = make_pkg({"s.py": _POSITIONAL.format(loop=loop, store="polls[i] = 1",
                                                build=_RETURNED)}, ROOTS)
    (d,) = [d for d in audit("pkg.s:S", root=root).decisions if d.condition == "len(polls) > 0"]
    assert d.verdict is Verdict.UNIFORM, (
        f"`polls[i] = 1` at a position counted by `{loop}` replaces an element: the list's "
        f"length does not depend on the polled values under which it runs; got "
        f"{d.verdict.value} via {[i.name for i in d.inputs if i.klass.value == 'RANK-LOCAL']}")


@pytest.mark.parametrize("loop,store,build", [
    # a key, not a counted position, into a mapping: it may add one
    ("for i in self.pollers:", "polls[i] = 1", _DICT),
    ("for i, p in enumerate(self.pollers):", "polls.append(i)", _LIST),  # an append grows it
])
def test_a_store_that_can_grow_the_container_still_decides_its_length(make_pkg, loop, store,
                                                                      build):
    root = make_pkg({"s.py": _POSITIONAL.format(loop=loop, store=store, build=build)}, ROOTS)
    (d,) = [d for d in audit("pkg.s:S", root=root).decisions if d.condition == "len(polls) > 0"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`{store}` under `{loop}` and a polled value can add an entry, so the length "
        f"depends on the poll; expected RANK-LOCAL, got {d.verdict.value}")


def test_a_key_unpacked_beside_an_enumerate_count_is_no_counted_position(make_pkg):
    """`for i, (k, p) in enumerate(...)`: `k` sits first in its own tuple, not where
    enumerate's count goes; `polls[k] = 1` stores under a key, which can grow the container
    (docs/uniformity.md: only `xs[i] = v` at the count keeps the length)."""
    loop = "for i, (k, p) in enumerate(zip(self.keys, self.pollers)):"
    root = make_pkg({"s.py": _POSITIONAL.format(loop=loop, store="polls[k] = 1",
                                                build=_DICT)}, ROOTS)
    (d,) = [d for d in audit("pkg.s:S", root=root).decisions if d.condition == "len(polls) > 0"]
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`polls[k] = 1` under `{loop}` stores under the unpacked key `k`, not at the counted "
        f"position `i`, so it can add an entry under the polled condition; expected "
        f"RANK-LOCAL, got {d.verdict.value} (the key was taken for the enumerate count)")


def test_an_element_replaced_at_a_counted_position_still_carries_its_content(make_pkg):
    """A write at a counted position keeps only the *length*: what it puts in is still the
    content (`sizes[0] > 0`), and whether it ran still decides the element's existence
    (`slots[0] is not None`)."""
    src = """
        class S:
            def step(self):
                sizes = [0, 0]
                for i in range(2):
                    sizes[i] = self.pool.available_size()
                if sizes[0] > 0:
                    dist.barrier(group=self.tp_cpu_group)
                slots = [None, None]
                for i, p in enumerate(self.pollers):
                    if self.pool.available_size() > 3:
                        slots[i] = 1
                if slots[0] is not None:
                    dist.barrier(group=self.tp_cpu_group)
    """
    verdicts = _verdicts(make_pkg, src)
    content = verdicts.get("sizes[0] > 0")
    assert content and content[0] is Verdict.RANK_LOCAL, (
        "`sizes[i] = <per-rank pool size>` under `for i in range(2)` replaces elements with "
        "per-rank values: `sizes[0] > 0` reads that content and must be RANK-LOCAL (only the "
        f"length is kept by a counted position); the audit said {content}")
    there = verdicts.get("slots[0] is not None")
    assert there and there[0] is Verdict.RANK_LOCAL, (
        "`slots[i] = 1` under a per-rank condition fills the slot on some ranks only: "
        "`slots[0] is not None` must be RANK-LOCAL (a counted position keeps the length, not "
        f"the element's existence); the audit said {there}")
