"""module_name_for: a folder without __init__.py inside a regular package is a PEP 420 namespace
portion of it (SGLang: sglang/__init__.py exists, sglang/srt/ has none), not an import root.
Taking it for one gave `sweep --auto` the module name `scheduler_components.idle_sleeper`
(every mutant injected into a phantom copy: all SURVIVED) and put sglang/srt/entrypoints on
PYTHONPATH, where its `openai` subpackage shadowed the real openai package."""

from __future__ import annotations

from pathlib import Path

from deskcheck.mutants.auto.locate import module_name_for


def _tree(root: Path, *files: str) -> None:
    for file in files:
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        (root / file).write_text("")


def test_a_namespace_folder_inside_a_package_belongs_to_it(tmp_path):
    _tree(tmp_path, "sglang/__init__.py", "sglang/srt/managers/scheduler_components/__init__.py",
          "sglang/srt/managers/scheduler_components/idle_sleeper.py",
          "sglang/srt/entrypoints/openai/__init__.py", "sglang/srt/entrypoints/openai/protocol.py")
    name, root = module_name_for(tmp_path, "sglang/srt/managers/scheduler_components/idle_sleeper.py")
    assert (name, root) == ("sglang.srt.managers.scheduler_components.idle_sleeper", tmp_path), \
        f"sglang/srt (no __init__.py) inside the regular package sglang was taken for an " \
        f"import root: {name} from {root}"
    name, root = module_name_for(tmp_path, "sglang/srt/entrypoints/openai/protocol.py")
    assert (name, root) == ("sglang.srt.entrypoints.openai.protocol", tmp_path), \
        f"sglang/srt/entrypoints would go on PYTHONPATH and shadow `openai`: {name} from {root}"


def test_folders_outside_any_package_stay_import_roots(tmp_path):
    _tree(tmp_path, "test/registered/unit/managers/test_x.py", "src/pkg/__init__.py",
          "src/pkg/mod.py", "pkg2/__init__.py", "pkg2/sub/__init__.py", "pkg2/sub/m.py")
    assert module_name_for(tmp_path, "test/registered/unit/managers/test_x.py") == \
        ("test_x", tmp_path / "test/registered/unit/managers"), \
        "a test folder with no package above it is its own import root"
    assert module_name_for(tmp_path, "src/pkg/mod.py") == ("pkg.mod", tmp_path / "src"), \
        "src/ has no package above it: the src layout's import root is src/"
    assert module_name_for(tmp_path, "pkg2/sub/m.py") == ("pkg2.sub.m", tmp_path), (
        "pkg2/sub/m.py inside the packages pkg2.sub must be module pkg2.sub.m from the root; got "
        f"{module_name_for(tmp_path, 'pkg2/sub/m.py')}"
    )


def test_an_installed_package_outside_the_root_is_named_the_same_way(tmp_path):
    site, project = tmp_path / "site-packages", tmp_path / "project"
    _tree(site, "sglang/__init__.py", "sglang/srt/entrypoints/openai/__init__.py",
          "sglang/srt/entrypoints/openai/protocol.py")
    project.mkdir()
    rel = "../site-packages/sglang/srt/entrypoints/openai/protocol.py"
    assert module_name_for(project, rel) == ("sglang.srt.entrypoints.openai.protocol", site), \
        "a measured file of an installed package (standins --run) got a namespace folder as " \
        "its import root"
