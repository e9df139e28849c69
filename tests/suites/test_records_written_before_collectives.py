"""docs/suites.md, what is recorded: "Records are written before every collective, so a hung
rank leaves what it recorded." Checked through the public surface (``record_decisions``,
``split_in``): a stand-in collective copies the rank's folder the moment it is entered (what a
rank hung in it would leave for the parent), and the split is read from that copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

from deskcheck.suites import record_decisions, split_in


def admit_then_reduce(free: int, collective: str) -> None:
    need = 2
    if free >= need:                                  # the decision rank 0 and 1 take apart
        getattr(dist, collective)(torch.tensor([free]))
    if free > 0:                                      # a second decision, then a second one
        getattr(dist, collective)(torch.tensor([free]))


def _hung_copies(monkeypatch: pytest.MonkeyPatch, collective: str, folder: Path,
                 copies: list[Path]) -> None:
    """``collective`` copies ``folder`` on entry (what a rank hung there leaves) and returns."""
    def entered(*_args: object, **_kwargs: object) -> None:
        copy = folder.parent / f"hung{len(copies)}"
        shutil.copytree(folder, copy)
        copies.append(copy)

    monkeypatch.setattr(dist, collective, entered)


@pytest.mark.parametrize("collective", ["all_reduce", "broadcast", "all_gather_object"])
def test_a_rank_hung_in_a_collective_has_written_the_decisions_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collective: str) -> None:
    folder = tmp_path / "ranks"
    folder.mkdir()
    copies: list[Path] = []
    _hung_copies(monkeypatch, collective, folder, copies)
    with record_decisions(folder, 0, include=[__file__]):
        admit_then_reduce(3, collective)
    assert len(copies) == 2, f"rank 0 must have entered {collective} twice, not {len(copies)}"
    with record_decisions(copies[0], 1, include=[__file__]):
        admit_then_reduce(1, collective)             # rank 1 never enters the collective
    split = split_in(copies[0], 2)
    text = split.render() if split else "no split"
    assert split is not None and "if free >= need" in text and "rank 0: true" in text, (
        f"a rank hung in its first {collective} must leave on disk the decision taken before it "
        "(records are written before every collective), so the split names 'if free >= need' "
        f"with rank 0 true; from what rank 0 had written by then the parent reads: {text}")
    rank0 = (copies[1] / "rank0.jsonl").read_text()
    first = (copies[0] / "rank0.jsonl").read_text()
    assert len(rank0) > len(first), (
        f"the decision taken between two {collective} calls must be written before the second "
        "one too (before EVERY collective, not only the first): the rank's file had "
        f"{len(first)} characters at the first and {len(rank0)} at the second")
