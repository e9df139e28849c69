"""Make one side's production code win in a process, and record what actually ran.

Stdlib only: in a gate run this file is placed, as ``_deskcheck_gate_redirect``, in a folder on
``PYTHONPATH`` next to a ``sitecustomize`` that activates it at interpreter start-up, so the
pytest child, its xdist workers and every Python subprocess the tests start (``python -c``,
spawned rank processes) resolve production imports to the same side. The plan file named by
``DESKCHECK_GATE_PLAN`` says which side, which top-level names are production and where each
lives on this side (``None``: the side does not have it).

Each process writes ``modules-<pid>.json`` into the plan's ``out_dir`` at exit (and the probe
plugin again at the end of the pytest session): every imported production module with its
``__file__``, and the ones outside the side's tree as violations.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path
from typing import Any

PLAN_ENV = "DESKCHECK_GATE_PLAN"
PROBE_MODULE_NAME = "_deskcheck_gate_probe"  # the name the gate loads the probe by


def _under(path: str, root: str) -> bool:
    try:
        Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True


class SideFinder:
    """First meta-path finder: production top-level names resolve under the side's roots."""

    def __init__(self, side: str, modules: dict[str, str | None]):
        self.side = side
        self.modules = modules

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if "." in fullname or fullname not in self.modules:
            return None
        root = self.modules[fullname]
        spec = PathFinder.find_spec(fullname, [root]) if root is not None else None
        if spec is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r} in the {self.side} commit "
                "(deskcheck gate: production code comes from that commit only)", name=fullname)
        return spec

    def invalidate_caches(self) -> None:
        return None


class Redirect:
    """The active redirect of this process."""

    def __init__(self, plan: dict[str, Any]):
        self.plan = plan
        self.side_root = str(Path(plan["side_root"]).resolve())
        self.modules: dict[str, str | None] = plan["modules"]
        self.purged: list[str] = []
        self.finder = SideFinder(plan["side"], self.modules)
        sys.meta_path.insert(0, self.finder)
        self.purge()

    def ensure_first(self) -> None:
        """Put the finder back in front: pytest's assertion-rewriting hook (installed after
        interpreter start) would otherwise resolve plugin packages from ``sys.path`` itself."""
        if sys.meta_path[:1] != [self.finder]:
            if self.finder in sys.meta_path:
                sys.meta_path.remove(self.finder)
            sys.meta_path.insert(0, self.finder)

    def purge(self) -> None:
        """Forget production modules imported from anywhere but this side's tree."""
        for name in list(sys.modules):
            if name.partition(".")[0] not in self.modules:
                continue
            module_file = getattr(sys.modules[name], "__file__", None)
            if not module_file or not _under(module_file, self.side_root):
                self.purged.append(name)
                del sys.modules[name]

    def audit(self) -> dict[str, Any]:
        loaded: dict[str, str] = {}
        violations: dict[str, str] = {}
        for name, module in list(sys.modules.items()):
            if module is None or name.partition(".")[0] not in self.modules:
                continue
            origin = getattr(module, "__file__", None)
            if origin is None:
                locations = list(getattr(module, "__path__", []) or [])
                origin = locations[0] if locations else "<no file>"
            loaded[name] = origin
            if not _under(origin, self.side_root):
                violations[name] = origin
        return {"process": os.environ.get("PYTEST_XDIST_WORKER") or f"pid {os.getpid()}",
                "argv": [str(a) for a in sys.argv[:3]],
                "side": self.plan["side"], "side_root": self.side_root,
                "finder_active": self.finder in sys.meta_path,
                "purged": self.purged, "loaded": loaded, "violations": violations}

    def write_audit(self) -> None:
        out = Path(self.plan["out_dir"]) / f"modules-{os.getpid()}.json"
        try:
            out.write_text(json.dumps(self.audit(), indent=1, sort_keys=True), encoding="utf-8")
        except OSError:
            pass  # the gate is gone (a subprocess that outlived it): nothing to report to


_ACTIVE: Redirect | None = None


def activate_from_env() -> Redirect | None:
    """Install the redirect named by ``DESKCHECK_GATE_PLAN`` once per process."""
    global _ACTIVE
    if _ACTIVE is not None:
        return _ACTIVE
    plan_path = os.environ.get(PLAN_ENV)
    if not plan_path:
        return None
    try:
        plan = json.loads(Path(plan_path).read_text(encoding="utf-8"))
    except OSError:
        return None  # a subprocess outliving the gate run: run as it would anyway
    _ACTIVE = Redirect(plan)
    atexit.register(_ACTIVE.write_audit)
    return _ACTIVE


SITECUSTOMIZE = '''\
"""deskcheck gate: redirect production imports in every Python process of a gate run, then
run the sitecustomize this one shadows, if any."""
import os as _os

if _os.environ.get("DESKCHECK_GATE_PLAN"):
    import _deskcheck_gate_redirect

    _deskcheck_gate_redirect.activate_from_env()


def _chain():
    import importlib.util
    import sys

    here = _os.path.dirname(_os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or _os.path.abspath(entry) == here:
            continue
        candidate = _os.path.join(entry, "sitecustomize.py")
        if _os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_shadowed_sitecustomize", candidate)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


_chain()
'''
