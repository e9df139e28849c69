"""The usefulness ranking of docs/auto.md (*Caps*), read from the doc itself: the bug-class
families first (LOCAL > REDOP > ... > DROPC), then mutmut's (ROR > LCR > ... > STR). Both caps
keep mutants in this order, so a swapped pair changes which mutant a PR gets."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from deskcheck.mutants.auto.operators import rank_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "auto.md"


def documented_order() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    ranking = text.split("Usefulness ranking", 1)[1].split("Decision code", 1)[0]
    ranking = re.sub(r"`[^`]*`", "", ranking)  # the examples: `<`→`<=`, `True`↔`False`, ...
    return re.findall(r"\b[A-Z][A-Z0-9]+\b", ranking)


def test_the_families_rank_in_the_documented_order():
    order = documented_order()
    assert order[:2] == ["LOCAL", "REDOP"] and order[-1] == "STR" and len(order) == 24, (
        f"the ranking of docs/auto.md was not read whole: {order}")
    wrong = [(a, b) for a, b in pairwise(order) if not rank_of(a) < rank_of(b)]
    assert not wrong, (
        "docs/auto.md ranks each family above the next (LOCAL > REDOP > ... > ROR > LCR > ... "
        f"> STR); these pairs are not ranked so (family, next, ranks): "
        f"{[(a, b, rank_of(a), rank_of(b)) for a, b in wrong]}")


def test_every_bug_class_family_ranks_before_every_mutmut_family():
    order = documented_order()
    bug_class, mutmut = order[:7], order[7:]
    worst_bug = max(rank_of(f) for f in bug_class)
    best_mutmut = min(rank_of(f) for f in mutmut)
    assert worst_bug < best_mutmut, (
        "docs/auto.md: the bug-class families rank before every mutmut family; the lowest "
        f"ranked of {bug_class} has rank {worst_bug}, the best of mutmut's {best_mutmut}")
