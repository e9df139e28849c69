"""Assertions over rendered terminal text: a token is whole, or cut with an ellipsis."""

from __future__ import annotations


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
