"""Shared by the standins tests: run discovery on a project folder, pick a stand-in."""

from __future__ import annotations

from pathlib import Path

from deskcheck.config import load_config
from deskcheck.drift_guard.standins.discover import Discovery, discover
from deskcheck.drift_guard.standins.judge import StandInReport


def discover_in(project: Path, *paths: str, **kwargs) -> Discovery:
    config = load_config(project)
    return discover([project / p for p in (paths or ("tests",))], config, **kwargs)


def standin(found: Discovery, built_at: str) -> StandInReport:
    by_site = {r.built_at: r for r in found.reports}
    assert built_at in by_site, (
        f"no stand-in reported as built at {built_at}; discovery reported "
        f"{sorted(by_site)} and problems {[p.where for p in found.problems]}")
    return by_site[built_at]


def names(report: StandInReport, category: str) -> set[str]:
    return {r.name for r in report.records(category)}


# the head of a test file over ``qcore.queue.Queue``: the imports and a plain fake request
QUEUE_TEST_HEAD = ("from types import SimpleNamespace\nfrom unittest.mock import MagicMock\n"
                   "from qcore.queue import Queue\n\n\nclass FakeReq:\n"
                   "    def __init__(self, rid):\n        self.rid = rid\n\n")


def judge_one(tmp_path: Path, production: str, test_source: str, built: str,
              package: str = "qcore", module: str = "queue") -> StandInReport:
    """Write a project (``package/module.py`` holding ``production``, ``tests/test_shape.py``
    holding ``test_source``) and give the verdict on the stand-in built on the first line of
    the test file that contains ``built``."""
    root = tmp_path / "proj"
    (root / package).mkdir(parents=True)
    (root / "tests").mkdir()
    (root / package / "__init__.py").write_text("")
    (root / package / f"{module}.py").write_text(production)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_shape.py").write_text(test_source)
    line = next(i for i, text in enumerate(test_source.splitlines(), 1) if built in text)
    return standin(discover_in(root), f"tests/test_shape.py:{line}")

