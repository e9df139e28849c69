"""``same_params`` on a consensus decorator (docs/uniformity.md "Consensus decorators"):
SGLang's ``@rank_consensus(same_params=...)`` claims the arguments of every call are the same
on every rank (``True``: every parameter; a list names the parameters, an attribute of one
``"req.rid"``, or a length ``"len(tokens)"``). A decision inside the function on a claimed
parameter is SANCTIONED by the claim and names the decorator; a parameter, attribute or
length the claim leaves out is traced back to the callers as before."""

from __future__ import annotations

from deskcheck.uniformity import InputClass, Verdict, audit

CHECKER = """
    def rank_consensus(func=None, *, same_params=None, same_results=None):
        if func is not None:
            return func
        return lambda f: f
"""

SCHEDULER = """
    import time
    import torch.distributed as dist
    from pkg.checker import rank_consensus


    class Cache:
        def __init__(self):
            self.last = time.time()

        @rank_consensus(same_params=True)
        def through_self(self, n):
            owner = self
            if owner.last > n:
                dist.barrier()

        @rank_consensus(same_params=True)
        def every(self, n, flag):
            if n > 3:
                dist.barrier()
            if flag:
                dist.barrier()

        @rank_consensus(same_params=["n"])
        def named(self, n, m):
            if n > 3:
                dist.barrier()
            if m > 3:
                dist.barrier()

        @rank_consensus(same_params=["req.rid"])
        def attribute(self, req):
            if req.rid:
                dist.barrier()
            if req.clock:
                dist.barrier()

        @rank_consensus(same_params=["len(tokens)"])
        def length(self, tokens):
            if len(tokens) > 2:
                dist.barrier()
            if tokens[0] > 2:
                dist.barrier()

        @rank_consensus(same_results=True)
        def results_only(self, n):
            if n > 3:
                dist.barrier()


    class Req:
        def __init__(self):
            self.rid = time.time()
            self.clock = time.time()


    class Scheduler:
        def __init__(self):
            self.cache = Cache()

        def step(self):
            now = time.time()
            req = Req()
            self.cache.every(now, now > 1)
            self.cache.through_self(3)
            self.cache.named(now, now)
            self.cache.attribute(req)
            self.cache.length([now] * int(now))
            self.cache.results_only(now)
"""


def _decisions(make_pkg) -> dict[tuple[str, str], object]:
    pyproject = '[tool.deskcheck.uniformity]\nroots = ["step"]\nconsensus = ["rank_consensus"]\n'
    root = make_pkg({"checker.py": CHECKER, "sched.py": SCHEDULER}, pyproject)
    report = audit("pkg.sched:Scheduler", root=root)
    return {(d.function.rsplit(".", 1)[-1], d.condition): d for d in report.decisions}


def _expect(found, function: str, condition: str, verdict: Verdict, why: str):
    d = found.get((function, condition))
    assert d is not None, (f"`{condition}` in Cache.{function} gates a barrier: it must be a "
                           f"decision; the audit found {sorted(found)}")
    assert d.verdict is verdict, (f"Cache.{function}: `{condition}` {why}; expected "
                                  f"{verdict.value}, got {d.verdict.value}: {d.why}")
    return d


def test_same_params_true_claims_every_parameter(make_pkg):
    found = _decisions(make_pkg)
    for condition in ("n > 3", "flag"):
        d = _expect(found, "every", condition, Verdict.SANCTIONED,
                    "reads a parameter claimed the same on every rank by same_params=True")
        sanctioned = [i for i in d.inputs if i.klass is InputClass.SANCTIONED]
        assert sanctioned and "same_params=True" in sanctioned[0].reason, (
            f"the sanctioned input should name the decorator that claims it; inputs: "
            f"{[(i.name, i.klass.value, i.reason) for i in d.inputs]}")


def test_a_list_claims_only_the_parameters_it_names(make_pkg):
    found = _decisions(make_pkg)
    _expect(found, "named", "n > 3", Verdict.SANCTIONED, "reads `n`, named by same_params")
    _expect(found, "named", "m > 3", Verdict.RANK_LOCAL,
            "reads `m`, which same_params=[\"n\"] leaves out and every caller passes a clock")


def test_an_attribute_selector_claims_that_attribute_only(make_pkg):
    found = _decisions(make_pkg)
    _expect(found, "attribute", "req.rid", Verdict.SANCTIONED,
            "reads req.rid, claimed by same_params=[\"req.rid\"]")
    _expect(found, "attribute", "req.clock", Verdict.RANK_LOCAL,
            "reads req.clock, another attribute of the claimed parameter (a clock)")


def test_a_length_selector_claims_the_length_only(make_pkg):
    found = _decisions(make_pkg)
    _expect(found, "length", "len(tokens) > 2", Verdict.SANCTIONED,
            "reads len(tokens), claimed by same_params=[\"len(tokens)\"]")
    _expect(found, "length", "tokens[0] > 2", Verdict.RANK_LOCAL,
            "reads an element's content, which a length claim leaves out")


def test_same_results_claims_no_parameter(make_pkg):
    found = _decisions(make_pkg)
    _expect(found, "results_only", "n > 3", Verdict.RANK_LOCAL,
            "reads a parameter of a function that claims only its results")


def test_same_params_true_never_claims_self(make_pkg):
    found = _decisions(make_pkg)
    d = _expect(found, "through_self", "owner.last > n", Verdict.RANK_LOCAL,
                "reads a field of self (a clock) through a local bound to self: same_params=True "
                "claims the arguments, never the object called on (set SP29 02)")
    assert any(i.klass is InputClass.RANK_LOCAL and i.name == "time.time" for i in d.inputs), (
        f"the rank-local input is the clock self.last is written from; inputs: "
        f"{[(i.name, i.klass.value) for i in d.inputs]}")
