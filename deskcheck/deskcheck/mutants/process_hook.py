"""The cross-process side of injection: environment variables and the import hook.

A mutant run exports ``DESKCHECK_MUTANT`` (the JSON payload of ``MutatedFunction``) and puts
``deskcheck/mutants/_bootstrap`` on ``PYTHONPATH``. Every Python started below it (a
multiprocessing ``spawn`` child, a ``subprocess`` python, a torchrun worker) imports that
folder's ``sitecustomize``, which calls ``activate()``: an import hook that swaps the target's
code right after its module executes, plus the stack-dump and die-with-parent wiring.
Forked children need none of this: they inherit the patched code object.
"""

from __future__ import annotations

import faulthandler
import importlib.abc
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from deskcheck.rank_hooks import note_rank_group, rank_group_timeout  # noqa: F401 - public here

MUTANT_ENV = "DESKCHECK_MUTANT"
STACKS_ENV = "DESKCHECK_STACKS_DIR"
BOOTSTRAP_DIR = str(Path(__file__).with_name("_bootstrap"))
_registered: dict[str, Any] = {}


def child_environment(payload: dict[str, Any] | None, stacks_dir: str | None,
                      token: str) -> dict[str, str]:
    """Environment entries that make every descendant python apply the mutant."""
    from deskcheck.mutants.procs import RUN_TOKEN_ENV

    env = {RUN_TOKEN_ENV: token, "PYTHONDONTWRITEBYTECODE": "1"}
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if BOOTSTRAP_DIR not in paths:
        paths.insert(0, BOOTSTRAP_DIR)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    if payload is not None:  # nested sweeps: an outer mutant stays applied below this one
        outer = _payloads(os.environ.get(MUTANT_ENV, ""))
        env[MUTANT_ENV] = json.dumps([*outer, payload] if outer else payload)
    if stacks_dir:
        env[STACKS_ENV] = stacks_dir
    return env


def arm_stack_dumps(stacks_dir: str) -> None:
    """On SIGUSR1 write every thread's stack to ``<stacks_dir>/<pid>.txt`` (C level, so it
    works while the main thread is blocked in a collective); re-armed in forked children."""
    path = Path(stacks_dir) / f"{os.getpid()}.txt"
    handle = open(path, "w")  # noqa: SIM115 - must stay open for faulthandler
    old = _registered.pop("file", None)
    _registered["file"] = handle
    faulthandler.register(signal.SIGUSR1, file=handle, all_threads=True, chain=False)
    if old is not None:
        old.close()
    if not _registered.get("at_fork"):
        os.register_at_fork(after_in_child=_after_fork)
        _registered["at_fork"] = True
    label = os.environ.get("RANK")
    if label is not None and not (Path(stacks_dir) / f"{os.getpid()}.label").exists():
        label_process(f"rank {label}")


def _after_fork() -> None:
    stacks_dir = os.environ.get(STACKS_ENV)
    if stacks_dir:
        from deskcheck.mutants.procs import die_with_parent

        die_with_parent()
        arm_stack_dumps(stacks_dir)


def label_process(label: str) -> None:
    """Name this process (e.g. ``rank 1``) in the TIMEOUT report of a hung mutant.

    Launchers call this in each rank; a no-op outside a sweep."""
    stacks_dir = os.environ.get(STACKS_ENV)
    if stacks_dir:
        try:
            (Path(stacks_dir) / f"{os.getpid()}.label").write_text(label)
        except OSError:
            pass


