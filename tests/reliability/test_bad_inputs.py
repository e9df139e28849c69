"""Items 6-8: a catalog with non-UTF-8 bytes or a BOM, wrongly typed and unknown
``[tool.deskcheck]`` keys, ``deskcheck init`` in a read-only project. Each is exit 2 with
``file:line`` and the fix, no traceback, nothing run and nothing written."""

from __future__ import annotations

import pytest

from tests.reliability.battery import CATALOG, Bench
from tests.reliability.readonly import read_only

pytestmark = pytest.mark.xdist_group("reliability-inputs")


def _refused(done, *words: str) -> None:
    out = done.stdout + done.stderr
    assert "Traceback" not in out, f"a traceback instead of an error:\n{out}"
    assert done.returncode == 2, f"exit {done.returncode}, expected 2:\n{out}"
    missing = [w for w in words if w not in done.stderr]
    assert not missing, f"the error does not say {missing}:\n{done.stderr}"
    assert "fix:" in done.stderr, f"the error gives no fix:\n{done.stderr}"


def test_a_catalog_with_non_utf8_bytes_is_a_file_line_error(bench: Bench) -> None:
    text = CATALOG.replace('title = "total adds one"', 'title = "total adds one \xe9"')
    bench.write({"mutants.toml": text.encode("latin-1")})
    bench.commit("a latin-1 catalog")
    bench.snapshot()
    line = text.splitlines().index('title = "total adds one \xe9"') + 1
    done = bench.run("sweep", "--no-store")
    _refused(done, f"mutants.toml:{line}", "not UTF-8", "0xe9")


def test_a_catalog_with_a_bom_says_bom(bench: Bench) -> None:
    bench.write({"mutants.toml": b"\xef\xbb\xbf" + CATALOG.encode()})
    bench.commit("a catalog with a BOM")
    bench.snapshot()
    _refused(bench.run("sweep", "--no-store"), "mutants.toml:1", "byte-order mark (BOM)")


@pytest.mark.parametrize(("line", "words"), [
    ("catalog = 5", "catalog = 5 has the wrong type"),
    ('store = ["x"]', "store = ['x'] has the wrong type"),
    ('catalgo = "mutants.toml"', "unknown key 'catalgo'; did you mean 'catalog'?"),
])
@pytest.mark.parametrize("command", [("sweep", "--no-store"), ("results",), ("history",)])
def test_a_bad_deskcheck_key_is_a_pyproject_line_error(
        bench: Bench, line: str, words: str, command: tuple[str, ...]) -> None:
    bench.write({"pyproject.toml": f'[project]\nname = "k"\n\n[tool.deskcheck]\n{line}\n'})
    bench.commit("a bad key")
    bench.snapshot()
    _refused(bench.run(*command), "pyproject.toml:5", words)


def test_every_bad_key_is_reported_in_one_pass(bench: Bench) -> None:
    bench.write({"pyproject.toml": '[tool.deskcheck]\ncatalog = 5\nstore = ["x"]\n'
                                   'harnessses = ["tests"]\n'})
    bench.commit("three bad keys")
    bench.snapshot()
    _refused(bench.run("sweep", "--no-store"), "pyproject.toml:2", "pyproject.toml:3",
             "pyproject.toml:4", "did you mean 'harnesses'?")


def test_init_in_a_read_only_project_is_a_clear_error(bench: Bench) -> None:
    bench.write({"pyproject.toml": '[project]\nname = "k"\n'})
    bench.commit("no deskcheck section")
    bench.snapshot()
    with read_only(bench.root / "pyproject.toml", bench.root):
        done = bench.run("init")
    _refused(done, "read-only", str(bench.root / "pyproject.toml"), "nothing was written")
    assert not (bench.root / ".github").exists(), "init wrote workflows before it failed"
