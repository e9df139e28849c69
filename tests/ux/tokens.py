"""Assertions over rendered terminal text: a token is whole, or cut with an ellipsis."""

from __future__ import annotations

import re


def split_tokens(text: str, tokens: list[str], window: int = 12) -> list[str]:
    """The pieces of ``tokens`` that ``text`` shows broken: neither the whole token nor a
    prefix of it ending in "…" (a cut that says so), e.g. a token folded across two lines.

    Whole tokens and honest cuts are taken out of each line first (longest first); what is
    left must not contain any ``window`` characters of a token."""
    ordered = sorted(tokens, key=len, reverse=True)
    problems = []
    for line in text.splitlines():
        rest = line
        for token in ordered:
            rest = rest.replace(token, "\0")
        for token in ordered:
            for size in range(len(token) - 1, 0, -1):
                rest = rest.replace(token[:size] + "…", "\0")
        for token in ordered:
            pieces = {token[i:i + window] for i in range(0, max(1, len(token) - window + 1))}
            if any(piece in rest for piece in pieces):
                problems.append(f"{token!r} broken on the line {line.strip()!r}")
    return problems


_BOX = re.compile("[│┃]")
_RULE = set("━─┏┗┡└┌┐┓┘┛┩┯┷┳┻╇╈┼")
_BREAKABLE_AFTER = set(":/.-,_")


def column_lines(text: str, column: int | None = 0) -> list[str]:
    """The stripped text of one table column line by line (``None``: whole lines, for
    blocks); rule lines left out."""
    out = []
    for line in text.splitlines():
        if set(line.strip()) <= _RULE | {" "} and line.strip():
            continue
        if column is not None and _BOX.search(line):
            cells = _BOX.split(line)
            out.append(cells[column + 1].strip() if len(cells) > column + 1 else "")
        else:
            out.append(line.strip())
    return out


def broken_ids(text: str, tokens: list[str], column: int | None = 0) -> list[str]:
    """What is wrong with how ``text`` shows each of ``tokens``: not shown whole (cut, or
    missing), or broken across lines anywhere but after a separator (``:: / . - , _``) or
    before ``[`` (the rule of ``deskcheck.screen``)."""
    lines = column_lines(text, column)
    joined, starts, at = "", set(), 0
    for line in lines:
        starts.add(at)
        joined += line
        at += len(line)
    problems = []
    for token in tokens:
        index = joined.find(token)
        if index < 0:
            problems.append(f"{token!r} is not shown whole")
            continue
        for cut in range(index + 1, index + len(token)):
            if cut in starts and joined[cut - 1] not in _BREAKABLE_AFTER and joined[cut] != "[":
                problems.append(f"{token!r} broken mid-word at {joined[cut - 8:cut]!r}|"
                                f"{joined[cut:cut + 8]!r}")
    return problems


def too_wide(text: str, width: int) -> list[str]:
    return [f"{len(line)} columns: {line!r}" for line in text.splitlines() if len(line) > width]
