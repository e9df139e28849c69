"""The recorder bench reads the ranks' CPU from every thread of each rank
(bench/recorder_overhead.py; docs/BENCHMARKS.md, *Decision recorder overhead*): a rank's gloo
threads work in every collective, and ``/proc/PID/schedstat`` alone is the main thread's."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A child whose second thread runs until it has used 0.3 s of CPU (however long a loaded
# machine takes), says so and stays alive (a rank's gloo threads live as long as the rank)
# until the child's stdin closes; its main thread idles.
_SPINNER = """
import sys, threading, time
spun, done = threading.Event(), threading.Event()
def spin():
    began = time.thread_time()
    while time.thread_time() - began < 0.3:
        pass
    spun.set()
    done.wait()
threading.Thread(target=spin).start()
spun.wait()
print("spun", flush=True)
sys.stdin.read()
done.set()
"""


def _bench():
    """bench/recorder_overhead.py, loaded with the environment and sys.path it changes put
    back (it hides CUDA devices and puts the reference target on sys.path)."""
    saved_env, saved_path = os.environ.get("CUDA_VISIBLE_DEVICES"), list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(
            "recorder_overhead_bench", ROOT / "bench" / "recorder_overhead.py")
        assert spec and spec.loader, "bench/recorder_overhead.py cannot be loaded"
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = saved_env


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_the_ranks_cpu_counts_every_thread_of_a_rank() -> None:
    bench = _bench()
    child = subprocess.Popen([sys.executable, "-c", _SPINNER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "spun", \
            "the spinning child did not report its thread's work"
        measured = bench._rank_cpu_ns([child.pid])
    finally:
        child.communicate("")
    every, main = (measured if isinstance(measured, tuple) else (measured, measured))
    assert every >= 0.25e9, (
        f"the bench's ranks' CPU left out a rank's second thread: it read {every / 1e9:.3f} s "
        f"for a process whose second thread used 0.3 s (its main thread: {main / 1e9:.3f} s)")
    assert main < every, (
        f"the bench's main-thread CPU ({main / 1e9:.3f} s) is not the main thread's alone: it "
        f"is not below every thread's ({every / 1e9:.3f} s)")
