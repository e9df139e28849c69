"""Default classification rules: what is rank-local, what is configuration, which group a
collective runs over, and which conditions mean "this group has one rank"."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from fnmatch import fnmatchcase

# rank-local by default: (pattern over the hop as written, without call parentheses; reason)
RANK_LOCAL_RULES: tuple[tuple[str, str], ...] = (
    ("time.*", "clock"), ("*.time", "clock"), ("*monotonic*", "clock"),
    ("*perf_counter*", "clock"), ("*datetime.*now", "clock"), ("*.now", "clock"),
    ("random.*", "random"), ("*.random.*", "random"), ("torch.rand*", "random"),
    ("uuid.*", "random"), ("*uuid4", "random"), ("os.getpid", "process id"),
    ("*.available_size", "per-rank resource size"), ("*.evictable_size", "per-rank resource size"),
    ("*.protected_size", "per-rank resource size"), ("*free_size*", "per-rank resource size"),
    ("*get_num_allocatable*", "per-rank resource size"), ("*num_free_blocks*", "per-rank resource size"),
    ("torch.cuda.*memory*", "per-rank resource size"), ("*mem_get_info*", "per-rank resource size"),
    ("psutil.*", "per-rank resource size"), ("*get_available_gpu_memory*", "per-rank resource size"),
    ("*.match_prefix", "cache"), ("*cache*.evict*", "cache"), ("*.cache_hit*", "cache"),
    ("*.recv_pyobj", "IPC poll"), ("*.recv_multipart", "IPC poll"), ("*.recv", "IPC poll"),
    ("*.poll", "IPC poll"), ("*.get_nowait", "IPC poll"), ("*.qsize", "IPC poll"),
    ("*.is_set", "IPC poll"), ("*.query", "IPC poll"), ("zmq.*", "IPC poll"),
    ("os.path.exists", "file system poll"),
)

CONFIG_RULES: tuple[str, ...] = (
    "*server_args*", "envs.*", "*.envs.*", "os.environ*", "*model_config*", "*.get_bool_env_var",
    "*tp_size", "*pp_size", "*dp_size", "*ep_size", "*world_size", "*.page_size",
    "*.ranks", "*.ranks[*", "*.first_rank", "*.last_rank", "*.is_first_rank", "*.is_last_rank",
    "*_group.rank_in_group", "logger.*", "logging.*",
    # a process group's size: every group of one dimension has as many ranks
    "*group.size", "*pg.size",
)

_RANK = re.compile(r"(?:^|_)rank$|^rank_in_group$|^local_rank$|^gpu_id$|^get_rank$"
                   r"|^get_.*_rank$|_rank_in_group$")
_DIMS = ("attn_tp", "attn_dp", "attn_cp", "moe_ep", "moe_tp", "moe_dp", "tp", "pp", "dp",
         "ep", "cp", "mp", "world")
_IN_TP = {"attn_tp", "attn_dp", "attn_cp", "moe_ep", "moe_tp", "moe_dp", "ep"}
# the dimensions whose groups lie inside each group of a dimension (mp: model parallel,
# tensor x pipeline)
NESTED = {"tp": _IN_TP, "mp": {"tp", "pp", *_IN_TP}, "world": set(_DIMS)}


def hop_text(expr: ast.expr) -> str:
    """A call or attribute chain as written, without arguments: ``self.pool.available_size``."""
    if isinstance(expr, ast.Call):
        return hop_text(expr.func)
    if isinstance(expr, ast.Attribute):
        return f"{hop_text(expr.value)}.{expr.attr}"
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Subscript):
        return f"{hop_text(expr.value)}[{ast.unparse(expr.slice)}]"
    return ast.unparse(expr)


_MATCHED: dict[tuple[str, tuple[str, ...]], str | None] = {}  # (text, patterns) -> the hit
_MATCHED_MAX = 200_000  # entries kept before the table starts over (a long-lived process)


def matches(text: str, patterns: list[str] | tuple[str, ...]) -> str | None:
    """The first of ``patterns`` matching the hop ``text`` whole, its last name, or (for a
    ``*.name`` pattern) its last name without the prefix; None if none does."""
    key = (text, patterns if isinstance(patterns, tuple) else tuple(patterns))
    try:
        return _MATCHED[key]
    except KeyError:
        pass
    if len(_MATCHED) >= _MATCHED_MAX:
        _MATCHED.clear()
    found = _MATCHED[key] = _first_match(text, key[1])
    return found


def _first_match(text: str, patterns: tuple[str, ...]) -> str | None:
    last = text.rsplit(".", 1)[-1]
    for pattern in patterns:
        if fnmatchcase(text, pattern) or fnmatchcase(last, pattern) or (
                pattern.startswith("*.") and fnmatchcase(last, pattern[2:])):
            return pattern
    return None


def rank_local_reason(text: str, extra: list[str]) -> str | None:
    """Why the hop ``text`` is rank-local (a default rule or a configured pattern), else None."""
    found = matches(text, extra)
    if found is not None:
        return f"rank-local by config pattern {found!r}"
    for pattern, reason in RANK_LOCAL_RULES:
        if fnmatchcase(text, pattern):
            return reason
    return None


def config_reason(text: str, extra: list[str]) -> str | None:
    found = matches(text, extra)
    if found is not None:
        return f"config pattern {found!r}"
    for pattern in CONFIG_RULES:
        if fnmatchcase(text, pattern):
            return f"replicated configuration ({pattern})"
    return None


# Megatron's, DeepSpeed's and nanotron's long names of the dimensions, tried first
_LONG_DIMS = (("expert_data_parallel", "moe_dp"), ("expert_tensor_parallel", "moe_tp"),
              ("expert_model_parallel", "ep"), ("expert_parallel", "ep"),
              ("tensor_model_parallel", "tp"), ("tensor_parallel", "tp"),
              ("pipeline_model_parallel", "pp"), ("pipeline_parallel", "pp"),
              ("data_parallel", "dp"), ("context_parallel", "cp"), ("model_parallel", "mp"))


def dim_of_name(name: str, default: str = "world") -> str:
    """The parallel dimension a name speaks of: ``attn_tp_rank`` -> attn_tp, ``pp_size`` -> pp,
    ``get_tensor_model_parallel_rank`` -> tp."""
    last = name.rsplit(".", 1)[-1].lower()
    whole = name.lower()
    for text in (last, whole):
        for long, dim in _LONG_DIMS:
            if long in text:
                return dim
        for dim in _DIMS:
            if re.search(rf"(?:^|_|\b){dim}(?:_|$|\b)", text):
                return dim
    return default


def rank_id_dim(text: str) -> str | None:
    """``self.tp_rank`` -> "tp"; ``self.tp_group.rank`` -> "tp"; not a rank id -> None."""
    parts = text.split(".")
    last = parts[-1]
    if last.endswith("ranks") or not _RANK.search(last) or "lora" in last.lower() \
            or "per_" in last:
        return None  # kv_lora_rank is a model dimension, tokens_per_dp_rank a per-rank count
    dim = dim_of_name(last, "")
    if not dim and len(parts) > 1:
        dim = dim_of_name(parts[-2], "")
    return dim or "world"


def declared_dim(text: str, groups: dict[str, str]) -> str | None:
    """The dimension ``groups`` declares for a group's text or a root parameter's key
    (``Engine.step.pg``): that of the first key, a glob, that matches; None if none does."""
    return next((dim for pattern, dim in groups.items() if fnmatchcase(text, pattern)), None)


def group_dim(group_text: str, configured: dict[str, str]) -> str:
    """A group's dimension: as declared, else as its name suggests (``world`` if none)."""
    declared = declared_dim(group_text, configured)
    if declared is not None:
        return declared
    return dim_of_name(group_text) if group_text else "world"


