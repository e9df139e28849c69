"""The truth side of bench/standins_deletions.py: run test ids with pytest, in-process, many
times in one interpreter (the production code is imported once: SGLang's scheduler takes
~8 s to import), and say which tests failed with an AttributeError naming which names.

Standalone: needs only pytest (and whatever the tests import). Reads JSON jobs from stdin, one
per line: {"id": ..., "rootdir": ..., "args": [node ids...]}; writes one JSON line per job:
{"id": ..., "failed": {node id: [attribute names]}, "outcomes": {node id: outcome},
"wall_s": ...}. After each job every module imported from its folder is forgotten, so an
edited copy (same relative paths, same module names) never sees a previous copy's module.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

import pytest

# 'X' object has no attribute 'name' / Mock object has no attribute 'name' / ... 'name'
_ATTR = re.compile(r"AttributeError: .*?has no attribute '([A-Za-z_][A-Za-z0-9_]*)'")
_TYPE = re.compile(r"TypeError: .*?(?:unexpected keyword argument|missing \d+ required)"
                   r".*?'([A-Za-z_][A-Za-z0-9_]*)'")


class Collector:
    def __init__(self) -> None:
        self.failed: dict[str, list[str]] = {}
        self.types: dict[str, list[str]] = {}
        self.outcomes: dict[str, str] = {}
        self.origins: dict[str, dict[str, list[str]]] = {}  # node id -> name -> raised in

    def pytest_runtest_logreport(self, report) -> None:  # noqa: ANN001 - pytest's hook
        if report.failed:
            # the traceback (chained causes included) and the captured output and log, where
            # an AttributeError that production swallowed and logged shows
            text = (report.longreprtext or "") + "\n".join(c for _n, c in report.sections)
            names = sorted(set(_ATTR.findall(text)))
            self.failed.setdefault(report.nodeid, [])
            self.failed[report.nodeid] = sorted(set(self.failed[report.nodeid]) | set(names))
            origin = self.origins.setdefault(report.nodeid, {})
            for name, where in _origins(text):
                origin[name] = sorted(set(origin.get(name, [])) | {where})
            self.types[report.nodeid] = sorted(set(_TYPE.findall(text)))
            self.outcomes[report.nodeid] = "failed"
        elif report.when == "call":
            self.outcomes.setdefault(report.nodeid, report.outcome)

    def pytest_collectreport(self, report) -> None:  # noqa: ANN001 - pytest's hook
        if report.failed:
            self.outcomes[report.nodeid or "<collection>"] = "collection error"


_RAISED_AT = re.compile(r"^(\S[^\n]*?):(\d+): (?:\w+\.)*AttributeError$")


def _origins(text: str) -> list[tuple[str, str]]:
    """(name, path) for each AttributeError in a failure's text: the file it was raised in,
    from the traceback entry's ``path:line: AttributeError`` that follows the
    ``E   AttributeError: ...`` line ("" when there is none: an error production swallowed
    and logged)."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        match = _ATTR.search(line)
        if match is None:
            continue
        where = ""
        for after in lines[i + 1:i + 40]:
            raised = _RAISED_AT.match(after.strip())
            if raised:
                where = raised.group(1)
                break
            if _ATTR.search(after):
                break
        found.append((match.group(1), where))
    return found


def _forget(rootdir: str) -> None:
    """Drop every module imported from ``rootdir`` (test files, conftests, helpers): the next
    job's copy has the same relative paths, hence the same module names."""
    root = os.path.realpath(rootdir) + os.sep
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file and os.path.realpath(file).startswith(root):
            del sys.modules[name]


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        collector = Collector()
        started = time.perf_counter()
        os.chdir(job["rootdir"])
        with open(os.devnull, "w") as sink:
            saved = sys.stdout
            sys.stdout = sink
            try:
                pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                             "--import-mode=importlib", "--rootdir", job["rootdir"],
                             "-o", "addopts=", *job.get("extra", []), *job["args"]],
                            plugins=[collector])
            finally:
                sys.stdout = saved
        _forget(job["rootdir"])
        print(json.dumps({"id": job["id"], "failed": collector.failed,
                          "origins": collector.origins,
                          "type_errors": collector.types, "outcomes": collector.outcomes,
                          "wall_s": round(time.perf_counter() - started, 3)}), flush=True)


if __name__ == "__main__":
    main()
