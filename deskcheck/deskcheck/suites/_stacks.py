"""Find the collective a rank was in, from a traceback object or a faulthandler dump."""

from __future__ import annotations

import os
import re
from types import TracebackType

_DIST_MARK = os.sep + os.path.join("torch", "distributed") + os.sep
_C10D_FILE = "distributed_c10d.py"
_WRAPPER_NAMES = frozenset({"wrapper", "inner", "_fn", "decorate_context"})
_FAULTHANDLER_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)')


def _pick(frames: list[tuple[str, int, str]]) -> tuple[str | None, str | None]:
    """frames run outermost first; returns (collective name, user call site)."""
    for index, (filename, _line, _func) in enumerate(frames):
        if _DIST_MARK not in filename:
            continue
        inside = frames[index:]
        named = [f for f in inside if f[0].endswith(_C10D_FILE) and f[2] not in _WRAPPER_NAMES]
        named = named or [f for f in inside if f[2] not in _WRAPPER_NAMES] or inside
        collective = named[0][2]
        call_site = None
        if index > 0:
            filename, line, func = frames[index - 1]
            call_site = f"{filename}:{line} in {func}"
        return collective, call_site
    return None, None


def collective_in_traceback(tb: TracebackType | None) -> tuple[str | None, str | None]:
    """(collective, call site) when the exception was raised inside torch.distributed."""
    frames: list[tuple[str, int, str]] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return _pick(frames)


def collective_in_stack(dump: str) -> tuple[str | None, str | None]:
    """(collective, call site) from a faulthandler dump of the rank's main thread.

    faulthandler prints the most recent call first, one block per thread; the block marked
    ``Current thread`` or the first ``Thread`` block is the one that ran the task.
    """
    blocks = re.split(r"\n(?=(?:Current thread|Thread) 0x)", dump.strip())
    for block in blocks:
        frames = [(m["file"], int(m["line"]), m["func"]) for m in _FAULTHANDLER_FRAME.finditer(block)]
        frames.reverse()  # outermost first
        collective, call_site = _pick(frames)
        if collective:
            return collective, call_site
    return None, None


def innermost_frame(dump: str) -> str | None:
    """``file:line in func`` of the innermost frame of the dumped current thread."""
    blocks = re.split(r"\n(?=(?:Current thread|Thread) 0x)", dump.strip())
    current = [b for b in blocks if b.lstrip().startswith("Current thread")] or blocks
    match = _FAULTHANDLER_FRAME.search(current[0])
    return f"{match['file']}:{match['line']} in {match['func']}" if match else None


def trim_rank_stack(dump: str) -> str:
    """Drop what a forked rank inherited below its own loop, and the parent-watch thread."""
    kept: list[str] = []
    for block in re.split(r"\n(?=(?:Current thread|Thread) 0x)", dump.strip()):
        if "in watch" in block and "_rank_main.py" in block:
            continue
        lines = []
        for line in block.splitlines():
            lines.append(line)
            if "_rank_main.py" in line and line.rstrip().endswith(" in serve"):
                break
        kept.append("\n".join(lines))
    return "\n\n".join(kept)
