"""Declarations: each one sanctions what it names, and each one is checked."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

SRC = {"s.py": """
    class S:
        def step(self):
            self.budget = self._all_reduce_min([self.pool.available_size()])[0]
            self.guess = self.pool.available_size()
            if self.budget > 0:
                dist.barrier(group=self.tp_cpu_group)
            if self.guess > 0:
                dist.barrier(group=self.tp_cpu_group)
            if self.queue:
                dist.barrier(group=self.tp_cpu_group)
            if self.tp_rank == 0:  # deskcheck: role rank 0 writes the trace
                dist.barrier(group=self.tp_cpu_group)
        def _all_reduce_min(self, vals):
            return vals
        def add(self, req):
            self.queue.append(req)
            self.t = self._all_reduce_min([time.monotonic()])[0]  # deskcheck: agreed MIN clock
"""}

BASE = """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = ["self._all_reduce_min"]
"""


def _findings(report):
    return {(f.kind, f.subject, f.status) for f in report.declarations}


def test_declared_sources_are_sanctioned_and_inline_roles_hold(make_pkg):
    root = make_pkg(SRC, BASE + """
[[tool.deskcheck.uniformity.agreed]]
field = "self.budget"
collective = "self._all_reduce_min"
""")
    report = audit("pkg.s:S", root=root)
    by_cond = {d.condition: d for d in report.decisions}
    assert by_cond["self.budget > 0"].verdict is Verdict.SANCTIONED, by_cond["self.budget > 0"].why
    assert by_cond["self.guess > 0"].verdict is Verdict.RANK_LOCAL, (
        "a decision on self.guess, declared nowhere, must be RANK-LOCAL; it is "
        f"{by_cond['self.guess > 0'].verdict}: {by_cond['self.guess > 0'].why}"
    )
    assert by_cond["self.tp_rank == 0"].verdict is Verdict.ROLE, "the inline role was ignored"
    assert report.declarations == [], f"a proven declaration was reported: {report.declarations}"


def test_an_agreed_field_whose_writes_do_not_come_from_its_collective_is_unproven(make_pkg):
    root = make_pkg(SRC, BASE + """
[[tool.deskcheck.uniformity.agreed]]
field = "self.guess"
collective = "self._all_reduce_min"
""")
    report = audit("pkg.s:S", root=root)
    assert _findings(report) == {("agreed", "self.guess", "unproven")}, report.declarations
    assert report.exit_code() == 1, "an unproven declaration must fail the audit"


def test_a_replica_without_its_arm_is_claimed_not_enforced_and_a_stale_one_is_named(make_pkg):
    root = make_pkg(SRC, BASE + """
[[tool.deskcheck.uniformity.replica]]
field = "self.queue"
arm = "tests/test_congruence.py::test_queue_is_a_replica"

[[tool.deskcheck.uniformity.replica]]
field = "self.gone"
arm = "tests/test_congruence.py::test_gone"

[[tool.deskcheck.uniformity.role]]
condition = "self.pp_rank == 0"
why = "no such decision any more"
""")
    report = audit("pkg.s:S", root=root)
    assert _findings(report) == {("replica", "self.queue", "claimed, not enforced"),
                                 ("replica", "self.gone", "stale"),
                                 ("role", "self.pp_rank == 0", "stale")}, report.declarations
    (root / "tests").mkdir()
    (root / "tests" / "test_congruence.py").write_text("def test_queue_is_a_replica():\n    pass\n")
    report = audit("pkg.s:S", root=root)
    assert ("replica", "self.queue", "claimed, not enforced") not in _findings(report), (
        "a replica declaration with a test named for it is enforced, not 'claimed, not enforced'; "
        f"findings: {_findings(report)}"
    )
    queue = next(d for d in report.decisions if d.condition == "self.queue")
    assert queue.verdict is Verdict.SANCTIONED and queue.covered_by == [
        "tests/test_congruence.py::test_queue_is_a_replica"], (queue.verdict, queue.covered_by)


def test_decisions_no_congruence_arm_exercises_are_listed(make_pkg):
    root = make_pkg(SRC, BASE)
    report = audit("pkg.s:S", root=root)
    listed = {d.condition for d in report.unexercised()}
    assert "self.guess > 0" in listed and "self.tp_rank == 0" in listed, listed
    assert "self.budget > 0" not in listed, "an agreed-by-collective decision needs no arm"
    assert report.to_json()["unexercised"], "the JSON lacks the unexercised decisions"


def test_a_replica_component_sanctions_the_reads_made_through_it(make_pkg):
    root = make_pkg(SRC, BASE + """
