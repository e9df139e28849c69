"""The prefill batch a pass forms, and the rank-comparable summary of it."""

from __future__ import annotations

from dataclasses import dataclass

from tp_scheduler.req import Req


@dataclass(frozen=True)
class BatchSummary:
    """Everything that must be identical across TP ranks for the forward to line up."""

    rids: tuple[str, ...]
    prefix_lens: tuple[int, ...]
    extend_num_tokens: int

    @property
    def new_seq(self) -> int:
        return len(self.rids)

    @property
    def cached_tokens(self) -> int:
        return sum(self.prefix_lens)


@dataclass
class ScheduleBatch:
    """Requests admitted this pass with the prefix each reuses, and the rule that decided."""

    reqs: list[Req]
    prefix_lens: list[int]
    rule: str

    @property
    def extend_num_tokens(self) -> int:
        return sum(r.prompt_len - p for r, p in zip(self.reqs, self.prefix_lens, strict=True))

    def summary(self) -> BatchSummary:
        return BatchSummary(
            rids=tuple(r.rid for r in self.reqs),
            prefix_lens=tuple(self.prefix_lens),
            extend_num_tokens=self.extend_num_tokens,
        )
