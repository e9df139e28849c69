"""One renderer per output format; each takes a ``ReportData`` and returns text."""

from __future__ import annotations

from collections.abc import Callable

from deskcheck.report.renderers import html_report, json_report, junit, markdown, stryker, terminal
from deskcheck.report.reportdata import ReportData

RENDERERS: dict[str, Callable[[ReportData], str]] = {
    "terminal": terminal.render,
    "json": json_report.render,
    "junit": junit.render,
    "markdown": markdown.render,
    "stryker": stryker.render,
    "html": html_report.render,
}
FORMATS: tuple[str, ...] = tuple(RENDERERS)


def render(data: ReportData, fmt: str) -> str:
    """Render ``data`` in format ``fmt`` (one of ``FORMATS``)."""
    return RENDERERS[fmt](data)


__all__ = ["FORMATS", "RENDERERS", "render"]
