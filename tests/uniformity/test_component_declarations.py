"""A component whose class nothing in the code says (``self.tree_cache =
result.tree_cache``, a builder's or a registry's result) is declared under ``components``:
docs/uniformity.md "Declaring a component's class". Without a declaration a call on it is
UNKNOWN and the reason gives the key to declare; with one, the declared class's methods are
entered like any component's. A declaration naming no class is an "unknown class" finding, one
matching no field is stale, and a malformed entry is a config error naming its line."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

CACHES = """
    class HiCache:
        def ready(self):
            return time.monotonic() > 5


    class PlainCache:
        def ready(self):
            return True


    class SlowCache:
        def ready(self):
            return time.perf_counter() > 5
"""

SCHEDULER = """
    from pkg.build import build_all


    class Mixin:
        def attach(self, result):
            self.side_cache = result.side_cache


    class Scheduler(Mixin):
        def __init__(self, cfg, group):
            result = build_all(cfg)
            self.tree_cache = result.tree_cache
            self.group = group
            self.attach(result)

        def step(self):
            if READ:
                dist.barrier(group=self.group)
"""


def _report(make_pkg, table: str = "", read: str = "self.tree_cache.ready()"):
    pyproject = '[tool.deskcheck.uniformity]\nroots = ["step"]\n' + table
    root = make_pkg({"caches.py": CACHES, "sched.py": SCHEDULER.replace("READ", read)},
                    pyproject)
    return audit("pkg.sched:Scheduler", root=root)


def _decision(report, read: str = "self.tree_cache.ready()"):
    found = [d for d in report.decisions if d.condition == read]
    assert found, f"`if {read}:` gates the barrier: it must be a decision; got " \
        f"{[d.condition for d in report.decisions]}"
    return found[0]


def test_an_unresolved_component_is_unknown_and_names_the_key_to_declare(make_pkg):
    decision = _decision(_report(make_pkg))
    assert decision.verdict is Verdict.UNKNOWN, (
        f"nothing says which class self.tree_cache holds (a builder's result): a call on it "
        f"must be UNKNOWN, never dropped; got {decision.verdict.value}: {decision.why}")
    assert '"Scheduler.tree_cache" = "<module>:<Class>"' in decision.why \
        and "components" in decision.why, (
        f"the UNKNOWN reason must give the declaration that resolves it (components: "
        f'"Scheduler.tree_cache" = "<module>:<Class>"); got {decision.why!r}')


@pytest.mark.parametrize("key", ["Scheduler.tree_cache", "Sched*.tree_cache", "*.tree_cache"],
                         ids=["exact", "glob_on_the_class", "glob_any_class"])
def test_a_declared_component_class_is_entered(make_pkg, key):
    report = _report(make_pkg, f'components = {{ "{key}" = "pkg.caches:HiCache" }}\n')
    decision = _decision(report)
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"with {key!r} declared as pkg.caches:HiCache, HiCache.ready reads the rank's own "
        f"clock before the barrier: RANK-LOCAL; got {decision.verdict.value}: {decision.why}")
    witness = [h for i in decision.inputs for h in i.witness]
    assert any("caches.py" in h and h.endswith("time.monotonic") for h in witness), (
        f"the witness must go into the declared class's method to the clock; got {witness}")
    assert not report.declarations, (
        f"a declaration that resolves a component is neither stale nor unknown; got "
        f"{[f.to_json() for f in report.declarations]}")


def test_a_declared_class_with_no_rank_local_read_makes_the_decision_uniform(make_pkg):
    decision = _decision(_report(
        make_pkg, 'components = { "Scheduler.tree_cache" = "pkg.caches:PlainCache" }\n'))
    assert decision.verdict is Verdict.UNIFORM, (
        f"PlainCache.ready returns a constant: declared, the decision is UNIFORM (the "
        f"declaration must not only silence the UNKNOWN); got {decision.verdict.value}: "
        f"{decision.why}")


def test_every_class_of_a_list_is_entered(make_pkg):
    decision = _decision(_report(make_pkg, 'components = { "Scheduler.tree_cache" = '
                                           '["pkg.caches:PlainCache", "pkg.caches:SlowCache"] }\n'))
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"a field declared to hold PlainCache or SlowCache: SlowCache.ready's clock makes "
        f"the decision RANK-LOCAL (every class of the list is entered, not the first); got "
        f"{decision.verdict.value}: {decision.why}")
    names = {i.name for i in decision.inputs if i.klass.value == "RANK-LOCAL"}
    assert "time.perf_counter" in names, f"SlowCache's clock must be the input; got {names}"


def test_a_field_written_in_a_base_class_is_declared_by_that_class(make_pkg):
    read = "self.side_cache.ready()"
    decision = _decision(_report(
        make_pkg, 'components = { "Mixin.side_cache" = "pkg.caches:HiCache" }\n', read), read)
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"self.side_cache is written in the base class Mixin: the key Mixin.side_cache "
        f"declares it for Scheduler too (any class of the MRO); got "
        f"{decision.verdict.value}: {decision.why}")


def test_a_declaration_for_another_field_leaves_the_unknown_and_is_stale(make_pkg):
    report = _report(make_pkg, 'components = { "Scheduler.other_cache" = "pkg.caches:HiCache" }\n')
    decision = _decision(report)
    assert decision.verdict is Verdict.UNKNOWN, (
        f"a declaration of Scheduler.other_cache says nothing of self.tree_cache; got "
        f"{decision.verdict.value}: {decision.why}")
    stale = [f for f in report.declarations if f.kind == "components"]
    assert [(f.subject, f.status) for f in stale] == [("Scheduler.other_cache", "stale")], (
        f"a components key that matches no field is stale; got "
        f"{[f.to_json() for f in report.declarations]}")
    assert stale[0].where.endswith("pyproject.toml:3"), (
        f"the finding names the declaration's file:line; got {stale[0].where!r}")
    assert report.exit_code() == 1, "a stale declaration fails the audit (exit 1)"


def test_a_declared_class_that_does_not_exist_is_named(make_pkg):
    report = _report(make_pkg, 'components = { "Scheduler.tree_cache" = "pkg.caches:NoCache" }\n')
    found = [(f.subject, f.status) for f in report.declarations]
    assert found == [("Scheduler.tree_cache", "unknown class")], (
        f"a declared class absent under the roots must be reported as unknown class; got "
        f"{[f.to_json() for f in report.declarations]}")
    assert "pkg.caches:NoCache" in report.declarations[0].detail, (
        f"the finding names the class it could not find; got {report.declarations[0].detail!r}")
    assert report.exit_code() == 1, "an unknown declared class fails the audit (exit 1)"


def test_bad_components_entries_are_reported_together_with_their_lines(config_errors):
    errors = config_errors('[tool.deskcheck.uniformity]\n'
                           'components = { "tree_cache" = "pkg.caches:HiCache", '
                           '"Scheduler.pool" = "HiCache", "Scheduler.x" = [] }\n')
    assert len(errors) == 3, (
        f"a key with no class part, a class not written module:Class and an empty list "
        f"are three problems, reported in one pass; got {errors}")
    assert all(where.endswith("pyproject.toml:2") for where, _m in errors), (
        f"each problem names the line of its entry; got {errors}")
    text = " ".join(m for _w, m in errors)
    assert "Class.field" in text and "module:Class" in text, (
        f"the messages say what to write (Class.field, module:Class); got {errors}")


def test_components_must_be_a_table(config_errors):
    errors = config_errors('[tool.deskcheck.uniformity]\ncomponents = ["Scheduler.tree_cache"]\n')
    assert any("components must map" in m and where.endswith(":2") for where, m in errors), (
        f"components written as a list is an error at its line; got {errors}")


def test_the_documented_declarations_block_declares_a_component(documented_config):
    found = [(c.field, c.classes) for c in documented_config.components]
    assert found == [("Scheduler.tree_cache", ("pkg.mem_cache.radix_cache:RadixCache",))], (
        f"docs/uniformity.md's declaration example must parse and declare the tree cache's "
        f"class under components; it parsed to {found}")
    consensus = [(c.decorator, c.group) for c in documented_config.consensus]
    assert consensus == [("rank_consensus", "mp")], (
        f"docs/uniformity.md's declaration example must parse its consensus entry (a "
        f"decorator and its group); it parsed to {consensus}")


WORKER = """
    from pkg.build import make_cache
    from pkg.caches import HiCache, PlainCache


    class Worker:
        def __init__(self):
            self.cache = make_cache()
            self.known = HiCache()
            self.plain = PlainCache()

        def cache_ready(self):
            return self.cache.ready()

        def known_ready(self):
            return self.known.ready()

        def plain_ready(self):
            return self.plain.ready()


    class Scheduler:
        def __init__(self, group):
            self.worker = Worker()
            self.group = group

        def step(self):
            if READ:
                dist.barrier(group=self.group)
