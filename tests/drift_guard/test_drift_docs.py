"""The examples of docs/drift.md's "Guard the stand-ins you already have" section run as
written (against the installed reference target)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "drift.md"


def _section_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Guard the stand-ins you already have")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_section_comes_first_and_the_harness_api_after_it():
    text = DOC.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[0] == "Guard the stand-ins you already have", \
        f"the section for existing stand-ins must come first, headings are {headings}"
    assert headings.index("Harnesses") > 0, (
        f"the Harnesses section must follow the first section; headings are {headings}"
    )


@pytest.mark.parametrize("index", range(len(_section_blocks())))
def test_every_python_example_runs(index, capsys):
    code = _section_blocks()[index]
    exec(compile(code, f"{DOC}:example{index}", "exec"), {"__name__": "docs_example"})
