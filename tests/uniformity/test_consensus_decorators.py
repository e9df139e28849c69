"""Functions the code marks as reached by every rank together (docs/uniformity.md "Consensus
decorators"): a decorator named under ``consensus`` (SGLang's ``@rank_consensus``) makes a
call to the function a collective site over every rank, so a rank-local decision that gates
the call is RANK-LOCAL; ``same_results=True`` on it claims its return is the same on every
rank, so a decision on that return is SANCTIONED by the claim (a list of fields claims those
fields only). A name that no function the walk entered carries is stale."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

CHECKER = """
    def rank_consensus(func=None, *, same_params=None, same_results=None):
        if func is not None:
            return func
        return lambda f: f


    def traced(func):
        return func
"""

SCHEDULER = """
    from pkg import checker
    from pkg.checker import rank_consensus, traced


    class Cache:
        @rank_consensus
        def evict(self, n):
            return n

        @rank_consensus(same_results=True)
        def ready(self):
            return time.monotonic() > 5

        @rank_consensus(same_results=["ok"])
        def partly(self):
            return time.monotonic() > 5

        @checker.rank_consensus(same_params=True)
        def plain(self):
            return time.monotonic() > 5

        @traced
        def evict_plain(self, n):
            return n

        @rank_consensus
        def evict_long(self, n):
            freed = n
            return freed

        @rank_consensus(same_results=True)
        def ready_long(self):
            waited = time.monotonic()
            return waited > 5


    def drain(cache: Cache):
        cache.evict(1)


    class Scheduler:
        def drain(self, cache: Cache):
            cache.evict(1)

        def __init__(self, group, pp_group):
            self.cache = Cache()
            self.group = group
            self.pp_rank = dist.get_rank(pp_group)

        def step(self):
            BODY