[[tool.deskcheck.uniformity.replica]]
field = "self.pool"
arm = "tests/test_congruence.py::test_pools_are_replicas"
""")
    (root / "tests").mkdir()
    (root / "tests" / "test_congruence.py").write_text("def test_pools_are_replicas():\n    pass\n")
    report = audit("pkg.s:S", root=root)
    guess = next(d for d in report.decisions if d.condition == "self.guess > 0")
    assert guess.verdict is Verdict.SANCTIONED, (
        f"self.pool.available_size() reads a declared replica, yet: {guess.verdict} {guess.why}")
    assert guess.covered_by == ["tests/test_congruence.py::test_pools_are_replicas"], (
        "the sanctioned decision must be covered by the replica's test; covered_by is "
        f"{guess.covered_by}"
    )


def test_a_declaration_is_stale_only_when_nothing_in_the_code_matches_it(make_pkg):
    root = make_pkg({"s.py": """
        class S:
            def step(self):
                if self.server_args.on:
                    dist.barrier(group=self.tp_cpu_group)
            def other(self):
                if self.tp_rank == 0:
                    self._broadcast_requests([])
            def _broadcast_requests(self, reqs):
                return reqs
    """}, """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = ["self._broadcast_requests", "self._never_called"]
forward = [{ call = "self.model_runner.forward_gone", group = "self.tp_group" }]

[[tool.deskcheck.uniformity.role]]
condition = "self.tp_rank == 0"
why = "rank 0 sends"

[[tool.deskcheck.uniformity.role]]
condition = "self.pp_rank == 7"
why = "gone"
""")
    report = audit("pkg.s:S", root=root)
    assert ("forward", "self.model_runner.forward_gone", "stale") in _findings(report), (
        "a forward declaration that matches no call must be reported stale "
        "(docs/uniformity.md:176); the audit reported only "
        f"{sorted(_findings(report)) or 'nothing'}")
    assert _findings(report) == {("collectives", "self._never_called", "stale"),
                                 ("forward", "self.model_runner.forward_gone", "stale"),
                                 ("role", "self.pp_rank == 7", "stale")}, (
        "auditing one root must not call declarations about the class's other methods stale: "
        f"{report.declarations}")


def test_an_agreed_field_with_no_write_is_stale_not_unproven(make_pkg):
    root = make_pkg(SRC, BASE + """
[[tool.deskcheck.uniformity.agreed]]
field = "self.never_written"
collective = "self._all_reduce_min"
""")
    found = _findings(audit("pkg.s:S", root=root))
    assert found == {("agreed", "self.never_written", "stale")}, (
        "an agreed declaration naming a field no method writes matches nothing in the code: "
        f"docs/uniformity.md calls it stale; the audit reported {sorted(found) or 'nothing'}")


INLINE = {"s.py": """
    class S:
        def step(self):
            self.budget = self.pool.available_size()  # deskcheck: agreed MIN over tp
            self.guess = self.pool.available_size()
            if self.budget > 0:
                dist.barrier(group=self.tp_cpu_group)
            if self.guess > 0:
                dist.barrier(group=self.tp_cpu_group)
"""}


def test_an_inline_agreed_comment_on_the_write_sanctions_that_field_only(make_pkg):
    report = audit("pkg.s:S", root=make_pkg(INLINE, '[tool.deskcheck.uniformity]\nroots = ["step"]\n'))
    verdicts = {d.condition: (d.verdict, d.why) for d in report.decisions}
    assert verdicts["self.budget > 0"][0] is Verdict.SANCTIONED, (
        "`self.budget = ...  # deskcheck: agreed MIN over tp` declares the field agreed on the "
        "line of its write (docs/uniformity.md \"Or inline\"), so a decision on it is "
        f"SANCTIONED; it was {verdicts['self.budget > 0']}")
    assert verdicts["self.guess > 0"][0] is Verdict.RANK_LOCAL, (
        "the inline declaration covers only the field written on its line: self.guess, the "
        f"same pool read without a comment, must stay RANK-LOCAL; it was {verdicts['self.guess > 0']}")


def test_a_replica_arm_naming_a_file_holds_while_the_file_exists(make_pkg):
    table = BASE + """
