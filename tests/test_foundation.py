"""Foundation: the package imports without torch, the plugin and CLI dispatchers load every part."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import deskcheck
from deskcheck import cli, pytest_plugin

# A meta-path finder that makes ``import torch`` fail exactly as in a venv without torch.
_BLOCK_TORCH = textwrap.dedent(
    """
    import importlib.abc, sys
    class _NoTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    sys.meta_path.insert(0, _NoTorch())
    for mod in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[mod]
    """
)


def _all_deskcheck_modules() -> list[str]:
    names = ["deskcheck"]
    for info in pkgutil.walk_packages(deskcheck.__path__, prefix="deskcheck."):
        names.append(info.name)
    return sorted(names)


def _run_without_torch(body: str) -> subprocess.CompletedProcess[str]:
    code = _BLOCK_TORCH + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_torch_blocker_really_blocks_torch() -> None:
    """Can-fail arm of the next test: with the blocker, importing torch itself must fail."""
    proc = _run_without_torch("import torch\n")
    assert proc.returncode != 0, (
        f"with the torch blocker, import torch must fail; it exited {proc.returncode}"
    )
    assert "No module named 'torch'" in proc.stderr, (
        f"the blocker must raise No module named 'torch'; stderr: {proc.stderr[-2000:]}"
    )


def test_every_deskcheck_module_imports_without_torch() -> None:
    modules = _all_deskcheck_modules()
    assert "deskcheck.cli" in modules and "deskcheck.pytest_plugin" in modules, (
        "the module list must hold deskcheck.cli and deskcheck.pytest_plugin; it holds "
        f"{sorted(modules)[:20]}"
    )
    proc = _run_without_torch(
        f"""
        import importlib
        failed = []
        for name in {modules!r}:
            try:
                importlib.import_module(name)
            except Exception as exc:
                failed.append(f"{{name}}: {{type(exc).__name__}}: {{exc}}")
        assert "torch" not in sys.modules, "a deskcheck module imported torch at import time"
        print("\\n".join(failed))
        sys.exit(1 if failed else 0)
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cli_help_lists_parts_without_torch() -> None:
    proc = _run_without_torch(
        """
        from deskcheck.cli import main
        try:
            main(["--help"])
        except SystemExit as exc:
            sys.exit(exc.code)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "deskcheck" in proc.stdout, (
        f"deskcheck --help without torch must list the parts; it printed:\n{proc.stdout}"
    )


def test_pytest11_entry_point_names_the_plugin() -> None:
    from importlib.metadata import entry_points

    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("deskcheck") == "deskcheck.pytest_plugin", (
        "the pytest11 entry point deskcheck must name deskcheck.pytest_plugin; it names "
        f"{plugins.get('deskcheck')!r}"
    )
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("deskcheck") == "deskcheck.cli:main", (
        "the console script deskcheck must be deskcheck.cli:main; it is "
        f"{scripts.get('deskcheck')!r}"
    )


def test_plugin_dispatcher_registers_each_existing_part(pytestconfig: pytest.Config) -> None:
    manager = pytestconfig.pluginmanager
    assert manager.has_plugin("deskcheck"), "the pytest11 entry point did not load"
    for name in pytest_plugin.PLUGIN_MODULES:
        if pytest_plugin._load(name) is not None:
            assert manager.has_plugin(name), f"{name} exists but was not registered"


def test_cli_dispatcher_errors_are_rendered_with_exit_code(capsys, monkeypatch) -> None:
    from deskcheck.errors import ConfigError

    def boom(args):
        raise ConfigError("bad entry", location="mutants.toml:3", fix="add an owner")

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    probe = sub.add_parser("probe-error")
    probe.set_defaults(func=boom)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    assert cli.main(["probe-error"]) == 2, (
        f"a ConfigError raised by a part must make the CLI exit 2; it said:\n{capsys.readouterr()}"
    )
    err = capsys.readouterr().err
    assert "mutants.toml:3: bad entry" in err and "fix: add an owner" in err, (
        f"the CLI must render the error as location: message and fix:; stderr {err!r}"
    )


def test_config_error_names_pyproject_line(tmp_path) -> None:
    from deskcheck.config import load_config
    from deskcheck.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text("[tool.deskcheck]\ncatalog = \n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert "pyproject.toml:2" in info.value.render(), (
        f"a config error must name pyproject.toml:2; it says {info.value.render()!r}"
    )


def test_config_reads_tool_deskcheck(tmp_path) -> None:
    from deskcheck.config import load_config

    (tmp_path / "pyproject.toml").write_text('[tool.deskcheck]\ncatalog = "m.toml"\n')
    (tmp_path / "sub").mkdir()
    config = load_config(tmp_path / "sub")
    assert config.root == tmp_path.resolve(), (
        f"the config root must be the folder holding pyproject.toml, {tmp_path.resolve()}; it is "
        f"{config.root}"
    )
    assert config.path("catalog") == tmp_path.resolve() / "m.toml", (
        f"catalog must resolve against the config root; it is {config.path('catalog')}"
    )


def test_the_torch_extra_brings_numpy():
    """Issue 32: without numpy, torch warns "Failed to initialize NumPy" on every run; the
    [torch] extra must install it beside torch."""
    import re
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    extra = project["project"]["optional-dependencies"]["torch"]
    names = {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in extra}
    assert {"torch", "numpy"} <= names, f"the [torch] extra is {extra}: numpy is missing"


def test_a_pyproject_with_a_bom_or_non_utf8_bytes_is_a_pyproject_line_error(tmp_path) -> None:
    from deskcheck.config import load_config
    from deskcheck.errors import ConfigError

    pyproject = tmp_path / "pyproject.toml"
    cases = [(b"\xef\xbb\xbf[tool.deskcheck]\ncatalog = 'm.toml'\n", 1, "byte-order mark"),
             ("[tool.deskcheck]\n# caf\xe9\ncatalog = 'm.toml'\n".encode("latin-1"), 2,
              "is not UTF-8")]
    for data, line, words in cases:
        pyproject.write_bytes(data)
        try:
            load_config(tmp_path)
        except ConfigError as error:
            rendered, code = error.render(), error.exit_code
        else:
            rendered, code = "no error: the file was read", None
        assert f"pyproject.toml:{line}" in rendered and words in rendered \
            and "fix:" in rendered and code == 2, (
                f"README: a pyproject.toml that is not UTF-8 or starts with a BOM is "
                f"pyproject.toml:LINE and the fix, exit 2; for {data[:20]!r} (line {line}, "
                f"'{words}') the outcome was exit {code}: {rendered!r}")


def test_the_nearest_pyproject_is_the_current_folders_own_before_a_parents(tmp_path: Path) -> None:
    """docs/report.md: the store is the project's the command runs in, "the nearest
    `pyproject.toml` above the current folder": the current folder's own counts first."""
    from deskcheck.config import find_pyproject

    (tmp_path / "pyproject.toml").write_text("[tool.deskcheck]\n", encoding="utf-8")
    inner = tmp_path / "service"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.deskcheck]\n", encoding="utf-8")
    (inner / "src").mkdir()
    got = find_pyproject(inner)
    assert got == inner / "pyproject.toml", (
        "run at a project root, deskcheck must read that folder's own pyproject.toml, not a "
        f"parent project's: find_pyproject({inner}) gave {got}")
    got_below = find_pyproject(inner / "src")
    assert got_below == inner / "pyproject.toml", (
        "from a folder without one, the nearest pyproject.toml above is the project's: "
        f"find_pyproject({inner / 'src'}) gave {got_below}")