def varies_within(rank_dim: str, group: str) -> bool:
    """Does a rank id of ``rank_dim`` differ between the ranks of one ``group`` group?"""
    return rank_dim == group or group == "world" or rank_dim == "world" \
        or rank_dim in NESTED.get(group, set()) or group in NESTED.get(rank_dim, set())


def covers(agreed_dim: str, group: str) -> bool:
    """Is a value agreed over ``agreed_dim`` groups uniform within every ``group`` group?
    ``dp+mp``: reduced over one and then the other, agreed over each."""
    if "+" in agreed_dim:
        return any(covers(part, group) for part in agreed_dim.split("+"))
    return agreed_dim == group or agreed_dim == "world" or group in NESTED.get(agreed_dim, set())


def single_rank_dim(test: ast.expr, negated: bool,
                    resolve: Callable[[ast.expr], str] | None = None) -> str | None:
    """The dimension whose group has one rank when ``test`` is (not, if negated) true:
    ``tp_size == 1`` -> tp; the else of ``tp_size > 1`` -> tp; otherwise None.
    ``resolve``: the dimension of a group expression no name tells (a parameter)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return single_rank_dim(test.operand, not negated, resolve)
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) and not negated or isinstance(test.op, ast.Or) and negated:
            for value in test.values:
                found = single_rank_dim(value, negated, resolve)
                if found:
                    return found
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant):
        left, right = right, left
        op = {ast.Lt: ast.Gt(), ast.Gt: ast.Lt(), ast.LtE: ast.GtE(), ast.GtE: ast.LtE()}.get(
            type(op), op)
    if not (isinstance(right, ast.Constant) and isinstance(right.value, int)):
        return None
    dim = size_dim(left, resolve)
    if dim is None:
        return None
    n = right.value
    single = {ast.Eq: n == 1, ast.LtE: n == 1, ast.Lt: n == 2}.get(type(op))
    multi = {ast.NotEq: n == 1, ast.Gt: n == 1, ast.GtE: n == 2}.get(type(op))
    if single and not negated or multi and negated:
        return dim
    return None


def group_argument(call: ast.Call) -> ast.expr | None:
    """The process group a torch-style query names (``get_rank(group)``,
    ``get_world_size(group=g)``), else None (the default group: the world)."""
    for k in call.keywords:
        if k.arg == "group":
            return k.value
    return call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None


def size_dim(size: ast.expr, resolve: Callable[[ast.expr], str] | None = None) -> str | None:
    """The dimension whose group size ``size`` reads: ``tp_size``, ``self.tp_group.size``,
    ``get_tensor_model_parallel_world_size()``, ``dist.get_world_size(group=self.tp_group)``
    (the group's dimension; without a group, the world's); None where no dimension is
    named (``self.shard_size``: a size of something else, which proves no group small)."""
    text = hop_text(size)
    last = text.rsplit(".", 1)[-1]
    if not last.endswith("size"):
        return None
    if last in ("get_world_size", "world_size", "size") and isinstance(size, ast.Call):
        group = group_argument(size)
        if group is not None:
            named = dim_of_name(hop_text(group), "")
            if not named and resolve is not None:
                named = resolve(group)
            return named or None
    if last in ("size", "world_size") and "." in text:
        prefix = text.rsplit(".", 1)[0]
        return dim_of_name(prefix, "") or ("world" if last == "world_size" else None)
    if last in ("world_size", "get_world_size"):
        return "world"
    return dim_of_name(last, "") or None


def trivial_for(single_dim: str, group: str) -> bool:
    """A path where ``single_dim`` groups have one rank: is a ``group`` collective trivial?"""
    return single_dim == group or single_dim == "world" or group in NESTED.get(single_dim, set())


_GROUP_BUILDERS = ("new_group", "new_subgroups", "new_subgroups_by_enumeration",
                   "init_device_mesh")


def builds_group(value: ast.expr | None, reaching: dict) -> bool:
    """Whether ``value`` is a process group a builder made (``dist.new_group(ranks)``,
    directly or through the one local it was bound to): stored under a membership test
    (``if rank in ranks: _GROUP = group``), each rank keeps the one group of that kind it
    belongs to, so the test decides no data (Megatron's and DeepSpeed's group setup)."""
    if isinstance(value, ast.Name):
        defs = reaching.get(id(value), ())
        if len(defs) != 1 or defs[0][0].kind != "assign":
            return False
        value = defs[0][0].value
    return isinstance(value, ast.Call) and hop_text(value.func).rsplit(".", 1)[-1] in \
        _GROUP_BUILDERS
