"""``PrefillAdder.rem_total_tokens`` on a faithful stub: the real property, supplied fields.

``AdderStub`` is a declared, registered stub: deskcheck's pytest plugin adds
``AdderStub::drift_guard`` (every field the property reads is supplied) and
``AdderStub::can_fail`` next to these tests. A field the stub does not model fails with the
field's name and the production line that reads it, not an AttributeError mid-assertion.
"""

from __future__ import annotations

import inspect

import pytest
from tp_scheduler import PrefillAdder, RadixCache, TokenToKVPool
from tp_scheduler.memory_pool import occupy

from deskcheck.errors import UnmodelledFieldError
from deskcheck.stubs import StubSpec, stub

AdderStub = StubSpec(
    PrefillAdder,
    fields=["tree_cache", "token_to_kv_pool", "host_floor", "evict_floor",
            "rem_total_token_offset", "tp_size"],
    roots=["rem_total_tokens"],
    name="AdderStub",
)


def _pool_and_cache(free: int, cached: int) -> tuple[TokenToKVPool, RadixCache]:
    pool = TokenToKVPool(free + cached)
    cache = RadixCache(pool)
    if cached:
        cache.insert(tuple(range(cached)), occupy(pool, cached))
    return pool, cache


def _adder(free=40, cached=20, host_floor=None, evict_floor=None, offset=0, tp_size=1):
    pool, cache = _pool_and_cache(free, cached)
    return AdderStub(tree_cache=cache, token_to_kv_pool=pool, host_floor=host_floor,
                     evict_floor=evict_floor, rem_total_token_offset=offset, tp_size=tp_size)


def test_floors_off_the_budget_is_free_plus_evictable_minus_promised():
    assert _adder(offset=5).rem_total_tokens == 40 + 20 - 5


def test_the_host_floor_caps_only_the_evictable_part():
    assert _adder(host_floor=8).rem_total_tokens == 40 + 8


def test_the_eviction_floor_is_the_whole_budget_under_the_floors():
    """The floor is the group MIN of every rank's own budget: every rank prices that same
    number (a rank-local min with its own budget would part the ranks' batches)."""
    assert _adder(evict_floor=50, offset=5).rem_total_tokens == 50 - 5
    assert _adder(evict_floor=30, host_floor=8).rem_total_tokens == 30, (
        "under the floors a rank priced its own host-capped budget instead of the group's")


def test_a_stub_is_a_prefill_adder_running_the_real_property():
    adder = _adder()
    assert isinstance(adder, PrefillAdder)
    assert type(adder).rem_total_tokens is PrefillAdder.rem_total_tokens


def test_an_unmodelled_field_names_itself_and_the_line_that_reads_it():
    pool, cache = _pool_and_cache(4, 0)
    adder = stub(PrefillAdder, tree_cache=cache, token_to_kv_pool=pool, host_floor=None,
                 rem_total_token_offset=0)
    source, first = inspect.getsourcelines(PrefillAdder.rem_total_tokens.fget)
    line = first + next(i for i, text in enumerate(source) if "self.evict_floor" in text)
    with pytest.raises(UnmodelledFieldError) as info:
        _ = adder.rem_total_tokens
    assert "does not model field 'evict_floor'" in info.value.render()
    assert f"tp_scheduler/schedule_policy.py:{line}" in info.value.render()
