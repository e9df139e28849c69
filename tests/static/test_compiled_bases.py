"""A base class imported from a compiled extension module of a package under the roots
(``msgspec.Struct``, bound in ``msgspec/__init__.py`` by ``from ._core import Struct``) is an
external base, with a note: the class still builds a static model (SGLang's request records
derive from it), where before it stopped the model with "cannot resolve base"."""

from __future__ import annotations

import pytest

from deskcheck.static import build_model


@pytest.mark.parametrize("suffix", [".cpython-311-x86_64-linux-gnu.so", ".pyd", ".so"])
def test_a_base_from_a_compiled_module_is_external(tmp_path, suffix):
    (tmp_path / "fastlib").mkdir()
    (tmp_path / "fastlib" / "__init__.py").write_text("from ._core import Struct\n")
    (tmp_path / "fastlib" / f"_core{suffix}").write_bytes(b"\x7fELF")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "msgs.py").write_text(
        "import fastlib\n\n\nclass Req(fastlib.Struct, kw_only=True):\n    rid: str = ''\n")
    try:
        model, error = build_model("app.msgs:Req", roots=[tmp_path], mode="static"), ""
    except Exception as exc:  # the defect this guards: "cannot resolve base"
        model, error = None, str(exc)
    assert model is not None, (
        f"`Struct` comes from the compiled module fastlib/_core{suffix}: it must be an "
        f"external base of Req, not stop the model: {error}")
    names = [getattr(k, "qualname", "") for k in model.mro]
    assert "fastlib._core.Struct" in names, (
        f"`Struct` comes from the compiled module fastlib/_core{suffix}: it must be an "
        f"external base of Req; the MRO is {names}")
    assert any("compiled extension" in n for n in model.notes), (
        f"the model must say the base is a compiled extension, not followed: {model.notes}")


def test_a_missing_module_of_a_package_under_the_roots_is_still_an_error(tmp_path):
    (tmp_path / "fastlib").mkdir()
    (tmp_path / "fastlib" / "__init__.py").write_text("from ._core import Struct\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "msgs.py").write_text(
        "import fastlib\n\n\nclass Req(fastlib.Struct):\n    rid: str = ''\n")
    with pytest.raises(Exception, match="cannot resolve base"):
        build_model("app.msgs:Req", roots=[tmp_path], mode="static")


def test_a_missing_module_beside_a_compiled_one_is_still_missing(tmp_path):
    """The compiled-module answer is kept per module: ``fastpkg._core`` being compiled says
    nothing of ``fastpkg.absent``, which does not exist and stays an error."""
    from deskcheck.errors import SourceResolutionError
    from deskcheck.static import StaticIndex

    (tmp_path / "fastpkg").mkdir()
    (tmp_path / "fastpkg" / "__init__.py").write_text("")
    (tmp_path / "fastpkg" / "_core.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (tmp_path / "fastpkg" / "sched.py").write_text(
        "from fastpkg._core import Encoder\nfrom fastpkg.absent import Mixin\n\n"
        "class Scheduler(Encoder, Mixin):\n    pass\n")
    index = StaticIndex([tmp_path])
    klass = index.find_class("fastpkg.sched", "Scheduler")
    with pytest.raises(SourceResolutionError) as raised:
        index.mro(klass)
        pytest.fail("fastpkg.absent does not exist: after fastpkg._core was found compiled, the "
                    "missing module was taken for a compiled one too (the answer kept per "
                    f"package, not per module); notes: {index.notes}")
    assert "absent" in str(raised.value), (
        f"the error must name the missing module fastpkg.absent, got: {raised.value}")
