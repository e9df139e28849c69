"""Collective sites: torch.distributed functions, ProcessGroup/GroupCoordinator methods,
project wrappers and forward passes named in config, each with its group expression."""

from __future__ import annotations

import ast

from deskcheck.static import External, StaticIndex
from deskcheck.uniformity.config import CallPattern, UniformityConfig
from deskcheck.uniformity.rules import group_dim, hop_text, matches

COLLECTIVES = frozenset({
    "all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "broadcast",
    "broadcast_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor", "all_to_all",
    "all_to_all_single", "barrier", "gather", "gather_object", "scatter", "scatter_object_list",
    "monitored_barrier", "_all_gather_base", "_reduce_scatter_base", "allreduce", "allgather",
    "alltoall", "allgather_into_tensor", "reduce_scatter_tensor_coalesced", "broadcast_object",
    "broadcast_tensor_dict", "allreduce_coalesced",
    # torch.distributed._functional_collectives (funcol): the result is returned, not in place
    "all_gather_tensor", "all_gather_tensor_autograd", "reduce_scatter_tensor_autograd",
    "all_to_all_single_autograd", "all_reduce_coalesced", "all_gather_into_tensor_coalesced",
    "all_reduce_inplace",
    # torch >= 2.10's names for the flat-tensor gather and scatter
    "all_gather_single", "reduce_scatter_single"})
P2P = frozenset({"send", "recv", "isend", "irecv", "batch_isend_irecv", "send_object_list",
                 "recv_object_list", "send_object", "recv_object", "send_tensor_dict",
                 "recv_tensor_dict"})
# where torch.distributed's signatures put the group, for a call that passes it positionally
# (funcol's match c10d's but for all_to_all_single: its group follows the split sizes)
GROUP_POSITION = {
    **dict.fromkeys(("all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor",
                     "broadcast", "broadcast_object_list", "all_to_all", "_all_gather_base",
                     "all_reduce_coalesced", "send", "recv", "isend", "irecv",
                     "send_object_list", "recv_object_list", "all_gather_tensor",
                     "all_gather_tensor_autograd", "all_gather_single"), 2),
    **dict.fromkeys(("reduce", "reduce_scatter", "reduce_scatter_tensor", "gather",
                     "gather_object", "scatter", "scatter_object_list", "_reduce_scatter_base",
                     "reduce_scatter_tensor_autograd", "reduce_scatter_single"), 3),
    **dict.fromkeys(("barrier", "monitored_barrier"), 0),
    "all_to_all_single": 4,
}
_FUNCOL_POSITION = {"all_to_all_single": 3, "all_to_all_single_autograd": 3}
_DIST_PREFIXES = ("dist.", "torch.distributed.", "torch.distributed.distributed_c10d.", "c10d.")
_GROUP_KEYWORDS = ("group", "process_group", "pg", "cpu_group", "device_group")


def classify_call(call: ast.Call, config: UniformityConfig,
                  imported_from: str | None = None,
                  head_module: str | None = None,
                  assumed: bool = False,
                  original: str | None = None) -> tuple[str, str] | None:
    """(kind, group expression) when ``call`` is a collective site, else None.
    ``imported_from``: the module a bare-name callee was imported from; ``original``: its
    name there, when the call names it otherwise (see ``imported_origin``); ``head_module``:
    the module a dotted callee's first name stands for (``funcol.all_reduce`` with ``import
    torch.distributed._functional_collectives as funcol``), see ``head_module_of``.
    ``assumed``: ``imported_from`` is a guess for any call named like a collective (an
    in-place reduction by name): its group is then the argument that names one."""
    text = hop_text(call.func)
    # one lookup per list (``matches`` keeps its answers): the first pattern that matches
    hit = matches(text, tuple(p.call for p in config.forward)) if config.forward else None
    if hit is not None:
        pattern = next(p for p in config.forward if p.call == hit)
        return "forward", pattern.group or "tp"
    hit = matches(text, tuple(p.call for p in config.collectives)) \
        if config.collectives else None
    if hit is not None:
        pattern = next(p for p in config.collectives if p.call == hit)
        last = text.rsplit(".", 1)[-1]
        p2p = last in P2P or "point_to_point" in last or last.startswith(("send_", "recv_"))
        return ("p2p" if p2p else "collective"), _group(call, pattern)
    last = original or text.rsplit(".", 1)[-1]
    if last not in COLLECTIVES and last not in P2P:
        return None
    kind = "p2p" if last in P2P else "collective"
    if text.startswith(_DIST_PREFIXES) or (
            "." not in text and (imported_from or "").startswith("torch.distributed")) or (
            "." in text and (head_module or "").startswith("torch.distributed")):
        if assumed and not text.startswith(_DIST_PREFIXES):
            return kind, _group(call, None) or "WORLD"
        functional = "_functional_collectives" in (head_module or imported_from or "")
        return kind, _torch_group(call, last, functional) or "WORLD"
    receiver = text.rsplit(".", 1)[0] if "." in text else ""
    if "group" in receiver.rsplit(".", 1)[-1].lower() or receiver.endswith(("_pg", ".pg")):
        return kind, _group(call, None) or receiver
    return None


