"""One warm pool per (world, backend, timeout, start method), owned by the pid that built it.

``rank_pool()`` hands out the warm pool, starting it on first use and again after a task
closed it. Under torchrun it hands out the env:// group instead when the world matches
torchrun's (any other world still gets a local forked pool). A forked child (the mutant
sweep forks one per mutant) never reuses an inherited pool: the at-fork hook drops the
inherited handles without touching the parent's ranks, and the child's first call builds a
pool whose ranks inherit the child's memory. Pools close at exit. Each pytest session has
warm pools of its own: a nested in-process session (as pytester runs one) neither runs on
its caller's warm pools (their ranks hold the modules the caller's tests imported, and a
same-named test module of the nested session would be unpickled against them) nor closes
them; its end closes the pools started during it. A child that leaves with ``os._exit``
takes its ranks along through their death signal.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Collection

from deskcheck.suites.env_group import EnvGroup, env_world, under_torchrun
from deskcheck.suites.pool import RankPool, close_all_pools, default_pg_timeout, live_pools

_Key = tuple[int, str, float, str]
# The warm pools of each open session scope, innermost last; the first scope is the process's.
_scopes: list[dict[_Key, RankPool | EnvGroup]] = [{}]
_owner_pid = os.getpid()


class SessionScope:
    """The warm pools of one (possibly nested) session: :func:`rank_pool` hands out only the
    innermost scope's pools; :meth:`close` closes them (and any pool started during the
    scope that is not in ``keep``) and leaves the enclosing scopes' pools alone."""

    def __init__(self) -> None:
        _forget_inherited()
        self._keep = open_pools()
        self._pools: dict[_Key, RankPool | EnvGroup] = {}
        _scopes.append(self._pools)

    def close(self) -> None:
        _forget_inherited()
        # by identity: two scopes with no pools are equal dicts, and the other may be an
        # enclosing session's (or the process's own) that must stay
        _scopes[:] = [scope for scope in _scopes if scope is not self._pools]
        for pool in list(self._pools.values()):
            pool.close()
        self._pools.clear()
        close_all_pools(self._keep)


def enter_session() -> SessionScope:
    """Open the warm-pool scope of a session that starts now (see :class:`SessionScope`)."""
    return SessionScope()


def rank_pool(world: int, backend: str = "gloo", *, timeout_s: float | None = None,
              start_method: str = "auto") -> RankPool | EnvGroup:
    """The warm, started pool for ``world`` ranks on ``backend`` (built on first use)."""
    _forget_inherited()
    timeout = default_pg_timeout() if timeout_s is None else float(timeout_s)
    env_mode = under_torchrun() and env_world() == world
    key = (world, backend, timeout, "env" if env_mode else start_method)
    _pools = _scopes[-1]
    pool = _pools.get(key)
    if pool is None or not pool.alive:
        if pool is not None:
            pool.close()
        if env_mode:
            pool = EnvGroup(world, backend, timeout_s=timeout)
        else:
            pool = RankPool(world, backend, timeout_s=timeout, start_method=start_method)
        _pools[key] = pool
        pool.start()
    return pool


def shutdown_pools(keep: Collection[object] = ()) -> None:
    """Close every pool this process owns except those in ``keep``; inherited pools are
    only forgotten."""
    _forget_inherited()
    kept = {id(p) for p in keep}
    for _pools in _scopes:
        for key, pool in list(_pools.items()):
            if id(pool) not in kept:
                del _pools[key]
                pool.close()
    close_all_pools(keep)


def open_pools() -> list[RankPool | EnvGroup]:
    """Every pool of this process that holds ranks now, whether or not rank_pool() built it
    (a session records them at its start, to leave them open at its end)."""
    _forget_inherited()
    found: dict[int, RankPool | EnvGroup] = {id(p): p for p in live_pools()}
    found.update((id(p), p) for _pools in _scopes for p in _pools.values() if p.alive)
    return list(found.values())


def owned_pools() -> list[RankPool | EnvGroup]:
    """The pools this process holds now (for diagnostics and tests)."""
    _forget_inherited()
    return [p for _pools in _scopes for p in _pools.values() if p.alive]


def _forget_inherited() -> None:
    global _owner_pid
    if _owner_pid != os.getpid():
        for _pools in _scopes:
            _pools.clear()
        _owner_pid = os.getpid()


os.register_at_fork(after_in_child=_forget_inherited)
atexit.register(shutdown_pools)
