"""Measure `deskcheck uniformity` on SGLang 0.5.23's Scheduler (source only, nothing imported).

Usage: python bench/uniformity_sglang.py [SGLANG_SRC] [--changed-since [--equal]] [--replicas]
[--outside-writes] [--components] [--ngram] [--consensus]
(``--equal``: for each edit answered from the cache, also compare with a cold audit).
(``--outside-writes``: the audit again with ``outside_writes`` on, alternated twice with the
default: times, verdicts, decisions whose inputs grew and the writes through other objects
the new witnesses pass).
(``--components``: also declare the classes ``Scheduler.tree_cache`` may hold, a registry's
result the code does not say, so the audit enters the prefix caches and their HiCache
collectives; ``--ngram``: declare ``Scheduler.ngram_embedding_manager``'s class, a field copied
from the model runner's, which resolves six UNKNOWN ``if batch:`` decisions; ``--consensus``:
read SGLang's ``@rank_consensus`` decorators, on its prefix caches, so best with
``--components``).
(``--replicas``: also declare the pool replica premise, bench/sglang_uniformity_replicas.toml;
``--whatif``: that, the disaggregation pools and device capacity, bench/sglang_uniformity_whatif.toml).
SGLANG_SRC defaults to /work/_sglang_src/src, else bench/_work/src: get it with
`pip download --no-deps sglang==0.5.23` and unzip the wheel into bench/_work/src.
Prints the counts, every RANK-LOCAL report (file:line, condition, first witness) and the
UNKNOWN count by reason; writes bench/_work/uniformity_sglang.json.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections import Counter
from pathlib import Path

from deskcheck.uniformity.config import Component, Consensus

HERE = Path(__file__).resolve().parent

# what sglang.srt.mem_cache.registry.create_tree_cache builds (0.5.23)
TREE_CACHE = Component("Scheduler.tree_cache", (
    "sglang.srt.mem_cache.unified_radix_cache:UnifiedRadixCache",
    "sglang.srt.mem_cache.pure_swa_radix_cache:PureSWARadixCache"), "bench --components")
NGRAM = Component(
    "Scheduler.ngram_embedding_manager",
    ("sglang.srt.model_executor.model_runner_components.ngram_embedding_manager:"
     "NgramEmbeddingManager",), "bench --ngram")


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0]) if args else next(
        (p for p in (Path("/work/_sglang_src/src"), HERE / "_work" / "src") if p.is_dir()),
        HERE / "_work" / "src")
    src = src.resolve()  # witnesses are printed relative to it
    from deskcheck.static import clear_cache
    from deskcheck.uniformity import Verdict, audit, load_uniformity_config

    name = ("sglang_uniformity_replicas.toml" if "--replicas" in sys.argv
            else "sglang_uniformity_whatif.toml" if "--whatif" in sys.argv
            else "sglang_uniformity.toml")
    config = load_uniformity_config(HERE / name)
    if "--components" in sys.argv:
        config.components.append(TREE_CACHE)
    if "--ngram" in sys.argv:
        config.components.append(NGRAM)
    if "--consensus" in sys.argv:  # SGLang's own @rank_consensus claims, read statically
        # its checker syncs over the attention TP (x CP) groups and PP: model parallel
        config.consensus.append(Consensus("rank_consensus", "mp", "bench --consensus"))
    clear_cache()
    started, cpu = time.perf_counter(), time.process_time()
    report = audit("sglang.srt.managers.scheduler:Scheduler", root=src, config=config)
    cold, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"cold: {cold:.2f}s wall, {cpu:.2f}s cpu  functions={report.functions} sites={len(report.sites)} "
          f"decisions={len(report.decisions)} {report.counts()}")
    for d in report.by_verdict(Verdict.RANK_LOCAL):
        first = next(i for i in d.inputs if i.klass.value == "RANK-LOCAL")
        rel = str(Path(d.file).relative_to(src)) if d.file.startswith(str(src)) else d.file
        print(f"RANK-LOCAL {rel}:{d.line} {d.function} [{d.kind}] {d.condition[:70]}")
        print(f"    input {first.name}: {first.reason}")
        for hop in first.witness[:6]:
            print(f"      {hop.replace(str(src) + '/', '')}")
    reasons = Counter()
    for d in report.by_verdict(Verdict.UNKNOWN):
        first = next((i for i in d.inputs if i.klass.value == "UNKNOWN"), None)
        reason = first.reason if first else d.why
        reasons[reason.split(":")[0][:70]] += 1
    print("UNKNOWN by reason:")
    for reason, n in reasons.most_common():
        print(f"  {n:4d}  {reason}")
    out = HERE / "_work"
    out.mkdir(exist_ok=True)
    for finding in report.declarations:
        print(f"declaration {finding.status}: {finding.kind} {finding.subject}")
    (out / "uniformity_sglang.json").write_text(json.dumps(report.to_json(), indent=1))
    if "--changed-since" in sys.argv:
        changed_since_timing(src)
    if "--outside-writes" in sys.argv:
        outside_writes_comparison(src, config)
    return 0


def outside_writes_comparison(src: Path, config) -> None:
    """The default audit against one with ``outside_writes = true``, alternated twice."""
    import dataclasses
    import re

    from deskcheck.static import clear_cache
    from deskcheck.uniformity import audit

    target = "sglang.srt.managers.scheduler:Scheduler"
    runs: dict[bool, list] = {False: [], True: []}
    for _ in range(2):
        for on in (False, True):
            clear_cache()
            gc.collect()
            started = time.perf_counter()
            report = audit(target, root=src, config=dataclasses.replace(config, outside_writes=on))
            runs[on].append((time.perf_counter() - started, report))
    off, on = runs[False][-1][1], runs[True][-1][1]
    for flag, label in ((False, "default"), (True, "outside_writes")):
        times = ", ".join(f"{t:.2f}s" for t, _r in runs[flag])
        print(f"{label}: {times} wall; {runs[flag][-1][1].counts()}")
    before = {(d.file, d.line, d.condition): d for d in off.decisions}
    grew, new_rank_local, writes = 0, Counter(), Counter()
    through = re.compile(r":\d+ (?!self\.)[A-Za-z_]\w*\.\w+ "
                         r"(assign|augassign|mutate|item|element|delete)")
    for d in on.decisions:
        old = before.get((d.file, d.line, d.condition))
        had = {(i.name, i.klass) for i in old.inputs} if old else set()
        added = [i for i in d.inputs if (i.name, i.klass) not in had]
        grew += bool(added)
        for i in added:
            if i.klass.value == "RANK-LOCAL":
                new_rank_local[i.name] += 1
        for i in d.inputs:
            hop = next((h for h in i.witness if through.search(h)), None)
            if hop is not None:
                writes[hop.replace(str(src) + "/", "")] += 1
    changed = sum(1 for d in on.decisions
                  if (k := (d.file, d.line, d.condition)) in before
                  and before[k].verdict != d.verdict)
    print(f"decisions: {len(off.decisions)} -> {len(on.decisions)}; verdicts changed: {changed}; "
          f"decisions with new inputs: {grew}; new RANK-LOCAL inputs: "
          f"{sum(new_rank_local.values())} ({len(new_rank_local)} names)")
    for name, n in new_rank_local.most_common(8):
        print(f"  new rank-local input {name}: {n} decisions")
    for hop, n in writes.most_common(10):
        print(f"  write through another object in {n} witnesses: {hop}")



def _timed(label: str, run):
    started, cpu = time.perf_counter(), time.process_time()
    result = run()
    print(f"{label}: {time.perf_counter() - started:.2f}s wall, "
          f"{time.process_time() - cpu:.2f}s cpu")
    return result


def changed_since_timing(src: Path) -> None:
    """``--changed-since`` on a scratch git repo of the source under bench/_work (made once),
    with a fresh audit cache (bench/_work/uniformity_cache.sqlite, removed first): the
    branch point audited once (fills the cache), then a docs-only branch, a comment in
    scheduler.py, and a one-line code change in scheduler.py, each run twice (the second
    run finds both sides cached)."""
    import shutil
    import subprocess

    from deskcheck.static import clear_cache
    from deskcheck.uniformity import audit, load_uniformity_config
    from deskcheck.uniformity.cache import AuditCache
    from deskcheck.uniformity.changed import changed_since

    repo = HERE / "_work" / "sglang_git"
    if not (repo / ".git").is_dir():
        shutil.copytree(src / "sglang", repo / "sglang", dirs_exist_ok=True)
        for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                     ["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "base"]):
            subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    path = HERE / "_work" / "uniformity_cache.sqlite"
    path.unlink(missing_ok=True)
    cache = AuditCache(path)
    config = load_uniformity_config(HERE / "sglang_uniformity.toml")
    target = "sglang.srt.managers.scheduler:Scheduler"
    clear_cache()
    _timed("full audit of main, empty cache (fills it)",
           lambda: audit(target, root=repo, config=config, cache=cache))
    clear_cache()
    _timed("full audit of main, cached (a fresh process would see the same)",
           lambda: audit(target, root=repo, config=config, cache=cache))
    (repo / "NOTES.md").write_text("docs only\n")
    docs = _timed("--changed-since, docs-only branch",
                  lambda: changed_since(target, root=repo, ref="main", config=config,
                                        cache=cache))
    print(f"    {len(docs.decisions)} decisions changed")
    sched = "sglang/srt/managers/scheduler.py"
    pp = "sglang/srt/managers/scheduler_pp_mixin.py"
    comps = "sglang/srt/managers/scheduler_components/"
    # (label, file, old, new): the first four are read by the audit (a comment: the same
    # tree; a code change: audited again; a docstring's words and a log message's: read by
    # nothing, answered from the cache); the rest are one-line code edits in bodies it
    # never parses (the field-write scan and the stale-declaration sweep may look at them:
    # each edit keeps them free of field writes and their calls and tests the same)
    edits = [("a comment in scheduler.py", sched, "    def event_loop_normal(self):",
              "    def event_loop_normal(self):  # touched"),
             ("a one-line code change in scheduler.py", sched,
              '"""A normal scheduler loop."""\n        while True:\n'
              "            if self.gracefully_exit:",
              '"""A normal scheduler loop."""\n        while True:\n'
              "            if self.gracefully_exit or self.is_generation is None:"),
             ("a docstring reworded in event_loop_normal (parsed)", sched,
              '"""A normal scheduler loop."""', '"""The normal scheduler loop."""'),
             ("a log message reworded in init_req_max_new_tokens (parsed)", sched,
              'f"Capping max_new_tokens of request {req.rid} to "',
              'f"Capping the max_new_tokens of request {req.rid} to "'),
             ("unread: Scheduler.open_session", sched,
              "            return output\n        return None\n\n    def close_session",
              "            return output\n        return output and None\n\n"
              "    def close_session"),
             ("unread: Scheduler.get_init_info", sched, '"status": "ready",',
              '"status": "ready!",'),
             ("unread: Scheduler.handle_freeze_gc", sched,
              'freeze_gc("Scheduler", recv_req.gc_threshold)',
              'freeze_gc("Scheduler ", recv_req.gc_threshold)'),
             ("unread: SchedulerPPMixin._pp_make_skip_output_result", pp,
              "        bs = len(batch.reqs)\n        placeholder",
              "        bs = len(batch.reqs) + 0\n        placeholder"),
             ("unread: output_streamer is_request_level_customized_info_key", comps
              + "output_streamer.py",
              '"""Whether a customized-info value is emitted once rather than token-sliced."""'
              "\n        return False",
              '"""Whether a customized-info value is emitted once rather than token-sliced."""'
              "\n        return not True"),
             ("unread: pool_stats_observer get_prefill_usage_msg_parts", comps
              + "pool_stats_observer.py",
              "    def get_prefill_usage_msg_parts(self) -> List[str]:\n        parts = []",
              "    def get_prefill_usage_msg_parts(self) -> List[str]:\n        parts = [] + []")]
    for label, rel, old, new in edits:
        path = repo / rel
        text = path.read_text()
        assert old in text, f"{old!r} is not in {rel}"
        path.write_text(text.replace(old, new, 1))
        for run in ("first run", "second run"):
            clear_cache()
            gc.collect()  # the earlier audits' garbage: a fresh process has none to collect
            hits = cache.hits
            one = _timed(f"--changed-since, {label}, {run}",
                         lambda: changed_since(target, root=repo, ref="main", config=config,
                                               cache=cache))
            print(f"    {len(one.decisions)} decisions changed, "
                  f"{cache.hits - hits} of 2 sides from the cache")
        if "--equal" in sys.argv:  # what the cache answers for the edited tree == cold
            clear_cache()
            warm = audit(target, root=repo, config=config, cache=cache).to_json()
            clear_cache()
            cold = audit(target, root=repo, config=config).to_json()
            warm.pop("seconds"), cold.pop("seconds")
            print(f"    {label}: the audit the cache answers equals a cold audit: "
                  f"{warm == cold}")
        path.write_text(text)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    (repo / "NOTES.md").unlink()


if __name__ == "__main__":
    sys.exit(main())
