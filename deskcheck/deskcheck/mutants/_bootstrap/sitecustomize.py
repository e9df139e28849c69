"""deskcheck's process-start hook (this folder is put on PYTHONPATH by a mutant run).

It activates the mutant import hook when ``DESKCHECK_MUTANT``/``DESKCHECK_STACKS_DIR`` is
set, then runs the ``sitecustomize`` this file shadows, if there is one.
"""

import os
import sys

if os.environ.get("DESKCHECK_MUTANT") or os.environ.get("DESKCHECK_STACKS_DIR"):
    try:
        from deskcheck.mutants.process_hook import activate

        activate()
    except Exception as _exc:  # never stop an interpreter from starting
        print(f"deskcheck: mutant hook failed to activate: {_exc!r}", file=sys.stderr)


def _chain() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_chain()
