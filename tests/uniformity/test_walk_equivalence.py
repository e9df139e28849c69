"""The audit's shortcuts answer exactly as the plain computation they replace, on real code
(deskcheck's own source) and on graphs made to tell them apart:

- every tree is walked once (``subnodes``) and in ``ast.walk``'s order;
- the exits a name read has passed are kept until an exit or a block changes them;
- which module-level names a file can write is found in one pass for all names;
- a witness through a cycle's group is a shortest path of reads to a member that reads the
  source itself.
"""

from __future__ import annotations

import ast
import random
import re
from collections import deque
from pathlib import Path

import pytest

from deskcheck.static import flow_facts, subnodes
from deskcheck.static._dataflow import _Walker
from deskcheck.uniformity.cycles import _Solution, expand_witness
from deskcheck.uniformity.leaves import Leaf
from deskcheck.uniformity.module_state import _FILLING, _written_in, module_names

SOURCE = Path(__file__).resolve().parents[2] / "deskcheck"
FILES = sorted(SOURCE.rglob("*.py"))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_subnodes_are_ast_walks_nodes_in_its_order_and_walked_once():
    tree = ast.parse((SOURCE / "uniformity" / "trace.py").read_text())
    for node in _functions(tree)[:80]:
        want = list(ast.walk(node))
        found = subnodes(node)
        assert len(found) == len(want) and all(a is b for a, b in zip(found, want, strict=True)), (
            f"subnodes({node.name}) must yield ast.walk's nodes in ast.walk's order "
            f"(breadth first, children in field order); {len(found)} vs {len(want)} nodes")
        assert subnodes(node) is found, (
            f"subnodes({node.name}) walked the tree again: the first walk must be kept")


def test_subnodes_never_keeps_a_walk_on_a_shared_context_node():
    load = ast.parse("x").body[0].value.ctx  # one ast.Load() object shared by every tree
    subnodes(load)
    assert "_deskcheck_subnodes" not in load.__dict__, (
        "subnodes kept a walk on ast.Load(), one object shared by every tree: only "
        "positioned nodes (and modules) may keep theirs")


def _exits(fn: ast.AST) -> tuple[dict, list]:
    """The exits each name read passed: by node for the function's own nodes, and as a
    sorted list for the nodes the walk makes itself (their ids differ from walk to walk)."""
    own = {id(n): n for n in ast.walk(fn)}
    exits = _Walker(fn).run().exits
    shown = {key: guards for key, guards in exits.items() if key in own}
    made = sorted(tuple((g.kind, g.line, g.negated) for g in guards)
                  for key, guards in exits.items() if key not in own)
    return shown, made


def _uncached_passed(self):
    return tuple(g for block in self.exit_guards for g in block if g.kind == "exit")


@pytest.mark.parametrize("folder", ["static", "uniformity"])
def test_the_exits_a_read_has_passed_are_those_an_uncached_walk_finds(folder, monkeypatch):
    trees = [ast.parse(f.read_text()) for f in FILES if f.parent.name == folder]
    functions = [fn for tree in trees for fn in _functions(tree)]
    cached = [_exits(fn) for fn in functions]
    monkeypatch.setattr(_Walker, "_passed_exits", _uncached_passed)
    plain = [_exits(fn) for fn in functions]
    differ = [fn.name for fn, a, b in zip(functions, cached, plain, strict=True) if a != b]
    assert not differ, (
        f"the exits a name read has passed (kept until an exit or a block changes them) "
        f"differ from an uncached walk's in {len(differ)} functions of deskcheck/{folder}, "
        f"first {differ[:5]}: a change to the open exits did not drop the kept answer")
    assert sum(len(e[0]) for e in plain) > 100, "the corpus must hold reads after early exits"


@pytest.mark.parametrize("exit_text", ["if y:\n        return", "assert y"],
                         ids=["return_in_a_block", "assert_in_the_same_block"])
