"""The terminal report stays readable on a real scheduler (docs/uniformity.md, "Your first
minute"): each finding shows its first three RANK-LOCAL or UNKNOWN inputs, each witness its
first four and last four hops with the count of those left out between, and says how many
inputs it leaves out; ``--verbose``, ``--json`` and ``--markdown`` list them all. On
SGLang's scheduler the terminal printed 231,184 lines (9,440 inputs, every hop of each)."""

from __future__ import annotations

import json

from deskcheck.cli import main

# one decision over five rank-local sources; another over a clock passed through twelve
# locals (a witness of fifteen hops)
CHAIN = "\n".join(f"            a{i} = a{i - 1} + 1" for i in range(1, 12))
SRC = {"s.py": f"""
    import random
    import os

    class S:
        def __init__(self, tp_group, pool):
            self.tp_group = tp_group
            self.pool = pool

        def step(self):
            n = random.random() + self.pool.available_size() + os.getpid()
            n += time.perf_counter() + time.monotonic()
            if n > 3:
                dist.barrier(group=self.tp_group)
            a0 = time.time()
{CHAIN}
            if a11 > 3:
                dist.barrier(group=self.tp_group)
"""}
CFG = "[tool.deskcheck.uniformity]\nroots = [\"step\"]\n"


def _run(capsys, root, *extra: str) -> str:
    main(["uniformity", "pkg.s:S", "--root", str(root), *extra])
    return capsys.readouterr().out


def test_a_finding_shows_three_inputs_and_the_ends_of_each_witness(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    main(["uniformity", "pkg.s:S", "--root", str(root), "--json"])
    decisions = {d["condition"]: d for d in json.loads(capsys.readouterr().out)["decisions"]}
    many = [i for i in decisions["n > 3"]["inputs"] if i["class"] == "RANK-LOCAL"]
    (long,) = [i for i in decisions["a11 > 3"]["inputs"] if i["class"] == "RANK-LOCAL"]
    assert len(many) == 5 and len(long["witness"]) > 8, (
        f"the fixture: five sources for `n > 3`, a witness of over eight hops for `a11 > 3`: "
        f"{len(many)}, {long['witness']}")
    out = _run(capsys, root)
    finding = out[out.index("`n > 3`"):out.index("`a11 > 3`")]
    assert finding.count("  input RANK-LOCAL ") == 3, (
        f"the terminal must show the first three of the finding's five rank-local inputs:\n"
        f"{finding}")
    assert "(+2 more inputs: --verbose, --json or --markdown list them)" in finding, (
        f"the terminal must say how many inputs it left out and where they are:\n{finding}")
    left = len(long["witness"]) - 8
    assert f"    ... ({left} more hops)" in out, (
        f"a witness of {len(long['witness'])} hops must show its first and last four and say "
        f"that {left} hops are left out between them:\n{out}")
    assert long["witness"][-1].split(":", 1)[1] in out and \
        long["witness"][4].split(":", 1)[1] not in out, (
        "the witness's last hop (the source itself) must be shown, its fifth left out:\n"
        f"{out}")


def test_markdown_lists_every_input_and_every_hop(make_pkg, capsys, tmp_path):
    root = make_pkg(SRC, CFG)
    main(["uniformity", "pkg.s:S", "--root", str(root), "--markdown", str(tmp_path / "a.md")])
    capsys.readouterr()
    text = (tmp_path / "a.md").read_text()
    assert text.count("input RANK-LOCAL ") == 6 and "more hops" not in text, (
        f"the Markdown report must list all six inputs with every hop:\n{text}")


def test_verbose_shows_every_input_and_every_hop(make_pkg, capsys):
    root = make_pkg(SRC, CFG)
    out = _run(capsys, root, "--verbose")
    assert out.count("  input RANK-LOCAL ") == 6 and "more hops" not in out \
        and "more inputs" not in out, (
        f"--verbose must list all six inputs with every hop of each witness:\n{out}")


EIGHT = {"s.py": """
    class S:
        def __init__(self, tp_group, limit):
            self.tp_group = tp_group
            self.limit = limit

        def step(self):
            t1 = time.time()
            t2 = t1
            t3 = t2
            t4 = t3
            t5 = t4
            t6 = t5
            t7 = t6
            if t7 > 5 and self.limit:
                dist.barrier(group=self.tp_group)
"""}


def test_a_witness_of_eight_hops_and_a_single_input_are_shown_whole(make_pkg, capsys):
    root = make_pkg(EIGHT, CFG + 'config = ["self.limit"]\n')
    main(["uniformity", "pkg.s:S", "--root", str(root), "--json"])
    (decision,) = json.loads(capsys.readouterr().out)["decisions"]
    failing = [i for i in decision["inputs"] if i["class"] in ("RANK-LOCAL", "UNKNOWN")]
    others = [i for i in decision["inputs"] if i["class"] not in ("RANK-LOCAL", "UNKNOWN")]
    assert len(failing) == 1 and len(failing[0]["witness"]) == 8 and others, (
        f"the fixture: one rank-local input with a witness of eight hops, and a CONFIG "
        f"input beside it: {decision['inputs']}")
    out = _run(capsys, root)
    assert "more hops" not in out, (
        f"a witness of exactly eight hops is not longer than eight: it must be shown whole, "
        f"without a `... (N more hops)` line:\n{out}")
    assert "more inputs" not in out, (
        f"the finding's only rank-local input is shown (its CONFIG input is never listed): "
        f"nothing is left out, so no `(+N more inputs ...)` line:\n{out}")
