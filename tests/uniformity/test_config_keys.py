"""The keys of ``[tool.deskcheck.uniformity]`` that change a verdict or a group dimension:
rank_local, config, groups, forward; each ignored fails here, with the key named."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import audit

SRC = {"u.py": """
    class S:
        def __init__(self, thing):
            self.mystery = thing
        def step(self):
            if self.mystery.value():
                dist.barrier(group=self.tp_group)
        def grid(self):
            if self.server_args.on:
                dist.barrier(group=self.my_cpu_group)
        def fwd(self):
            if self.server_args.on:
                self.relay(1)
"""}


def _decisions(make_pkg, table: str) -> list[tuple[str, str, list[str], list[str]]]:
    root = make_pkg(SRC, "[tool.deskcheck.uniformity]\n" + table)
    report = audit("pkg.u:S", root=root).to_json()
    return [(d["function"], d["verdict"], [c["dim"] for c in d["collectives"]],
             [c["kind"] for c in d["collectives"]]) for d in report["decisions"]]


@pytest.mark.parametrize("key, verdict", [("rank_local", "RANK-LOCAL"), ("config", "UNIFORM")])
def test_a_declared_input_class_decides_the_verdict(make_pkg, key, verdict):
    before = {d[1] for d in _decisions(make_pkg, 'roots = ["step"]\n')}
    after = {d[1] for d in _decisions(make_pkg, f'roots = ["step"]\n{key} = ["self.mystery*"]\n')}
    assert (before, after) == ({"UNKNOWN"}, {verdict}), (
        f"expected self.mystery's decision UNKNOWN undeclared and {verdict} with {key} = "
        f'["self.mystery*"], got {before} then {after}')


def test_groups_names_the_dimension_of_a_group_expression(make_pkg):
    before = {d[2][0] for d in _decisions(make_pkg, 'roots = ["grid"]\n')}
    after = {d[2][0] for d in _decisions(
        make_pkg, 'roots = ["grid"]\ngroups = { "self.my_cpu_group" = "pp" }\n')}
    assert (before, after) == ({"world"}, {"pp"}), (
        "expected self.my_cpu_group's barrier in the world dimension by default and pp with "
        f"groups = {{ \"self.my_cpu_group\" = \"pp\" }}, got {before} then {after}")


def test_forward_makes_a_call_a_collective_site(make_pkg):
    before = _decisions(make_pkg, 'roots = ["fwd"]\n')
    after = _decisions(make_pkg, 'roots = ["fwd"]\nforward = ["self.relay"]\n')
    assert before == [] and after and all(d[3] == ["forward"] for d in after), (
        "expected no gating decision while self.relay is unknown and a decision gating a "
        f"forward site with forward = [\"self.relay\"], got {before} then {after}")


def test_every_bad_entry_is_named_in_one_pass_with_its_line_and_fix(tmp_path):
    from deskcheck.errors import ConfigError
    from deskcheck.uniformity import load_uniformity_config

    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.deskcheck.uniformity]\nroots = ["step"]\nbogus = 1\n\n'
                    '[[tool.deskcheck.uniformity.agreed]]\nfield = "self.budget"\n\n'
                    '[[tool.deskcheck.uniformity.role]]\ncondition = "self.tp_rank == 0"\n')
    with pytest.raises(ConfigError) as info:
        load_uniformity_config(path)
    found = [(e.location, e.message.split(" ")[0], bool(e.fix)) for e in info.value.errors]
    assert [(loc, bool(fix)) for loc, _w, fix in found] == [
        (f"{path}:3", True), (f"{path}:6", True), (f"{path}:9", True)], (
        "a [tool.deskcheck.uniformity] table with an unknown key (line 3), an agreed entry "
        "lacking its collective (line 6) and a role lacking its why (line 9) must name all "
        f"three in one pass, each at its file:line with a fix; it named {found}")
    assert info.value.exit_code == 2, f"a config error exits 2; it exits {info.value.exit_code}"


def test_an_empty_roots_list_falls_back_to_the_event_loops(make_pkg):
    root = make_pkg({"u.py": """
        class S:
            def event_loop_normal(self):
                if self.server_args.on:
                    dist.barrier(group=self.tp_group)
    """}, "[tool.deskcheck.uniformity]\nroots = []\n")
    try:
        found = [d.function for d in audit("pkg.u:S", root=root).decisions]
    except Exception as exc:  # noqa: BLE001 - the message is the finding
        found = [f"{type(exc).__name__}: {exc}"]
    assert found == ["S.event_loop_normal"], (
        "docs/uniformity.md: the root methods are the config roots, else event_loop*; "
        f"`roots = []` names none, so the event loops are the roots; the audit gave {found}")