def imported_origin(index: StaticIndex, module: str | None, name: str
                    ) -> tuple[str | None, str | None]:
    """(module, name there) of what a bare ``name`` called in ``module`` stands for: the
    module its import names and, when that is a project module re-exporting it (SGLang's
    ``all_gather_single = _all_gather_single``, bound by ``from torch.distributed import
    ... as _all_gather_single`` in a ``try/except ImportError``) or a module-level alias
    (``gather = dist.all_gather_into_tensor``), the module outside the roots that defines
    it and its name there; (None, None) for a name no import or alias binds."""
    memo: dict[tuple, tuple[str | None, str | None]] = index.__dict__.setdefault(
        "_origins", {})
    key = (module, name)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _origin(index, module, name)
    return found


def _origin(index: StaticIndex, module: str | None, name: str
            ) -> tuple[str | None, str | None]:
    info = index.module(module) if module else None
    binding = info.bindings.get(name) if info is not None else None
    if binding is None or binding.kind not in ("from", "alias"):
        return (binding.module if binding is not None else None), None
    try:
        found = index.resolve_name(info.name, name, [])
    except Exception:
        found = None
    if isinstance(found, External):
        where, _dot, original = found.qualname.rpartition(".")
        return where, original
    return binding.module, None


def head_module_of(func: ast.expr, bindings: dict) -> str | None:
    """The module the first name of a dotted callee is bound to at module level
    (``import torch.distributed as tdist`` -> ``torch.distributed``; ``from torch import
    distributed`` -> ``torch.distributed``), else None."""
    if not isinstance(func, ast.Attribute):
        return None
    head = func
    while isinstance(head, ast.Attribute):
        head = head.value
    binding = bindings.get(head.id) if isinstance(head, ast.Name) else None
    if binding is None or not binding.module:
        return None
    return f"{binding.module}.{binding.name}" if binding.kind == "from" else binding.module


def _group(call: ast.Call, pattern: CallPattern | None) -> str:
    spec = pattern.group if pattern is not None else ""
    if spec:
        if spec.isdigit():
            index = int(spec)
            return ast.unparse(call.args[index]) if index < len(call.args) else ""
        for keyword in call.keywords:
            if keyword.arg == spec:
                return ast.unparse(keyword.value)
        if not spec.isidentifier():
            return spec  # the group expression itself: a wrapper that takes no group
    named = _group_keyword(call)
    if named is not None:
        return named
    for arg in call.args:
        shown = ast.unparse(arg)
        if "group" in shown.lower():
            return shown
    return ""


def _group_keyword(call: ast.Call) -> str | None:
    """The group a call passes by keyword (``group=``, ``process_group=``, ...), else None."""
    return next((ast.unparse(k.value) for k in call.keywords if k.arg in _GROUP_KEYWORDS), None)


def _torch_group(call: ast.Call, name: str, functional: bool) -> str:
    """The group a torch.distributed call passes: its group keyword, else the argument at the
    group's position in the signature; "" when it passes none (the default group). A name
    the table does not know is read as a wrapper's is."""
    position = (_FUNCOL_POSITION if functional else {}).get(name, GROUP_POSITION.get(name))
    if position is None:
        return _group(call, None)
    named = _group_keyword(call)
    if named is not None:
        return named
    if any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return _group(call, None)  # positions unknown past a star
    return ast.unparse(call.args[position]) if len(call.args) > position else ""


# the name of the first parameter (the one written in place) where it is not ``tensor``
_FIRST_PARAM = {"all_gather": "tensor_list", "all_gather_object": "object_list",
                "all_gather_into_tensor": "output_tensor", "_all_gather_base": "output_tensor",
                "broadcast_object_list": "object_list", "reduce_scatter": "output",
                "reduce_scatter_tensor": "output", "_reduce_scatter_base": "output",
                "all_to_all": "output_tensor_list", "all_to_all_single": "output",
                "scatter_object_list": "scatter_object_output_list",
                "all_reduce_coalesced": "tensors"}


def inplace_output(call: ast.Call) -> ast.expr | None:
    """The argument a torch-style collective writes in place (its first, passed by position
    or by its name: ``all_reduce(tensor=t, ...)``), else None."""
    text = hop_text(call.func)
    last = text.rsplit(".", 1)[-1]
    if last not in COLLECTIVES or last in ("barrier", "monitored_barrier"):
        return None
    if call.args:
        return call.args[0]
    name = _FIRST_PARAM.get(last, "tensor")
    return next((k.value for k in call.keywords if k.arg == name), None)


# tensor methods whose result shares the tensor's storage (as a program that fills it relies
# on: ``flatten``/``reshape`` of a contiguous tensor): a collective writing the result writes
# the tensor
_VIEWS = frozenset({"view", "view_as", "flatten", "reshape", "unflatten", "squeeze",
                    "unsqueeze"})


def written_local(expr: ast.expr | None) -> ast.Name | None:
    """The local a call's output argument writes: the name itself, or the tensor a view of
    it is taken from (``t.flatten()``, ``t.view(-1, w)``), else None."""
    if isinstance(expr, ast.Name):
        return expr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr in _VIEWS and isinstance(expr.func.value, ast.Name):
        return expr.func.value
    return None


def site_dim(group: str, config: UniformityConfig) -> str:
    return group_dim(group, config.groups) if group and group != "WORLD" else "world"
