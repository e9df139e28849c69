"""Per-rank radix prefix cache over prompt tokens.

Each TP rank owns one of these and it evolves independently (its own evictions, its own
insert history), so ``match_prefix`` on the same prompt returns rank-dependent lengths. That
is the input the head-congruence arm exists to make uniform.

Edges carry token tuples; a node's ``value`` holds the device KV indices of its edge. Nodes
locked by an admitted request (``lock_ref > 0``) are protected from eviction; the rest are
evictable, least recently used leaves first. Evicted tokens are written back to the host pool
when one is attached (oldest backups are dropped to make room).
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Sequence

from tp_scheduler.memory_pool import HostKVPool, TokenToKVPool


class TreeNode:
    """One radix edge: its token key, the KV indices holding them, and a lock count."""

    __slots__ = ("children", "parent", "key", "value", "lock_ref", "last_access")

    def __init__(self, parent: TreeNode | None, key: tuple[int, ...], value: list[int]) -> None:
        self.children: dict[int, TreeNode] = {}
        self.parent = parent
        self.key = key
        self.value = value
        self.lock_ref = 0
        self.last_access = 0


class RadixCache:
    """Prefix cache whose match lengths are this rank's own."""

    def __init__(self, token_pool: TokenToKVPool, host_pool: HostKVPool | None = None) -> None:
        self.token_pool = token_pool
        self.host_pool = host_pool
        self.root = TreeNode(None, (), [])
        self.root.lock_ref = 1  # the root is never evicted
        self._clock = itertools.count(1)
        self._evictable = 0
        self._protected = 0
        self._host_backups: deque[list[int]] = deque()

    # -- sizes -----------------------------------------------------------------------------
    def evictable_size(self) -> int:
        """Cached tokens no request holds: what eviction can hand back to the token pool."""
        return self._evictable

    def protected_size(self) -> int:
        return self._protected

    def total_size(self) -> int:
        return self._evictable + self._protected

    # -- lookups ---------------------------------------------------------------------------
    def match_prefix(self, tokens: Sequence[int]) -> tuple[list[int], TreeNode]:
        """KV indices of the longest cached prefix of ``tokens`` and the node it ends in."""
        key = tuple(tokens)
        node = self.root
        indices: list[int] = []
        now = next(self._clock)
        while key:
            child = node.children.get(key[0])
            if child is None:
                break
            shared = _shared_len(child.key, key)
            if shared < len(child.key):
                child = self._split(child, shared)
            child.last_access = now
            indices.extend(child.value)
            node = child
            key = key[shared:]
        return indices, node

    def match_len(self, tokens: Sequence[int]) -> int:
        """Length of the cached prefix of ``tokens``, keeping one token to compute.

        The last prompt token always has to be run to produce logits, so a full hit still
        counts as ``len - 1`` (the same bound the production scheduler applies).
        """
        indices, _ = self.match_prefix(tokens)
        return min(len(indices), max(0, len(tokens) - 1))

    # -- mutation --------------------------------------------------------------------------
    def insert(self, tokens: Sequence[int], indices: Sequence[int]) -> int:
        """Cache ``tokens`` -> ``indices``; returns how many leading tokens were already cached.

        The caller owns the duplicate indices ``indices[:returned]`` and must free them.
        """
        key = tuple(tokens)
        if len(indices) != len(key):
            raise ValueError(f"insert of {len(key)} tokens with {len(indices)} indices")
        value = list(indices)
        node = self.root
        matched = 0
        now = next(self._clock)
        while key:
            child = node.children.get(key[0])
            if child is None:
                leaf = TreeNode(node, key, value[matched:])
                leaf.last_access = now
                node.children[key[0]] = leaf
                self._evictable += len(key)
                return matched
            shared = _shared_len(child.key, key)
            if shared < len(child.key):
                child = self._split(child, shared)
            child.last_access = now
            matched += shared
            node = child
            key = key[shared:]
        return matched

    def inc_lock_ref(self, node: TreeNode) -> None:
        """Protect ``node`` and its ancestors from eviction."""
        while node is not self.root:
            if node.lock_ref == 0:
                self._evictable -= len(node.key)
                self._protected += len(node.key)
            node.lock_ref += 1
            node = node.parent  # type: ignore[assignment]

    def dec_lock_ref(self, node: TreeNode) -> None:
        while node is not self.root:
            if node.lock_ref <= 0:
                raise ValueError("dec_lock_ref on an unlocked radix node")
            node.lock_ref -= 1
            if node.lock_ref == 0:
                self._evictable += len(node.key)
                self._protected -= len(node.key)
            node = node.parent  # type: ignore[assignment]

    def evict(self, num_tokens: int) -> int:
        """Evict at least ``num_tokens`` unlocked tokens (LRU leaves first); returns evicted."""
        heap = [(leaf.last_access, id(leaf), leaf) for leaf in self._evictable_leaves()]
        heapq.heapify(heap)
        evicted = 0
        while evicted < num_tokens and heap:
            _, _, leaf = heapq.heappop(heap)
            self._back_up(len(leaf.value))
            self.token_pool.free(leaf.value)
            evicted += len(leaf.key)
            self._evictable -= len(leaf.key)
            parent = leaf.parent
            assert parent is not None
            del parent.children[leaf.key[0]]
            if parent is not self.root and not parent.children and parent.lock_ref == 0:
                heapq.heappush(heap, (parent.last_access, id(parent), parent))
        return evicted

    # -- internals -------------------------------------------------------------------------
    def _split(self, child: TreeNode, at: int) -> TreeNode:
        """Split ``child``'s edge after ``at`` tokens; returns the new upper node."""
        parent = child.parent
        assert parent is not None
        upper = TreeNode(parent, child.key[:at], child.value[:at])
        upper.lock_ref = child.lock_ref
        upper.last_access = child.last_access
        parent.children[upper.key[0]] = upper
        child.key, child.value, child.parent = child.key[at:], child.value[at:], upper
        upper.children[child.key[0]] = child
        return upper

    def _evictable_leaves(self) -> list[TreeNode]:
        leaves: list[TreeNode] = []
        stack = list(self.root.children.values())
        while stack:
            node = stack.pop()
            if node.children:
                stack.extend(node.children.values())
            elif node.lock_ref == 0:
                leaves.append(node)
        return leaves

    def _back_up(self, count: int) -> None:
        """Write ``count`` evicted tokens back to host, dropping the oldest backups for room."""
        if self.host_pool is None or count > self.host_pool.size:
            return
        while self.host_pool.available_size() < count and self._host_backups:
            self.host_pool.free(self._host_backups.popleft())
        backup = self.host_pool.alloc(count)
        if backup is not None:
            self._host_backups.append(backup)


def _shared_len(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
