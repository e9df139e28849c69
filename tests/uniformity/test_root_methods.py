"""Which methods an audit starts from (docs/uniformity.md, Stable API): ``roots_methods``
when given, else the config's ``roots``, else ``["event_loop*"]``."""

from __future__ import annotations

import pytest

from deskcheck.errors import UnknownTargetError
from deskcheck.uniformity import audit

SRC = {"r.py": """
    class S:
        def event_loop_normal(self):
            if self.a:
                dist.barrier(group=self.tp_group)
        def other_loop(self):
            if self.b:
                dist.barrier(group=self.tp_group)
        def step(self):
            if self.c:
                dist.barrier(group=self.tp_group)
"""}


def _roots(make_pkg, pyproject: str = "", **kwargs) -> list[str]:
    try:
        return audit("pkg.r:S", root=make_pkg(SRC, pyproject), **kwargs).roots
    except UnknownTargetError as exc:
        pytest.fail(f"no root method was found (config {pyproject!r}, {kwargs}); the default "
                    f"roots are event_loop* (docs/uniformity.md): {exc}")


def test_without_config_the_roots_are_the_event_loops(make_pkg):
    roots = _roots(make_pkg)
    assert roots == ["S.event_loop_normal"], (
        "with no [tool.deskcheck.uniformity] roots the audit starts from the methods matching "
        f"event_loop*; it started from {roots}")


def test_the_config_roots_replace_the_default(make_pkg):
    roots = _roots(make_pkg, '[tool.deskcheck.uniformity]\nroots = ["other*"]\n')
    assert roots == ["S.other_loop"], (
        f"roots = [\"other*\"] in the config must replace event_loop*; the audit started from {roots}")


def test_roots_methods_replace_the_config_roots(make_pkg):
    roots = _roots(make_pkg, '[tool.deskcheck.uniformity]\nroots = ["other*"]\n',
                   roots_methods=["step"])
    assert roots == ["S.step"], (
        "audit(..., roots_methods=[\"step\"]) must start from step whatever the config says; "
        f"it started from {roots}")
