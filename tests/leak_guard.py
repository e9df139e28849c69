"""An autouse guard: a test that leaves ``os.environ``, the working folder or ``sys.path``
changed fails.

No test may depend on another test's side effects (docs/selfproof.md, "No test leaks into
the next"). The guard snapshots the environment and the cwd before each test and compares
them after every fixture of the test has been torn down (it is set up first, so it is torn
down last: ``monkeypatch``'s undo has already run). A leak is restored, then reported as an
error of the test that made it, naming every variable added, removed or changed and the cwd
before and after, so the next test starts from what the session had.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping

import pytest

# pytest's own bookkeeping: it rewrites this variable at every phase of every test.
PYTEST_OWN = frozenset({"PYTEST_CURRENT_TEST"})


def _shown(value: str, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def environment_changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """One line per variable added, removed or changed (pytest's own left out)."""
    lines = []
    for name in sorted((after.keys() | before.keys()) - PYTEST_OWN):
        if name not in before:
            lines.append(f"added {name}={_shown(after[name])}")
        elif name not in after:
            lines.append(f"removed {name} (was {_shown(before[name])})")
        elif before[name] != after[name]:
            lines.append(f"changed {name}: {_shown(before[name])} -> {_shown(after[name])}")
    return lines


def _restore(before: Mapping[str, str]) -> None:
    for name in set(os.environ) - set(before) - PYTEST_OWN:
        del os.environ[name]
    for name, value in before.items():
        if name not in PYTEST_OWN and os.environ.get(name) != value:
            os.environ[name] = value


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except FileNotFoundError:  # the test removed the folder it stood in
        return None


@pytest.fixture(autouse=True)
def leaves_environment_and_cwd_as_found(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test (at teardown) that leaves ``os.environ`` or the cwd changed."""
    env_before = dict(os.environ)
    cwd_before = _cwd()
    path_before = list(sys.path)
    yield
    problems = environment_changes(env_before, os.environ)
    if problems:
        _restore(env_before)
    cwd_after = _cwd()
    if cwd_after != cwd_before:
        problems.append(f"the cwd was {cwd_before}, it is now "
                        f"{cwd_after or 'a folder that no longer exists'}")
        if cwd_before is not None:
            os.chdir(cwd_before)
    added = [p for p in sys.path if p not in path_before]
    removed = [p for p in path_before if p not in sys.path]
    if added or removed:  # an entry moved or repeated (a command run in-process puts its
        # project root first) changes no folder that can be imported from: restored, not told
        problems.append("sys.path was changed"
                        + (f": added {added}" if added else "")
                        + (f", removed {removed}" if removed else ""))
    sys.path[:] = path_before
    if problems:
        pytest.fail(f"{request.node.nodeid} left the process changed (use monkeypatch.setenv/"
                    "delenv/chdir/syspath_prepend, or restore what the code under test changes):\n  "
                    + "\n  ".join(problems), pytrace=False)