"""


def _worker_report(make_pkg, table: str, read: str):
    pyproject = '[tool.deskcheck.uniformity]\nroots = ["step"]\n' + table
    root = make_pkg({"caches.py": CACHES, "sched.py": WORKER.replace("READ", read)}, pyproject)
    return audit("pkg.sched:Scheduler", root=root)


def test_a_declared_field_of_a_component_is_entered_and_not_stale(make_pkg):
    read = "self.worker.cache_ready()"
    report = _worker_report(make_pkg, 'components = { "Worker.cache" = "pkg.caches:HiCache" }\n',
                            read)
    decision = _decision(report, read)
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"Worker.cache (a field of the scheduler's component, not of the scheduler) declared "
        f"as HiCache: its clock reaches the decision; got {decision.verdict.value}: "
        f"{decision.why}")
    assert not report.declarations, (
        f"a declaration the walk used for a component's field is not stale; got "
        f"{[f.to_json() for f in report.declarations]}")


def test_the_classes_the_code_shows_are_kept_beside_the_declared_ones(make_pkg):
    read = "self.worker.known_ready()"
    report = _worker_report(make_pkg, 'components = { "Worker.known" = "pkg.caches:PlainCache" }\n',
                            read)
    decision = _decision(report, read)
    names = {i.name for i in decision.inputs if i.klass.value == "RANK-LOCAL"}
    assert decision.verdict is Verdict.RANK_LOCAL and "time.monotonic" in names, (
        f"Worker.known is built as HiCache in the code and declared PlainCache: the declared "
        f"class joins the one the code shows, never replaces it, so HiCache's clock still "
        f"makes the decision RANK-LOCAL; got {decision.verdict.value}: {decision.why}")


def test_a_declared_class_is_entered_where_the_code_shows_another(make_pkg):
    read = "self.worker.plain_ready()"
    report = _worker_report(make_pkg, 'components = { "Worker.plain" = "pkg.caches:HiCache" }\n',
                            read)
    decision = _decision(report, read)
    assert decision.verdict is Verdict.RANK_LOCAL, (
        f"Worker.plain is built as PlainCache and declared HiCache: the declared class is "
        f"entered even where the code shows another (set CX28 03: declarations used only "
        f"when the code shows no class), so HiCache's clock makes it RANK-LOCAL; got "
        f"{decision.verdict.value}: {decision.why}")


def test_one_missing_class_of_a_list_is_named(make_pkg):
    report = _report(make_pkg, 'components = { "Scheduler.tree_cache" = '
                               '["pkg.caches:HiCache", "pkg.caches:NoCache"] }\n')
    found = [(f.subject, f.status) for f in report.declarations]
    assert found == [("Scheduler.tree_cache", "unknown class")], (
        f"one class of the list absent under the roots is an unknown class finding, even "
        f"when another exists (set CX28 04: reported only when every class is missing); got "
        f"{[f.to_json() for f in report.declarations]}")
    detail = report.declarations[0].detail
    assert "pkg.caches:NoCache" in detail and "HiCache" not in detail, (
        f"the finding names the missing class only; got {detail!r}")


def test_a_glob_key_for_a_field_of_the_class_is_not_stale_where_the_roots_skip_it(make_pkg):
    read = "self.group is not None"
    report = _report(make_pkg, 'components = { "*.tree_cache" = "pkg.caches:HiCache" }\n', read)
    assert not [f for f in report.declarations if f.kind == "components"], (
        f"roots that never call on self.tree_cache still audit a class that writes it: the "
        f"glob key *.tree_cache matches that field, so it is not stale (set CX28 05: the "
        f"class's fields compared by exact text); got "
        f"{[f.to_json() for f in report.declarations]}")
