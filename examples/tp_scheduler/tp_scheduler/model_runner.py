"""The forward pass a batch goes into: a CPU stand-in of a tensor-parallel model.

A real TP model splits every layer across the ranks of the TP group and ends each layer with
an ``all_reduce`` over that group, so every rank must run the SAME forward: the same number of
layers, on a batch of the same number of tokens. A rank that forms another batch (or none)
enters different collectives and the group hangs; batch formation therefore gates
collectives, which is what the congruence arms and ``deskcheck uniformity`` guard.

The stand-in keeps exactly that shape and nothing else: each layer is a row-parallel matmul
(this rank's slice of the hidden dimension times its slice of the weight) followed by an
``all_reduce(SUM)`` that completes it, then ``tanh``. Weights and embeddings are
deterministic, so the output does not depend on the TP world size: a group of one computes
the same numbers with no collective at all. torch is imported lazily (only a forward needs
it); float64 keeps world sizes comparable to 1e-9.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tp_scheduler.schedule_batch import ScheduleBatch

EMBED_MODULUS = 97
"""Token ids are embedded as ``((token * (j + 1)) % 97) / 97`` in hidden column ``j``."""


@dataclass(frozen=True)
class ForwardOutput:
    """What one forward produced, as every rank of the group must see it."""

    rids: tuple[str, ...]
    num_tokens: int
    """Tokens the forward ran on (the batch's extend tokens): the collectives' shape."""
    layers: int
    checksum: float
    """Sum of the last layer's output: identical on every rank after the all_reduce."""


class TPModelRunner:
    """Runs a batch's forward: ``num_layers`` row-parallel layers, each ending in an all_reduce."""

    def __init__(self, tp_rank: int, tp_size: int, tp_group: Any = None,
                 num_layers: int = 2, hidden_size: int = 8) -> None:
        if num_layers < 1 or hidden_size < 1:
            raise ValueError(f"a model needs num_layers >= 1 and hidden_size >= 1, got "
                             f"{num_layers} and {hidden_size}")
        if tp_size > 1 and tp_group is None:
            raise ValueError(f"tp_size={tp_size} needs the TP process group to all_reduce over")
        self.tp_rank = tp_rank
        self.tp_size = tp_size
        self.tp_group = tp_group
        self.num_layers = num_layers
        self.hidden_size = hidden_size
        self.forward_count = 0

    def forward(self, batch: ScheduleBatch) -> ForwardOutput:
        """The batch's extend tokens through every layer; one all_reduce per layer."""
        tokens = [token for req, prefix_len in zip(batch.reqs, batch.prefix_lens, strict=True)
                  for token in req.origin_input_ids[prefix_len:]]
        hidden = self._embed(tokens)
        for layer in range(self.num_layers):
            hidden = self._layer(layer, hidden)
        self.forward_count += 1
        return ForwardOutput(rids=tuple(req.rid for req in batch.reqs), num_tokens=len(tokens),
                             layers=self.num_layers, checksum=round(float(hidden.sum()), 9))

    def _embed(self, tokens: list[int]) -> Any:
        import torch  # lazy: the scheduler's decision modules import without torch

        ids = torch.tensor(tokens, dtype=torch.float64).reshape(-1, 1)
        columns = torch.arange(1, self.hidden_size + 1, dtype=torch.float64).reshape(1, -1)
        return torch.remainder(ids * columns, EMBED_MODULUS) / EMBED_MODULUS

    def _weight(self, layer: int) -> Any:
        import torch

        generator = torch.Generator().manual_seed(1000 + layer)
        return torch.randn(self.hidden_size, self.hidden_size, generator=generator,
                           dtype=torch.float64) / self.hidden_size

    def _layer(self, layer: int, hidden: Any) -> Any:
        """Row-parallel: this rank's hidden slice times its weight rows, summed over ranks."""
        import torch

        rows = torch.tensor_split(torch.arange(self.hidden_size), self.tp_size)[self.tp_rank]
        partial = hidden[:, rows] @ self._weight(layer)[rows, :]
        return torch.tanh(self._all_reduce_sum(partial))

    def _all_reduce_sum(self, partial: Any) -> Any:
        """Completes a layer: SUM of every rank's partial product over the TP group."""
        if self.tp_size > 1:  # a group of one holds the whole product already
            import torch.distributed as dist

            dist.all_reduce(partial, op=dist.ReduceOp.SUM, group=self.tp_group)
        return partial
