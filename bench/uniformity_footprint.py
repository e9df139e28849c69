"""How much of SGLang's Scheduler audit an edit in one function could leave standing: the
data behind function-level incremental re-analysis (issue 27), measured, not built.

Usage: python bench/uniformity_footprint.py [SGLANG_SRC] [FUNCTION ...]
(SGLANG_SRC as in bench/uniformity_sglang.py; FUNCTION: qualnames to report, default
``Scheduler.event_loop_normal`` and the top five by decisions).

One cold audit, its phases timed apart (CPU, ``time.process_time``): parsing and the
reachable set, then the input-set walk with the verdicts (and, of it, solving the cycle
groups), then the declaration check; then the CPU to load the walk's memo from a pickle. The
walk is recorded as a graph (each traced expression -> the expressions it traced, memo hits
included), so each decision's *footprint* is every function its walk entered, through any
other decision's memoised work. An edit to a function can change at most the decisions
whose footprint holds it (side effects of the walk aside: callers a component read
registers, field-write lists) -- the decisions a re-walk would have to redo.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0]) if args and Path(args[0]).is_dir() else next(
        (p for p in (Path("/work/_sglang_src/src"), HERE / "_work" / "src") if p.is_dir()),
        HERE / "_work" / "src")
    wanted = [a for a in args if not Path(a).is_dir()] or ["Scheduler.event_loop_normal"]
    sys.setrecursionlimit(100000)
    import importlib

    from deskcheck.static import CallResolver, Sources, StaticIndex, build_static
    from deskcheck.uniformity import load_uniformity_config
    from deskcheck.uniformity.decide import gather, judge
    from deskcheck.uniformity.declarations import check_declarations
    from deskcheck.uniformity.model import AuditReport
    from deskcheck.uniformity.reach import Reach
    from deskcheck.uniformity.trace import Tracer

    audit_mod = importlib.import_module("deskcheck.uniformity.audit")  # the function shadows it
    config = load_uniformity_config(HERE / "sglang_uniformity.toml")
    root = src.resolve()
    target = "sglang.srt.managers.scheduler:Scheduler"
    edges: dict[tuple, set[tuple]] = {}
    owner: dict[tuple, tuple[str, str]] = {}
    roots_of: list[set[tuple]] = []
    traced = Tracer.trace

    def trace(self, expr, ctx, mode="value", depth=0):
        if expr is not None:
            key = (id(expr), ctx.key, "element" if mode == "element" and
                   type(expr).__name__ == "Name" else mode)
            owner.setdefault(key, (ctx.fn.file, ctx.fn.qualname))
            if self._calls:
                edges.setdefault(self._calls[-1], set()).add(key)
            elif roots_of:
                roots_of[-1].add(key)
        return traced(self, expr, ctx, mode, depth)

    Tracer.trace = trace
    from deskcheck.uniformity import cycles

    solving = {"seconds": 0.0, "groups": [], "active": 0}
    built, read = cycles._Solution.__init__, cycles._Solution.leaves

    def timed(original, sizes: bool):
        def run(self, *args):
            solving["active"] += 1
            t0 = time.process_time()
            try:
                return original(self, *args)
            finally:
                solving["active"] -= 1
                if not solving["active"]:
                    solving["seconds"] += time.process_time() - t0
                if sizes:
                    solving["groups"].append(len(args[0]))
        return run

    cycles._Solution.__init__ = timed(built, True)
    cycles._Solution.leaves = timed(read, False)
    cpu = {}
    t = time.process_time()
    sources = Sources()
    module, qualname, _method = audit_mod._split(target, sources, root)
    model = build_static(module, qualname, [root], sources)
    resolver = CallResolver(StaticIndex([root], sources))
    roots = audit_mod._root_methods(model, resolver, config.roots, target)
    reach = Reach(resolver, config)
    reach.build(roots)
    cpu["parse + reachable set"] = time.process_time() - t
    t = time.process_time()
    inline = audit_mod._inline_declarations(reach, sources)
    sanctioned = {a.field: "agreed" for a in config.agreed}
    sanctioned.update({r.field: "replica" for r in config.replica})
    sanctioned.update({k: why for k, (kind, why) in inline.items()
                       if kind in ("agreed", "replica", "config")})
    tracer = Tracer(reach, sanctioned, config.rank_local, config.config, None)
    decisions = []
    for build in gather(reach):
        roots_of.append(set())
        decisions.append(judge(build, reach, tracer, {}, {}))
    cpu["input-set walk + verdicts"] = time.process_time() - t
    t = time.process_time()
    report = AuditReport(target, [f.qualname for f in roots], decisions, [])
    check_declarations(config, report, reach, tracer, model, inline)
    cpu["declarations"] = time.process_time() - t
    Tracer.trace = traced
    cycles._Solution.__init__, cycles._Solution.leaves = built, read

    footprints: list[set[tuple[str, str]]] = []
    for d, first in zip(decisions, roots_of, strict=True):
        seen, stack = set(first), list(first)
        while stack:
            for nxt in edges.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        fns = {owner[k] for k in seen if k in owner}
        fns.add((d.file, d.function))
        footprints.append(fns)
    per_fn = Counter(fn for fp in footprints for fn in fp)
    sizes = sorted(len(fp) for fp in footprints)
    print(f"{len(decisions)} decisions, {len(reach.ctxs)} contexts, {len(owner)} traced "
          f"expressions, {sum(len(v) for v in edges.values())} walk edges")
    for phase, seconds in cpu.items():
        print(f"  cpu {phase}: {seconds:.2f} s")
    groups = sorted(solving["groups"], reverse=True)
    print(f"  of the walk, solving the {len(groups)} cycle groups (largest "
          f"{groups[:3]} members): {solving['seconds']:.2f} s")
    print(f"functions per footprint: min {sizes[0]}, median {sizes[len(sizes) // 2]}, "
          f"max {sizes[-1]}; {len(per_fn)} functions entered in all")
    hist = Counter(min(n * 10 // len(decisions), 9) for n in per_fn.values())
    print("functions by the share of decisions whose footprint holds them: "
          + ", ".join(f"{b * 10}-{b * 10 + 10}%: {hist.get(b, 0)}" for b in range(10)))
    holders: dict[tuple, set[int]] = {}
    for i, fp in enumerate(footprints):
        for fn in fp:
            holders.setdefault(fn, set()).add(i)
    classes = Counter(frozenset(v) for v in holders.values())
    same, size = classes.most_common(1)[0]
    print(f"the largest set of functions entered by exactly the same decisions: {size} "
          f"functions, in the footprint of {len(same)} decisions")
    by_name = Counter()
    for (_file, name), n in per_fn.items():
        by_name[name] = max(by_name[name], n)
    for name in wanted + [n for n, _c in by_name.most_common(5) if n not in wanted]:
        print(f"  an edit in {name}: {by_name.get(name, 0)} of {len(decisions)} decisions "
              "to walk again")
    import pickle

    memo = list(tracer._memo.values())
    data = pickle.dumps(memo, protocol=pickle.HIGHEST_PROTOCOL)
    t = time.process_time()
    pickle.loads(data)
    print(f"the walk's memo: {len(memo)} input sets, {sum(len(v) for v in memo)} leaves, "
          f"{len(data) / 1e6:.1f} MB pickled, {time.process_time() - t:.2f} s cpu to load")
    return 0


if __name__ == "__main__":
    sys.exit(main())
