"""Whether a rank raised is a condition wherever a handler decides something, not only when a
collective sits in the handler (docs/uniformity.md "Decisions": ``except`` handlers are
UNKNOWN, whether a rank raises). Found on torchtitan's trainer (``trainer.py``: ``try:
self.train_step(data_iterator) except DataloaderExhaustedError: break``, each rank's own data
shard running out): the break, a flag set in a handler, a field written there, a return from
a handler — each read only the exception's type (a class: no source), so every one was
UNIFORM (silent misses). SGLang's profiler start (``profiler_manager.py``: ``except
RuntimeError: self.torch_profiler = None; return ...``) is the same shape. An import that
fails fails alike on every rank: ``except ImportError`` is configuration."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

# (source, the decision's condition text): each handler decides the barrier's running
SHAPES = {
    "a break in the handler (torchtitan)": ("""
    class S:
        def step(self):
            while self.server_args.run:
                try:
                    batch = self.next_batch()
                except EXC:
                    break
                dist.barrier(group=self.tp_cpu_group)

        def next_batch(self):
            return self.server_args.x
""", "except"),
    "a flag cleared in the handler": ("""
    class S:
        def step(self):
            ok = True
            try:
                self.load()
            except EXC:
                ok = False
            if ok:
                dist.barrier(group=self.tp_cpu_group)

        def load(self):
            return self.server_args.x
""", "ok"),
    "a field written in the handler (SGLang's profiler)": ("""
    class S:
        def __init__(self):
            self.started = False

        def start(self):
            try:
                self.load()
            except EXC:
                return
            self.started = True

        def step(self):
            self.start()
            if self.started:
                dist.barrier(group=self.tp_cpu_group)

        def load(self):
            return self.server_args.x
""", "self.started"),
    "a field set inside the handler": ("""
    class S:
        def __init__(self):
            self.failed = False

        def step(self):
            try:
                self.load()
            except EXC:
                self.failed = True
            if self.failed:
                dist.barrier(group=self.tp_cpu_group)

        def load(self):
            return self.server_args.x
""", "self.failed"),
    "a return from the handler": ("""
    class S:
        def _try(self):
            try:
                return self.load()
            except EXC:
                return None

        def step(self):
            if self._try():
                dist.barrier(group=self.tp_cpu_group)

        def load(self):
            return self.server_args.x
""", "self._try()"),
}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("exc", ["StopIteration", "(OSError, ValueError)", ""],
                         ids=["typed", "tuple", "bare"])
@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_whether_a_rank_raised_decides_what_the_handler_decides(make_pkg, shape, exc):
    src, condition = SHAPES[shape]
    src = src.replace("except EXC:", f"except {exc}:".replace("except :", "except:"))
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = [d for d in report.decisions if d.condition.startswith(condition)]
    assert found, (f"{shape}: no decision `{condition}...`; got "
                   f"{[(d.condition, d.verdict.value) for d in report.decisions]}")
    d = found[0]
    assert d.verdict is Verdict.UNKNOWN and "raises on every rank" in d.why, (
        f"{shape} (`except {exc}`): the barrier runs only where the try body did not raise, "
        f"and whether every rank raises alike is not known: `{d.condition}` must be UNKNOWN "
        f"saying so, not judged by the exception's type alone; got {d.verdict.value}: "
        f"{d.why}")


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_an_import_error_fails_alike_on_every_rank(make_pkg, shape):
    src, condition = SHAPES[shape]
    src = src.replace("except EXC:", "except (ImportError, ModuleNotFoundError):")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition.startswith(condition)][0]
    assert d.verdict is Verdict.UNIFORM, (
        f"{shape}: an import fails or succeeds alike on every rank (one environment), so "
        f"`except ImportError` is configuration and `{d.condition}` UNIFORM; got "
        f"{d.verdict.value}: {d.why}")


def test_an_import_error_beside_another_exception_is_not_configuration(make_pkg):
    src, condition = SHAPES["a flag cleared in the handler"]
    src = src.replace("except EXC:", "except (ImportError, RuntimeError):")
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    d = [d for d in report.decisions if d.condition.startswith(condition)][0]
    assert d.verdict is Verdict.UNKNOWN, (
        "`except (ImportError, RuntimeError)` also catches a RuntimeError, which one rank may "
        "raise alone: only a handler for import errors alone is configuration, so `ok` must "
        f"be UNKNOWN; got {d.verdict.value}: {d.why}")


# a handler whose last statement raises: on the ranks where the body raised, the function is
# left by an exception as it would be without the try (SGLang's ParallelContext.override:
# ``except Exception: self._overrides = saved; raise``), so it decides nothing; a handler
# that falls through or returns still decides (twins). (handler, whether the handler's exit
# is an UNKNOWN decision before the barrier after the try, verdict of `if self.state`)
RAISING = {
    "cleanup, then a bare raise": ("""
            except Exception:
                self.cleanup()
                raise""", False, Verdict.UNIFORM),
    "a field restored, then raise": ("""
            except Exception:
                self.state = self.server_args.default
                raise""", False, Verdict.UNIFORM),
    "raise another exception from it": ("""
            except Exception as exc:
                raise RuntimeError("load failed") from exc""", False, Verdict.UNIFORM),
    "a field set, the handler falls through (twin)": ("""
            except Exception:
                self.state = self.server_args.default""", False, Verdict.UNKNOWN),
    "a field set, the raise only under a condition (twin)": ("""
            except Exception:
                self.state = self.server_args.default
                if self.server_args.strict:
                    raise""", True, Verdict.UNKNOWN),
    "the handler returns (twin)": ("""
            except Exception:
                return""", True, Verdict.UNIFORM),
}


@pytest.mark.parametrize("shape", sorted(RAISING), ids=_ids(RAISING))
def test_a_handler_that_ends_by_raising_decides_nothing(make_pkg, shape):
    handler, exit_decides, field = RAISING[shape]
    src = f"""
    class S:
        def __init__(self):
            self.state = self.server_args.default

        def cleanup(self):
            pass

        def load(self):
            try:
                value = self.server_args.x
{handler}
            if value > 0:
                dist.barrier(group=self.tp_cpu_group)

        def step(self):
            self.load()
            if self.state:
                dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    exits = [d for d in report.decisions if d.condition == "except Exception"]
    assert bool(exits) is exit_decides and all(d.verdict is Verdict.UNKNOWN for d in exits), (
        f"{shape}: "
        + ("the handler lets the rank go on (returns, or raises only sometimes) where the "
           "try body raised, so whether every rank raises decides the barrier after the "
           "try: an UNKNOWN `except Exception` decision is expected"
           if exit_decides else
           "the handler ends by raising (or falls through): where the try body raised the "
           "function is left by the exception as without the try, so the handler decides "
           "nothing; no `except Exception` decision is expected")
        + f"; got {[(d.kind, d.condition, d.verdict.value) for d in report.decisions]}")
    d = next(d for d in report.decisions if d.condition == "self.state")
    assert d.verdict is field, (
        f"{shape}: `if self.state` must be {field.value} "
        + ("(a write in a handler that ends by raising is seen only by code catching the "
           "exception again: configuration here)" if field is Verdict.UNIFORM else
           "(the field is written where the try body raised and the rank goes on)")
        + f"; got {d.verdict.value}: {d.why}")
