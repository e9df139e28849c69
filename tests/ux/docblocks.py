"""Runnable blocks of README.md and docs/*.md: a fenced block whose line before the opening
fence is ``<!-- runnable -->`` (see docs/contributing.md).

``python`` blocks run as a script; ``sh``/``bash``/``console`` blocks run as one bash script,
command by command (a ``console`` block's commands are its ``$ `` lines; the rest is output).
A command must exit 0 unless its trailing comment says ``exit N``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MARK = "<!-- runnable -->"
_FENCE = re.compile(r"^(```+)(\w*)\s*$")
_EXPECT = re.compile(r"#.*\bexit (\d+)\b")


@dataclass
class Block:
    file: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    commands: list[tuple[str, int]] = field(default_factory=list)  # (command, expected rc)

    @property
    def name(self) -> str:
        return f"{self.file.name}:{self.line}"


def runnable_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence:  # a fence closes at the first line of as many backticks or more, alone
            closing = re.compile(rf"^{fence[1]}`*\s*$")
            end = next((i for i in range(index + 1, len(lines)) if closing.match(lines[i])),
                       len(lines))
            if index > 0 and lines[index - 1].strip() == MARK:
                block = Block(path, index + 1, fence[2], "\n".join(lines[index + 1:end]) + "\n")
                if block.language in ("sh", "bash", "console"):
                    block.commands = _commands(block)
                blocks.append(block)
            index = end  # what an unmarked fence shows (a marked example) is text
        index += 1
    return blocks


def _commands(block: Block) -> list[tuple[str, int]]:
    commands = []
    for raw in block.text.splitlines():
        line = raw.strip()
        if block.language == "console":
            if not line.startswith("$ "):
                continue
            line = line[2:]
        if not line or line.startswith("#"):
            continue
        expected = _EXPECT.search(line)
        commands.append((line, int(expected.group(1)) if expected else 0))
    return commands
