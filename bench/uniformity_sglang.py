"""Measure `deskcheck uniformity` on SGLang 0.5.23's Scheduler (source only, nothing imported).

Usage: python bench/uniformity_sglang.py [SGLANG_SRC] [--changed-since] [--replicas]
(``--replicas``: also declare the pool replica premise, bench/sglang_uniformity_replicas.toml).
SGLANG_SRC defaults to /work/_sglang_src/src, else bench/_work/src: get it with
`pip download --no-deps sglang==0.5.23` and unzip the wheel into bench/_work/src.
Prints the counts, every RANK-LOCAL report (file:line, condition, first witness) and the
UNKNOWN count by reason; writes bench/_work/uniformity_sglang.json.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0]) if args else next(
        (p for p in (Path("/work/_sglang_src/src"), HERE / "_work" / "src") if p.is_dir()),
        HERE / "_work" / "src")
    src = src.resolve()  # witnesses are printed relative to it
    from deskcheck.static import clear_cache
    from deskcheck.uniformity import Verdict, audit, load_uniformity_config

    name = "sglang_uniformity_replicas.toml" if "--replicas" in sys.argv else "sglang_uniformity.toml"
    config = load_uniformity_config(HERE / name)
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
    return 0



def changed_since_timing(src: Path) -> None:
    """``--changed-since`` on a one-line branch: a git repo of the source under bench/_work
    (made once), a comment-only change in scheduler.py and a docs-only change."""
    import shutil
    import subprocess

    from deskcheck.uniformity import load_uniformity_config
    from deskcheck.uniformity.changed import changed_since

    repo = HERE / "_work" / "sglang_git"
    if not (repo / ".git").is_dir():
        shutil.copytree(src / "sglang", repo / "sglang", dirs_exist_ok=True)
        for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                     ["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "base"]):
            subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    config = load_uniformity_config(HERE / "sglang_uniformity.toml")
    target = "sglang.srt.managers.scheduler:Scheduler"
    (repo / "NOTES.md").write_text("docs only\n")
    started = time.perf_counter()
    docs = changed_since(target, root=repo, ref="main", config=config)
    print(f"--changed-since, docs-only branch: {time.perf_counter() - started:.2f}s, "
          f"{len(docs.decisions)} decisions")
    sched = repo / "sglang/srt/managers/scheduler.py"
    text = sched.read_text()
    sched.write_text(text.replace("    def event_loop_normal(self):",
                                  "    def event_loop_normal(self):  # touched", 1))
    started = time.perf_counter()
    one = changed_since(target, root=repo, ref="main", config=config)
    print(f"--changed-since, one-line branch in scheduler.py: "
          f"{time.perf_counter() - started:.2f}s, {len(one.decisions)} decisions changed")
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    (repo / "NOTES.md").unlink()


if __name__ == "__main__":
    sys.exit(main())
