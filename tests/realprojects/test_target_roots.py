"""Issue 14, case 5: a target outside the project's own source is refused at validation.

``json:dumps`` passed validation, then killed the sweep (deskcheck and pytest use ``json``
themselves): INTERNALERROR ``KeyError: '?'`` and a false "could not collect". A mutant of the
standard library, of an installed package or of deskcheck itself judges the tools, not the
project's tests.
"""

from __future__ import annotations

from pathlib import Path

from tests.realprojects.project import deskcheck, make_project

CATALOG = """\
[[mutant]]
id = "own.ok"
title = "the project's own code: allowed"
target = "userpkg.decide:admit"
operator = "swap"
old = ">="
new = ">"
owners = ["tests/test_decide.py"]

[[mutant]]
id = "stdlib.json"
title = "the standard library"
target = "json:dumps"
operator = "return"
value = "'{}'"
owners = ["tests/test_decide.py"]

[[mutant]]
id = "installed.iniconfig"
title = "an installed package"
target = "iniconfig:IniConfig.get"
operator = "return"
value = "None"
owners = ["tests/test_decide.py"]

[[mutant]]
id = "tool.deskcheck"
title = "deskcheck itself"
target = "deskcheck.mutants.source:scope_path_of"
operator = "return"
value = "()"
owners = ["tests/test_decide.py"]
"""
FILES = {
    "userpkg/decide.py": """\
        import json


        def admit(free, need):
            return free >= need


        def dump(value):
            return json.dumps(value)
        """,
    "tests/test_decide.py": """\
        from userpkg.decide import admit, dump


        def test_admit():
            assert admit(5, 5)
            assert not admit(4, 5)
            assert dump([1]) == "[1]"
        """,
    "mutants.toml": CATALOG,
}


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_targets_outside_the_project_are_refused_with_file_line_and_why(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", FILES)
    done = deskcheck(project, "sweep", "--catalog", "mutants.toml", "--no-store",
                     "--workers", "1")
    output = done.stdout + done.stderr
    assert done.returncode == 2, f"out-of-project targets are a catalog error (2):\n{output}"
    assert "INTERNALERROR" not in output and "KeyError" not in output, output
    catalog = str(project / "mutants.toml")
    for mutant_id, why in (("stdlib.json", "standard library"),
                           ("installed.iniconfig", "installed package"),
                           ("tool.deskcheck", "deskcheck's own code")):
        header = _line_of(CATALOG, f'id = "{mutant_id}"') - 1  # its [[mutant]] line
        where = f"{catalog}:{header}"
        lines = [line for line in output.splitlines() if mutant_id in line]
        assert lines, f"{mutant_id} is not named among the errors:\n{output}"
        assert any(why in line for line in lines), (
            f"{mutant_id}: the error says why ({why!r}):\n{output}")
        assert where in output, f"{mutant_id}: the error names its catalog line {where}:\n{output}"
    assert "'own.ok'" not in output, f"the project's own target is accepted:\n{output}"
    assert "KILLED" not in output, f"nothing runs after a catalog error:\n{output}"