def test_a_read_after_an_exit_sees_it_and_one_before_does_not(exit_text):
    fn = ast.parse(f"def f(x, y):\n    a = x\n    {exit_text}\n    b = x\n").body[0]
    reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == "x"
             and isinstance(n.ctx, ast.Load)]
    facts = flow_facts(fn)
    first, second = sorted(reads, key=lambda n: n.lineno)
    assert id(first) not in facts.exits, f"a read before `{exit_text}` passed no exit"
    assert [g.kind for g in facts.exits.get(id(second), ())] == ["exit"], (
        f"the read after `{exit_text}` must have passed that exit (the answer kept from the "
        f"first read was not dropped when the exit was added)")


def _per_name(text: str, names: set[str]) -> set[str]:
    """The search, one regex per name, the single pass replaced."""
    fills = "|".join(sorted(_FILLING))
    found = set()
    for name in names:
        n = re.escape(name)
        if re.search(rf"\bglobal\b[^\n]*\b{n}\b|\b{n}\s*\[[^\n]*\]\s*[-+*/|&]?=(?!=)"
                     rf"|\b{n}\.\w+\s*[-+*/|&]?=(?!=)|\b{n}\.(?:{fills})\(", text):
            found.add(name)
    return found


@pytest.mark.parametrize("text, written", [
    ("_A[_B[k]] = 1\n", {"_A", "_B"}),
    ("global ab, abc\n", {"ab", "abc"}),
    ("abc.x = 1\nab == 2\n", {"abc"}),
    ("ab.x = 1\nabc[1] == 2\n", {"ab"}),
    ("abcd.append(1)\nabc.get(1)\n", {"abcd"}),
    ("x = ab[1]\nabc.y += 2\n", {"abc"}),
    ("x_A.y = 1\n", set()),
])
def test_the_text_filter_finds_each_name_a_file_can_write(text, written):
    names = {"_A", "_B", "ab", "abc", "abcd"}
    found = _written_in(text, names)
    assert found == written == _per_name(text, names), (
        f"in {text!r} the names that can be written are {sorted(written)} (a name written "
        f"inside another's item, a longer name sharing a prefix, every name of a global "
        f"line); the one-pass filter found {sorted(found)}")


def test_the_text_filter_agrees_with_a_search_per_name_on_real_modules():
    checked = 0
    for file in FILES:
        text = file.read_text()
        names = module_names(ast.parse(text)) | {"self", "out", "found", "seen"}
        found, want = _written_in(text, names), _per_name(text, names)
        assert found == want, (
            f"{file.name}: the one-pass text filter found {sorted(found - want)} more and "
            f"{sorted(want - found)} fewer writable names than a search per name")
        checked += bool(want)
    assert checked > 20, "the corpus must hold files that write some of the names"


def _ring(size: int, chords: list[tuple[int, int]], owners: list[int]) -> _Solution:
    """Members 0..size-1 in a ring of reads (i reads i+1) plus ``chords`` (i reads j), all
    unmarked (one group); each of ``owners`` reads the clock itself."""
    member = [(f"m{i}",) for i in range(size)]
    refs = {f"\x00cycle:{i}": member[i] for i in range(size)}
    partial: dict[tuple, tuple[Leaf, ...]] = {}
    for i in range(size):
        reads = [(i + 1) % size] + [j for a, j in chords if a == i]
        leaves = [Leaf(f"\x00cycle:{j}", "cycle", "", "", (f"m{i} reads m{j}",))
                  for j in reads]
        if i in owners:
            leaves.append(Leaf("clock", "rank_local", "clock", "", (f"m{i}: clock",)))
        partial[member[i]] = tuple(leaves)
    return _Solution(member, partial, refs)


def _distance(size: int, chords: list[tuple[int, int]], owners: list[int], start: int) -> int:
    reads: dict[int, list[int]] = {i: [(i + 1) % size] for i in range(size)}
    for a, j in chords:
        reads[a].append(j)
    seen, todo = {start: 0}, deque([start])
    while todo:
        at = todo.popleft()
        if at in owners:
            return seen[at]
        for nxt in reads[at]:
            if nxt not in seen:
                seen[nxt] = seen[at] + 1
                todo.append(nxt)
    raise AssertionError("every member of a ring reaches an owner")


