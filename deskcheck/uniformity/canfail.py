"""The can-fail arm of each decision: plant a rank-local read (``time.monotonic()``) into the
decision's condition, in memory only, re-audit, and require that exactly that decision is
reported RANK-LOCAL naming the planted read; otherwise the decision's verdict is VACUOUS."""

from __future__ import annotations

import ast
from pathlib import Path

from deskcheck.static import Sources, subnodes
from deskcheck.uniformity.model import AuditReport, Decision, Verdict

PLANT = "__import__('time').monotonic()"


def plant(decision: Decision, text: str) -> str | None:
    """The file's text with the condition wrapped as ``(PLANT and (COND))``, or None. The
    condition of a ``boolop`` decision is the operand of ``and``/``or`` that gates the rest."""
    tree = ast.parse(text)
    for node in subnodes(tree):
        test = _test_of(node, decision)
        if test is None or test.end_lineno is None:
            continue
        lines = text.splitlines(keepends=True)
        start = sum(len(x) for x in lines[:test.lineno - 1]) + _byte_col(lines[test.lineno - 1],
                                                                       test.col_offset)
        end = sum(len(x) for x in lines[:test.end_lineno - 1]) + _byte_col(
            lines[test.end_lineno - 1], test.end_col_offset)
        return f"{text[:start]}({PLANT} and ({text[start:end]})){text[end:]}"
    return None


def _test_of(node: ast.AST, decision: Decision) -> ast.expr | None:
    """The expression of ``node`` that is ``decision``'s condition, or None."""
    if decision.kind == "boolop":
        if not isinstance(node, ast.BoolOp):
            return None
        shown = {decision.condition, decision.condition.removeprefix("not (").removesuffix(")")}
        return next((v for v in node.values[:-1] if v.lineno == decision.line
                     and ast.unparse(v) in shown), None)
    if getattr(node, "lineno", None) != decision.line:
        return None
    if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
        return node.test
    return node.iter if isinstance(node, ast.For) else None


def _byte_col(line: str, col: int) -> int:
    return len(line.encode("utf-8")[:col].decode("utf-8", "ignore"))


def run_can_fail(report: AuditReport, target: str, *, root, roots_methods=None, config=None
                 ) -> None:
    from deskcheck.uniformity.audit import audit

    for decision in report.decisions:
        if decision.kind not in ("if", "while", "for", "exit", "break", "ternary", "boolop",
                                 "raise"):
            article = "an" if decision.kind[:1] in "aeiou" else "a"
            decision.can_fail = f"SKIPPED: nothing to plant into {article} {decision.kind} decision"
            continue
        text = Path(decision.file).read_text(encoding="utf-8")
        planted = plant(decision, text)
        if planted is None:
            decision.can_fail = "SKIPPED: the condition's expression was not found"
            continue
        again = audit(target, root=root, roots_methods=roots_methods, config=config,
                      sources=Sources({decision.file: planted}))
        hit = [d for d in again.decisions if d.function == decision.function
               and d.line == decision.line and d.verdict is Verdict.RANK_LOCAL
               and any("monotonic" in i.name for i in d.inputs)]
        decision.can_fail = "LIVE" if hit else (
            "VACUOUS: a rank-local read planted into this condition was not reported")