[[tool.deskcheck.uniformity.replica]]
field = "self.queue"
arm = "tests/test_queue_congruence.py"
"""
    root = make_pkg(SRC, table)
    missing = _findings(audit("pkg.s:S", root=root))
    assert missing == {("replica", "self.queue", "claimed, not enforced")}, (
        "a replica whose arm is a test file that does not exist is 'claimed, not enforced'; "
        f"the audit reported {sorted(missing) or 'nothing'}")
    (root / "tests").mkdir()
    (root / "tests" / "test_queue_congruence.py").write_text("def test_any():\n    pass\n")
    present = _findings(audit("pkg.s:S", root=root))
    assert present == set(), (
        "a replica whose arm names an existing test file (no ::test) is enforced by that file; "
        f"the audit reported {sorted(present)}")


INLINE_PROOF = {"s.py": """
    class S:
        def step(self):
            reduced = self._all_reduce_min([self.pool.available_size()])
            self.budget = reduced[0]  # deskcheck: agreed MIN over tp
            self.guess = self.pool.available_size()  # deskcheck: agreed (a claim, no collective)
            if self.budget > 0:
                dist.barrier(group=self.tp_cpu_group)
            if self.guess > 0:
                dist.barrier(group=self.tp_cpu_group)
            x = 1  # deskcheck: agreed on a line that writes no field
        def _all_reduce_min(self, vals):
            return vals
"""}


def test_an_inline_agreed_is_checked_like_a_table_one(make_pkg):
    """docs/uniformity.md: "Every declaration is checked" covers the inline form too: the
    field written on the comment's line must come from a collective (unproven otherwise), and
    a comment on a line that writes no field matches nothing (stale)."""
    report = audit("pkg.s:S", root=make_pkg(INLINE_PROOF, BASE))
    found = {(f.subject, f.status) for f in report.declarations if f.kind == "agreed"}
    assert ("self.guess", "unproven") in found, (
        "`self.guess = self.pool.available_size()  # deskcheck: agreed ...` is written from a "
        "per-rank pool size, not from a collective: the inline declaration must be reported "
        f"unproven (and fail the audit); the audit reported {sorted(found) or 'nothing'}")
    assert not any(subject == "self.budget" for subject, _s in found), (
        "`self.budget = reduced[0]` comes from the _all_reduce_min collective: its inline "
        f"agreed declaration holds, yet the audit reported {sorted(found)}")
    assert any(status == "stale" and "s.py:" in subject for subject, status in found), (
        "an inline agreed on a line that writes no self field matches nothing: it must be "
        f"reported stale, naming file:line; the audit reported {sorted(found) or 'nothing'}")
    assert report.exit_code() == 1, "an unproven or stale inline declaration must fail the audit"


def test_a_declaration_a_sibling_class_uses_is_not_stale(make_pkg):
    """One project file, one declaration table, two targets (DeepSpeed-MII's MIIPipeline
    and MIIAsyncPipeline): a wrapper only the sibling class calls is in the code; auditing
    the other class must not call it stale. A wrapper no code calls stays stale."""
    root = make_pkg({"s.py": """
        class Base:
            def _bcast_requests(self, reqs):
                return reqs

            def _bcast_responses(self, out):
                return out

            def _bcast_never(self, out):  # defined, never called
                return out


        class Pipeline(Base):
            def step(self):
                if self.server_args.on:
                    self._bcast_requests([])
                    self._bcast_responses([])


        class AsyncPipeline(Base):
            def step(self):
                if self.server_args.on:
                    self._bcast_requests([])
    """}, """
[tool.deskcheck.uniformity]
roots = ["step"]
collectives = ["self._bcast_requests", "self._bcast_responses", "self._bcast_never"]
""")
    report = audit("pkg.s:AsyncPipeline", root=root)
    found = _findings(report)
    assert ("collectives", "self._bcast_responses", "stale") not in found, (
        "`self._bcast_responses` is called by the sibling class Pipeline in the same file: "
        f"the declaration is in use, not stale; findings: {sorted(found)}")
    assert ("collectives", "self._bcast_never", "stale") in found, (
        f"a wrapper no code calls (only defined) must stay stale; findings: {sorted(found)}")


def test_an_agreed_call_a_sibling_class_uses_is_not_stale(make_pkg):
    root = make_pkg({"s.py": """
        class Pipe:
            def step(self):
                if self.server_args.on:
                    dist.barrier(group=self.tp_cpu_group)


        class AsyncPipe:
            def step(self):
                return self.engine.generate_agreed()
    """}, """
[tool.deskcheck.uniformity]
roots = ["step"]

[[tool.deskcheck.uniformity.agreed]]
call = "*.generate_agreed"
collective = "*.generate_agreed"

[[tool.deskcheck.uniformity.agreed]]
call = "*.never_called_agreed"
collective = "*.never_called_agreed"
""")
    found = _findings(audit("pkg.s:Pipe", root=root))
    assert ("agreed", "*.generate_agreed", "stale") not in found, (
        "an agreed call only the sibling class AsyncPipe makes is in use in the files read, "
        f"not stale; findings: {sorted(found)}")
    assert ("agreed", "*.never_called_agreed", "stale") in found, (
        f"an agreed call no code makes must stay stale; findings: {sorted(found)}")
