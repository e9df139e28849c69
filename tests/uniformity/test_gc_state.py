"""The audit pauses Python's cyclic garbage collector while it walks (its syntax trees are
long-lived and each collection rescans them; it makes almost no cyclic garbage) and gives
the caller back the collector as it found it: on where it was on, off where it was off,
also when the audit fails."""

from __future__ import annotations

import gc

import pytest

from deskcheck.errors import UnknownTargetError
from deskcheck.uniformity import audit

SOURCE = """
    class S:
        def step(self):
            if time.time() > 1:
                dist.barrier(group=self.tp_cpu_group)
"""
CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"


@pytest.mark.parametrize("enabled", [True, False], ids=["on", "off"])
def test_the_collector_is_left_as_the_caller_had_it(make_pkg, enabled):
    root = make_pkg({"s.py": SOURCE}, CFG)
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        report = audit("pkg.s:S", root=root)
        after = gc.isenabled()
    finally:
        (gc.enable if before else gc.disable)()
    assert report.decisions, "the fixture's clock decision must be audited"
    assert after is enabled, (
        f"the garbage collector was {'on' if enabled else 'off'} before the audit and "
        f"{'on' if after else 'off'} after it: an audit must hand the collector back as it "
        "found it (left off, a long pytest session or sweep grows without bound)")


def test_the_collector_is_back_on_after_an_audit_that_fails(make_pkg):
    root = make_pkg({"s.py": SOURCE}, CFG)
    assert gc.isenabled(), "the test process runs with the collector on"
    with pytest.raises(UnknownTargetError):
        audit("pkg.s:NoSuchClass", root=root)
    assert gc.isenabled(), (
        "an audit that raised (unknown target) left the garbage collector off: it must be "
        "turned back on in every case")


def test_the_collector_is_back_on_after_an_answer_from_the_cache(make_pkg, tmp_path):
    from deskcheck.uniformity.cache import AuditCache

    root = make_pkg({"s.py": SOURCE}, CFG)
    cache = AuditCache(tmp_path / "audit.sqlite")
    first = audit("pkg.s:S", root=root, cache=cache)
    hits = cache.hits
    second = audit("pkg.s:S", root=root, cache=cache)
    assert cache.hits == hits + 1, "the second audit of an unchanged tree must be a cache hit"
    assert second.to_json()["decisions"] == first.to_json()["decisions"], (
        "the cached answer must be the audit it stored")
    assert gc.isenabled(), (
        "an audit answered from the cache left the garbage collector off: the collector "
        "paused for the lookup and the store must be turned back on")


def test_the_collector_stays_off_through_a_cached_audit_for_a_caller_who_had_it_off(
        make_pkg, tmp_path):
    from deskcheck.uniformity.cache import AuditCache

    root = make_pkg({"s.py": SOURCE}, CFG)
    cache = AuditCache(tmp_path / "audit.sqlite")
    gc.disable()
    try:
        audit("pkg.s:S", root=root, cache=cache)  # stores
        after_store = gc.isenabled()
        audit("pkg.s:S", root=root, cache=cache)  # answered from the cache
        after_hit = gc.isenabled()
    finally:
        gc.enable()
    assert not after_store and not after_hit, (
        "the caller had the garbage collector off; an audit that stored its answer "
        f"(collector {'on' if after_store else 'off'} after it) or found it in the cache "
        f"(collector {'on' if after_hit else 'off'} after it) turned it on: the audit must "
        "hand the collector back as it found it")