@pytest.mark.parametrize("seed", range(12))
def test_a_witness_inside_a_group_is_a_shortest_path_of_reads_to_an_owner(seed):
    rng = random.Random(seed)
    size = rng.randint(5, 40)
    chords = [(rng.randrange(size), rng.randrange(size)) for _ in range(rng.randint(0, size))]
    owners = rng.sample(range(size), rng.randint(1, 3))
    solution = _ring(size, chords, owners)
    for i in range(size):
        leaf = next(leaf for leaf in solution.leaves((f"m{i}",)) if leaf.name == "clock"
                    and not leaf.single)
        hops = expand_witness(leaf.witness)
        want = _distance(size, chords, owners, i)
        assert len(hops) == want + 1 and hops[-1].endswith(": clock"), (
            f"seed {seed}: m{i} is {want} reads from the nearest member reading the clock "
            f"itself; its witness must be those reads then the owner's read, got {hops}")
        at = i
        for hop in hops[:-1]:
            reader, _reads, target = hop.split()
            assert reader == f"m{at}", f"seed {seed}: the witness {hops} is not a path of reads"
            at = int(target[1:])
        assert at in owners, f"seed {seed}: the witness {hops} ends at m{at}, not an owner"


def test_reads_a_memo_tells_again_are_told_as_note_read_tells_them():
    from deskcheck.static import read_as, record_reads
    from deskcheck.static._sources import note_reads

    kept = {("m.py", 5, "body"), ("m.py", 9, "scan")}
    with record_reads() as plain:
        note_reads(kept)
    with record_reads() as calls, read_as("calls"):
        note_reads(kept)
    assert plain == kept, f"reads told again outside read_as must be kept as they were: {plain}"
    assert calls == {("m.py", 5, "calls"), ("m.py", 9, "scan")}, (
        f"inside read_as('calls') a body read told again is read as 'calls', as note_read "
        f"tells it (else an edit to such a body would needlessly miss the audit cache): {calls}")


def test_a_module_scanned_for_subclasses_is_read_once_per_audit(tmp_path, monkeypatch):
    from deskcheck.static import Sources

    module = tmp_path / "mod.py"
    module.write_text("class Child(Base):\n    pass\n")
    sources = Sources()
    reads: list[str] = []
    text = Sources.text
    monkeypatch.setattr(Sources, "text", lambda self, path: reads.append(str(path))
                        or text(self, path))
    first, second = sources.scan(module), sources.scan(module)
    assert first == second == module.read_bytes(), "a scan must give the file's bytes"
    assert len(reads) == 1, (
        f"a subclass search scans every module once per class asked about: the second scan "
        f"of {module.name} must answer from the first, not read the file again ({reads})")
    assert str(module.resolve()) in sources.read, "a scanned file is recorded as read"


@pytest.mark.parametrize("single", [frozenset(), frozenset({"tp"})], ids=["plain", "single_rank"])
def test_a_hop_goes_in_front_of_a_witness_kept_at_24_hops(single):
    from deskcheck.uniformity.trace import Tracer

    long = Leaf("clock", "rank_local", "clock", "", tuple(f"h{i}" for i in range(24)))
    short = Leaf("poll", "rank_local", "poll", "tp", ("p0",), frozenset({"dp"}), "g")
    found = Tracer._prefixed(None, "new", (long, short), single)
    assert [len(leaf.witness) for leaf in found] == [24, 2], (
        f"a witness is kept at 24 hops, the new hop first and the last old one dropped: got "
        f"{[len(leaf.witness) for leaf in found]} hops ({'with' if single else 'without'} "
        f"single-rank marks)")
    assert found[0].witness[:2] == ("new", "h0") and found[0].witness[-1] == "h22", (
        f"the new hop goes in front: {found[0].witness}")
    assert found[1][:4] == short[:4] and found[1].group == "g" and found[1].witness == (
        "new", "p0") and found[1].single == frozenset({"dp"}) | single, (
        f"every other part of a leaf is kept (single-rank marks joined): {found[1]}")