def label_torch_ranks() -> None:
    """Label ranks automatically: wrap ``torch.distributed.init_process_group`` (if imported)
    so each rank that joins a group writes ``rank R/WORLD``."""
    dist = sys.modules.get("torch.distributed")
    if dist is None or getattr(dist.init_process_group, "_deskcheck_labels", False):
        return
    original = dist.init_process_group

    def init_process_group(*args: Any, **kwargs: Any):
        result = original(*args, **kwargs)
        try:
            label_process(f"rank {dist.get_rank()}/{dist.get_world_size()}")
        except Exception:  # labelling must never break a test
            pass
        return result

    init_process_group._deskcheck_labels = True  # type: ignore[attr-defined]
    init_process_group.__wrapped__ = original  # type: ignore[attr-defined]
    dist.init_process_group = init_process_group
    c10d = sys.modules.get("torch.distributed.distributed_c10d")
    if c10d is not None:
        c10d.init_process_group = init_process_group


class _ApplyAfterExec(importlib.abc.Loader):
    def __init__(self, loader: Any, payloads: list[dict[str, Any]]):
        self._loader = loader
        self._payloads = payloads

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        for payload in self._payloads:
            _apply(payload)
        module.__deskcheck_mutated__ = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class MutantImportHook(importlib.abc.MetaPathFinder):
    """Applies mutants when their target modules are imported.

    It must stay first on ``sys.meta_path``: a finder put before it (pytest's assertion
    rewriter claims the modules of every ``pytest11`` plugin's distribution and those a
    conftest registers) would load the target unmutated. :func:`keep_first` restores that.
    """

    def __init__(self, payloads: list[dict[str, Any]]):
        self.by_module: dict[str, list[dict[str, Any]]] = {}
        for payload in payloads:
            self.by_module.setdefault(payload["target"].split(":", 1)[0], []).append(payload)

    def find_spec(self, fullname, path, target=None):
        payloads = self.by_module.get(fullname)
        if not payloads:
            return None
        for finder in sys.meta_path:
            if isinstance(finder, MutantImportHook) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ApplyAfterExec(spec.loader, payloads)
                return spec
        return None


def _apply(payload: dict[str, Any]) -> None:
    from deskcheck.mutants.injection import inject
    from deskcheck.mutants.mutated import MutatedFunction

    inject(MutatedFunction.from_payload(payload))


def activate() -> None:
    """Called at interpreter start (``_bootstrap/sitecustomize``) when a variable is set."""
    stacks_dir = os.environ.get(STACKS_ENV)
    if stacks_dir:
        from deskcheck.mutants.procs import die_with_parent

        die_with_parent()
        try:
            arm_stack_dumps(stacks_dir)
        except OSError:
            pass
        from deskcheck.mutants.crashes import arm as arm_crash_records

        arm_crash_records()
    pending = []
    for payload in _payloads(os.environ.get(MUTANT_ENV, "")):
        if payload["target"].split(":", 1)[0] in sys.modules:
            _apply(payload)
        else:
            pending.append(payload)
    if pending:
        sys.meta_path.insert(0, MutantImportHook(pending))


def keep_first() -> None:
    """Move deskcheck's mutant import hooks back to the front of ``sys.meta_path`` and apply
    their mutants to target modules that another finder loaded meanwhile (unmutated).

    Called by deskcheck's pytest plugin, which pytest imports after it has put its assertion
    rewriter first: without it a target pytest rewrites (deskcheck's own modules under
    ``deskcheck mutants run``, a module a conftest registers) would run unmutated."""
    hooks = [finder for finder in sys.meta_path if isinstance(finder, MutantImportHook)]
    if not hooks:
        return
    for hook in hooks:
        sys.meta_path.remove(hook)
    sys.meta_path[:0] = hooks
    for hook in hooks:
        for module_name, payloads in hook.by_module.items():
            module = sys.modules.get(module_name)
            if module is not None and not getattr(module, "__deskcheck_mutated__", False):
                for payload in payloads:
                    _apply(payload)


def _payloads(raw: str) -> list[dict[str, Any]]:
    """``DESKCHECK_MUTANT``: one payload, a list of them, or ``@path`` to a file holding either."""
    if not raw:
        return []
    data = json.loads(Path(raw[1:]).read_text() if raw.startswith("@") else raw)
    return data if isinstance(data, list) else [data]
