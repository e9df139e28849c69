"""A generation request as the scheduler sees it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Req:
    """One request: an id and its prompt tokens, plus per-rank scheduling state.

    ``rid`` and ``origin_input_ids`` are replicated across TP ranks; every other field is
    rank-local and may differ between ranks for the same request.
    """

    rid: str
    origin_input_ids: tuple[int, ...]
    max_new_tokens: int = 0
    """Decode room the token budget reserves for this request once admitted."""
    num_matched_prefix_tokens: int = 0
    """This rank's radix-cache match for the prompt (the LPM sort key; rank-local)."""
    prefix_indices: list[int] = field(default_factory=list)
    """KV indices of the reused prefix once admitted."""
    last_node: Any = None
    """Radix node locked while the request holds its prefix."""
    req_pool_idx: int | None = None
    extend_input_len: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.rid, str) or not self.rid:
            raise ValueError(f"Req.rid must be a non-empty str, got {self.rid!r}")
        self.origin_input_ids = tuple(int(t) for t in self.origin_input_ids)
        if not self.origin_input_ids:
            raise ValueError(f"Req {self.rid!r} has an empty prompt")
        if self.max_new_tokens < 0:
            raise ValueError(f"Req {self.rid!r} has max_new_tokens {self.max_new_tokens} < 0")

    @property
    def prompt_len(self) -> int:
        return len(self.origin_input_ids)

    def __repr__(self) -> str:
        return f"Req(rid={self.rid!r}, prompt_len={self.prompt_len})"