"""


def _report(make_pkg, body: str, consensus: str = '["rank_consensus"]'):
    pyproject = f'[tool.deskcheck.uniformity]\nroots = ["step"]\nconsensus = {consensus}\n'
    root = make_pkg({"checker.py": CHECKER, "sched.py": SCHEDULER.replace("BODY", body)},
                    pyproject)
    return audit("pkg.sched:Scheduler", root=root)


def _decision(report, condition: str):
    found = [d for d in report.decisions if d.condition == condition]
    assert found, f"`{condition}` gates a site: it must be a decision; got " \
        f"{[(d.condition, d.verdict.value) for d in report.decisions]}"
    return found[0]


def test_a_clock_gating_a_consensus_call_is_rank_local(make_pkg):
    report = _report(make_pkg, "if time.monotonic() > 3:\n                self.cache.evict(1)")
    sites = [s for s in report.sites if s.call == "self.cache.evict"]
    assert sites and sites[0].dim == "world", (
        f"the call to a consensus function is a collective site over every rank; got "
        f"{[(s.call, s.dim) for s in report.sites]}")
    decision = _decision(report, "time.monotonic() > 3")
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"Cache.evict carries @rank_consensus (every rank calls it, in the same order): a "
        f"per-rank clock deciding whether to call it is RANK-LOCAL; got "
        f"{decision.verdict.value}: {decision.why}")


def test_a_function_without_the_named_decorator_is_no_site(make_pkg):
    report = _report(make_pkg, "if time.monotonic() > 3:\n                self.cache.evict_plain(1)")
    assert not report.decisions and not report.sites, (
        f"Cache.evict_plain carries another decorator (@traced), not the consensus one: no "
        f"site, so no decision; got "
        f"{[(d.condition, d.verdict.value) for d in report.decisions]}")


def test_without_the_config_key_a_decorated_call_is_no_site(make_pkg):
    report = _report(make_pkg, "if time.monotonic() > 3:\n                self.cache.evict(1)",
                     consensus="[]")
    assert not report.sites, (
        f"consensus decorators are named in config (none by default); got sites "
        f"{[s.call for s in report.sites]}")


def test_a_return_claimed_the_same_on_every_rank_is_sanctioned(make_pkg):
    report = _report(make_pkg, "if self.cache.ready():\n                dist.barrier(group=self.group)")
    decision = _decision(report, "self.cache.ready()")
    assert decision.verdict is Verdict.SANCTIONED, (
        f"@rank_consensus(same_results=True) claims Cache.ready returns the same on every "
        f"rank: SANCTIONED by that claim, whatever its body reads; got "
        f"{decision.verdict.value}: {decision.why}")
    reasons = [i.reason for i in decision.inputs]
    assert any("@rank_consensus(same_results=True)" in r and "sched.py:" in r for r in reasons), (
        f"the input names the claim and where it is written; got {reasons}")


def test_a_claim_on_some_fields_or_on_the_parameters_does_not_cover_the_return(make_pkg):
    for call in ("partly", "plain"):
        report = _report(make_pkg, f"if self.cache.{call}():\n"
                                   f"                dist.barrier(group=self.group)",
                         consensus='["rank_consensus", "*.rank_consensus"]')
        decision = _decision(report, f"self.cache.{call}()")
        assert decision.verdict is Verdict.RANK_LOCAL, (
            f"Cache.{call}'s decorator claims some result fields or the parameters only, not "
            f"the whole return: its clock makes the decision RANK-LOCAL; got "
            f"{decision.verdict.value}: {decision.why}")


def test_a_dotted_decorator_is_matched_by_its_last_name(make_pkg):
    report = _report(make_pkg, "if time.monotonic() > 3:\n                self.cache.plain()")
    decision = _decision(report, "time.monotonic() > 3")
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"@checker.rank_consensus(...) is the decorator rank_consensus names (its last name, "
        f"as collective patterns match): the call is a site; got {decision.verdict.value}")


def test_a_consensus_decorator_nothing_carries_is_stale(make_pkg):
    report = _report(make_pkg, "if time.monotonic() > 3:\n                self.cache.evict(1)",
                     consensus='["rank_consensus", "never_used"]')
    found = [(f.kind, f.subject, f.status) for f in report.declarations]
    assert found == [("consensus", "never_used", "stale")], (
        f"a consensus decorator no function the audit entered carries is stale (and the one "
        f"in use is not); got {found}")
    assert report.declarations[0].where.endswith("pyproject.toml:3"), (
        f"the finding names the config line; got {report.declarations[0].where!r}")


def test_a_consensus_entry_may_name_its_group(make_pkg):
    body = "if self.pp_rank == 0:\n                self.cache.evict(1)"
    world = _decision(_report(make_pkg, body), "self.pp_rank == 0")
    assert world.verdict is Verdict.RANK_LOCAL, (
        f"a plain consensus entry is over every rank: the PP rank differs between them, so "
        f"it is RANK-LOCAL; got {world.verdict.value}: {world.why}")
    report = _report(make_pkg, body, consensus='[{ decorator = "rank_consensus", group = "tp" }]')
    sites = [(s.call, s.group, s.dim) for s in report.sites]
    assert ("self.cache.evict", "tp", "tp") in sites, (
        f"an entry with group = \"tp\" makes the call a site over the TP group (shown as "
        f"its group, never as WORLD); got {sites}")
    decision = _decision(report, "self.pp_rank == 0")
    assert decision.verdict is Verdict.UNIFORM, (
        f"over a TP group the PP rank is the same on every rank: UNIFORM; got "
        f"{decision.verdict.value}: {decision.why}")


def test_a_bad_consensus_entry_is_a_config_error_at_its_line(config_errors):
    errors = config_errors('[tool.deskcheck.uniformity]\nroots = ["step"]\n'
                           'consensus = [{ group = "mp" }, 3]\n')
    assert len(errors) == 2 and all(where.endswith("pyproject.toml:3") for where, _m in errors), (
        f"a table without 'decorator' and a number are two errors, each at the line of "
        f"consensus; got {errors}")


def test_a_consensus_call_on_an_annotated_parameter_is_a_site(make_pkg):
    for body in ("if time.monotonic() > 3:\n                self.drain(self.cache)",
                 "if time.monotonic() > 3:\n                drain(self.cache)"):
        report = _report(make_pkg, body)
        sites = [s.call for s in report.sites]
        assert "cache.evict" in sites, (
            f"`cache.evict(1)` on a parameter annotated `cache: Cache` calls the consensus "
            f"method Cache.evict (resolved through the annotation): it is a site too (set "
            f"CN28 06: only calls the first resolution finds were made sites); got {sites}")
        decision = _decision(report, "time.monotonic() > 3")
        assert decision.verdict is Verdict.RANK_LOCAL, (
            f"the clock decides whether the consensus call through the parameter runs: "
            f"RANK-LOCAL; got {decision.verdict.value}: {decision.why}")


def test_consensus_written_as_one_string_is_an_error(config_errors):
    errors = config_errors('[tool.deskcheck.uniformity]\nconsensus = "rank_consensus"\n')
    assert any("consensus must be a list" in m and where.endswith(":2") for where, m in errors), (
        f"consensus is a list like every other pattern key: one string is an error at its "
        f"line; got {errors}")


def test_a_decorated_function_with_a_long_body_is_read_like_a_short_one(make_pkg):
    report = _report(make_pkg, "if time.monotonic() > 3:\n                self.cache.evict_long(1)")
    assert "self.cache.evict_long" in [s.call for s in report.sites], (
        f"Cache.evict_long carries @rank_consensus and has a body of two lines: its call is a "
        f"collective site like a one-line function's (the decorators of a body parsed apart "
        f"from its file were lost); got sites {[s.call for s in report.sites]}")
    report = _report(make_pkg, "if self.cache.ready_long():\n"
                               "                dist.barrier(group=self.group)")
    decision = _decision(report, "self.cache.ready_long()")
    assert decision.verdict is Verdict.SANCTIONED, (
        f"Cache.ready_long carries @rank_consensus(same_results=True) over a two-line body: "
        f"its return is SANCTIONED by the claim as a one-line function's is; got "
        f"{decision.verdict.value}: {decision.why}")
