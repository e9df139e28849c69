"""The proof of the proof: tests of deskcheck's self-catalog (tests/mutants.toml) and of the
mutmut bench (bench/selfproof_mutmut.py). A test of a part's behaviour lives in tests/<part>/
(tests/test_layering.py holds this folder to that)."""
