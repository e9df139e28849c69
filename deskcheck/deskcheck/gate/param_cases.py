"""The cases of a parametrized test a branch adds or changes, by pytest's own case ids.

A test whose only change is in its ``@pytest.mark.parametrize`` cases is judged per case, when
every case id can be read from the source and does not depend on the case's position: literal
values (``str``, numbers, ``bool``, ``None``), ``ids=[...]`` and ``pytest.param(..., id=...)``.
Otherwise (a computed list, ids pytest makes from positions such as ``arg0``, duplicates, two
stacked parametrize marks) the whole function is judged, as before.
"""

from __future__ import annotations

import ast
import copy

Cases = dict[str, str]  # pytest case id -> the case's ast dump


def _parametrize(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    found = []
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                and decorator.func.attr == "parametrize":
            found.append(decorator)
    return found


def _argnames(call: ast.Call) -> list[str] | None:
    if not call.args or not isinstance(call.args[0], ast.Constant):
        return None
    value = call.args[0].value
    if isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    return None


def _value_id(value: ast.expr) -> str | None:
    """pytest's id of one literal value; None when it would be made from the position."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) \
            and isinstance(value.operand, ast.Constant):
        inner = _value_id(value.operand)
        return None if inner is None else f"-{inner}"
    if not isinstance(value, ast.Constant):
        return None
    constant = value.value
    if isinstance(constant, str):
        return constant if constant and constant.isascii() and constant.isprintable() else None
    if constant is None or isinstance(constant, bool | int | float):
        return str(constant)
    return None


def _param_call(case: ast.expr) -> ast.Call | None:
    if isinstance(case, ast.Call) and isinstance(case.func, ast.Attribute) \
            and case.func.attr == "param":
        return case
    return None


def _case_id(case: ast.expr, names: list[str], given: str | None) -> str | None:
    if given is not None:
        return given
    param = _param_call(case)
    values: list[ast.expr]
    if param is not None:
        for keyword in param.keywords:
            if keyword.arg == "id":
                return keyword.value.value if isinstance(keyword.value, ast.Constant) \
                    and isinstance(keyword.value.value, str) else None
        values = list(param.args)
    elif len(names) == 1:
        values = [case]
    elif isinstance(case, ast.Tuple | ast.List):
        values = list(case.elts)
    else:
        return None
    if len(values) != len(names):
        return None
    ids = [_value_id(v) for v in values]
    return None if any(i is None for i in ids) else "-".join(ids)  # type: ignore[arg-type]


def case_ids(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Cases | None:
    """``{case id: case dump}`` of a test with one literal ``parametrize``; None otherwise."""
    marks = _parametrize(node)
    if len(marks) != 1:
        return None
    call = marks[0]
    names = _argnames(call)
    values = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "argvalues"), None)
    if names is None or not isinstance(values, ast.List | ast.Tuple):
        return None
    given: list[str | None] = [None] * len(values.elts)
    for keyword in call.keywords:
        if keyword.arg == "ids":
            if not isinstance(keyword.value, ast.List | ast.Tuple) or \
                    len(keyword.value.elts) != len(values.elts):
                return None
            given = [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str)
                     else None for e in keyword.value.elts]
            if any(g is None for g in given):
                return None
    cases: Cases = {}
    for case, explicit in zip(values.elts, given, strict=True):
        case_id = _case_id(case, names, explicit)
        if case_id is None or case_id in cases:
            return None  # made from the position, or a duplicate pytest would renumber
        cases[case_id] = ast.dump(case)
    return cases


def without_cases(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function's dump with its parametrize cases and ids left out."""
    bare = copy.deepcopy(node)
    for call in _parametrize(bare):
        call.args = call.args[:1]
        call.keywords = [k for k in call.keywords if k.arg not in ("argvalues", "ids")]
    return ast.dump(bare)


def changed_cases(base: ast.AST, branch: ast.AST) -> list[str] | None:
    """The case ids the branch adds or changes when only the cases changed; None when the
    function must be judged whole."""
    if not isinstance(base, ast.FunctionDef | ast.AsyncFunctionDef) or \
            not isinstance(branch, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    base_cases, branch_cases = case_ids(base), case_ids(branch)
    if base_cases is None or branch_cases is None or without_cases(base) != without_cases(branch):
        return None
    return [case for case, dump in branch_cases.items() if base_cases.get(case) != dump]
