"""mutmut's mutation operators, used as a library, ranked by how useful their mutants are.

mutmut 3.8.1 exposes its operators as plain functions over libcst nodes
(``mutmut.mutation.mutators.mutation_operators``: ``(node type, function)`` pairs); they import
without mutmut's configuration, so deskcheck uses them directly: the same operator set, the same
mutated nodes mutmut would write.

The per-line cap keeps the most useful mutant first. The ranking follows what code-review
mutation testing found productive (Petrović & Ivanković, "State of Mutation Testing at Google",
ICSE-SEIP 2018: relational, logical-connector, unary-negation and arithmetic mutants are the ones
authors act on), adjusted for decision code: a flipped comparison, connective or negation changes
which branch a scheduler takes; a changed string literal rarely matters to a test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import libcst as cst
from mutmut.mutation.mutators import mutation_operators as MUTMUT_OPERATORS

# (family, rank): lower rank = more useful. Families name the classic mutation operators.
FAMILY_RANK: dict[str, int] = {
    "ROR": 0,  # relational: < <= > >= == != in / not in, is / is not
    "LCR": 1,  # logical connector: and <-> or
    "UOI": 2,  # drop `not` / `~`
    "BOOL": 3,  # True <-> False
    "COND": 4,  # force a ternary down one arm
    "CTRL": 5,  # break -> return, continue -> break
    "AOR": 6,  # arithmetic / bitwise operator swap (incl. augmented)
    "AUG": 7,  # `x += y` -> `x = y`
    "NUM": 8,  # number + 1
    "ARG": 9,  # call argument -> None / dropped
    "ASSIGN": 10,  # `a = b` -> `a = None`
    "MATCH": 11,  # drop a `case`
    "STRMETHOD": 12,  # lower <-> upper, split <-> rsplit ...
    "LAMBDA": 13,  # lambda body -> None
    "NAME": 14,  # deepcopy -> copy
    "DICTKW": 15,  # dict(a=..) -> dict(aXX=..)
    "STR": 16,  # "x" -> "XXxXX"
}

# The bug class (deskcheck's own operators, ``auto.bug_class``): ranks that stop agreeing.
# They rank before every mutmut family on a changed line that touches a collective.
BUG_CLASS_RANK: dict[str, int] = {
    "LOCAL": -7,  # a read of the agreed value made rank-local
    "REDOP": -6,  # the reduce op swapped
    "SKIP": -5,  # the collective run on rank 0 only (the others skip it: a hang)
    "SLOT": -4,  # a packed slot read at the next index
    "SIZE1": -3,  # a group size read as 1
    "GROUP": -2,  # the collective over the default group
    "DROPC": -1,  # the collective dropped on every rank
}
BUG_CLASS_OPERATOR_NAMES = frozenset({"rank-local", "reduce-op", "skip-on-rank", "slot-shift",
                                      "group-size-one", "swap-group", "drop-collective"})

_COMPARISON_KEYWORDS = (cst.In, cst.NotIn, cst.Is, cst.IsNot)


@dataclass(frozen=True)
class Operator:
    """One mutmut operator function, applicable to nodes of ``node_type``."""

    name: str  # mutmut's function name, e.g. ``operator_swap_op``
    node_type: type
    function: Callable[[cst.CSTNode], Iterable[cst.CSTNode]]


OPERATORS: tuple[Operator, ...] = tuple(
    Operator(name=fn.__name__, node_type=node_type, function=fn)
    for node_type, fn in MUTMUT_OPERATORS
)
OPERATOR_NAMES: frozenset[str] = frozenset(op.name for op in OPERATORS)


def family_of(operator_name: str, node: cst.CSTNode) -> str:
    """The classic operator family of a mutmut mutation of ``node``."""
    if operator_name == "operator_swap_op":
        if isinstance(node, cst.ComparisonTarget):
            return "ROR"
        if isinstance(node, cst.BooleanOperation):
            return "LCR"
        return "AOR"
    if operator_name == "operator_keywords":
        return "ROR" if isinstance(node, _COMPARISON_KEYWORDS) else "CTRL"
    if operator_name == "operator_name":
        return "BOOL" if isinstance(node, cst.Name) and node.value in ("True", "False") else "NAME"
    return {
        "operator_remove_unary_ops": "UOI",
        "operator_if_exp": "COND",
        "operator_augmented_assignment": "AUG",
        "operator_number": "NUM",
        "operator_arg_removal": "ARG",
        "operator_assignment": "ASSIGN",
        "operator_match": "MATCH",
        "operator_symmetric_string_methods_swap": "STRMETHOD",
        "operator_unsymmetrical_string_methods_swap": "STRMETHOD",
        "operator_lambda": "LAMBDA",
        "operator_dict_arguments": "DICTKW",
        "operator_string": "STR",
    }.get(operator_name, "NAME")


def rank_of(family: str) -> int:
    if family in BUG_CLASS_RANK:
        return BUG_CLASS_RANK[family]
    return FAMILY_RANK.get(family, len(FAMILY_RANK))


def is_bug_class(family: str) -> bool:
    return family in BUG_CLASS_RANK


def operator_filter(names: Iterable[str] | None) -> Callable[[str, str], bool]:
    """A predicate ``(operator name, family) -> bool`` for the operators/families named.

    ``None`` keeps every operator. Unknown names are a config error naming the key.
    """
    if names is None:
        return lambda _name, _family: True
    wanted = frozenset(names)
    unknown = wanted - OPERATOR_NAMES - set(FAMILY_RANK) - set(BUG_CLASS_RANK) \
        - BUG_CLASS_OPERATOR_NAMES
    if unknown:
        from deskcheck.errors import ConfigError

        raise ConfigError(
            f"unknown auto-mutation operator(s): {', '.join(sorted(unknown))}",
            location="[tool.deskcheck] auto_operators",
            fix=f"use mutmut operator names ({', '.join(sorted(OPERATOR_NAMES))}), "
                f"families ({', '.join(FAMILY_RANK)}), or the bug-class operators "
                f"({', '.join(sorted(BUG_CLASS_OPERATOR_NAMES))}) and their families "
                f"({', '.join(BUG_CLASS_RANK)})",
        )
    return lambda name, family: name in wanted or family in wanted
