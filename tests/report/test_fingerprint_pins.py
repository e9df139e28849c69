"""The fingerprints' encoding is pinned (docs/report.md, *Incremental sweeps*): the canonical
JSON text and the fingerprints of fixed inputs do not change unnoticed."""

from __future__ import annotations

from pathlib import Path

from deskcheck.report.fingerprint import canonical_json, config_fingerprint, mutant_fingerprint

OWNER_TEST = "def test_x():\n    assert True\n"


TARGET = "def f():\n    return 1\n"


def test_canonical_json_is_one_compact_text_per_value():
    text = canonical_json({"b": {1, "a"}, "a": (Path("x/y"), "é")})
    assert text == '{"a":["x/y","é"],"b":["a",1]}', (
        f"the canonical encoding changed (spacing, key order, set order, paths or non-ASCII): "
        f"{text}")


def test_fingerprints_are_pinned(tmp_path):
    owner = tmp_path / "test_x.py"
    owner.write_text(OWNER_TEST)
    got = mutant_fingerprint({"id": "m1", "owners": ["t.py::x"]}, TARGET, [owner], "0.1.0")
    assert got == "a0784ded65de2b8d45918465fd383880f0f263ce0bf2e54d702dd7fefc8c3688", (
        "the mutant fingerprint of fixed inputs changed: every stored verdict would silently "
        "stop being reused (bump FINGERPRINT_SCHEME when that is meant)")
    config = config_fingerprint({"catalog": "mutants.toml"}, owner)
    assert config == "1f2f31558bc6ac3040ab482ad6bfa3368077892dde319b30719b4c3059626a21", (
        "the config fingerprint of fixed inputs changed: a resumable run would not resume")
