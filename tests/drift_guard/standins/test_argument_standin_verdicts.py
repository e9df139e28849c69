"""A namespace passed as an ARGUMENT is judged on the parameter's own touches: a read inside a
try that catches AttributeError is a silent skip (masked), not drift; and a name read on the
path of ANY of the calls that pass it is needed (the most live call decides)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.drift_guard.standins.helpers import discover_in, names, standin

LEDGER = '''
class Ledger:
    def __init__(self):
        self.freed = 0
        raise RuntimeError("needs a real pool")

    def settle(self, req):
        try:
            self.freed += req.kv_size
        except AttributeError:
            pass
        return req.rid

    def retire(self, req, hard=False):
        if hard:
            self.freed += req.kv_size
        return req.rid
'''


def _project(tmp_path: Path, test_source: str) -> Path:
    root = tmp_path / "proj"
    (root / "ledgercore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "ledgercore" / "__init__.py").write_text("")
    (root / "ledgercore" / "ledger.py").write_text(LEDGER)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_shape.py").write_text(textwrap.dedent(test_source))
    return root


def test_a_parameter_read_inside_a_try_catching_attributeerror_is_a_silent_skip(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from ledgercore.ledger import Ledger

        def test_settle():
            stub = Ledger.__new__(Ledger)
            stub.freed = 0
            stub.settle(SimpleNamespace(rid="a"))
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:8")
    assert names(report, "drift") == set(), (
        "settle reads req.kv_size inside `try: ... except AttributeError`: nothing would raise, "
        f"so it is not drift; got drift={names(report, 'drift')}")
    assert names(report, "silent_skips") == {"kv_size"}, (
        "the masked read of req.kv_size the namespace lacks is a silent skip, got "
        f"silent_skips={names(report, 'silent_skips')}")


def test_a_name_live_on_any_call_that_passes_the_namespace_is_drift(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from ledgercore.ledger import Ledger

        def test_retire_soft_then_hard():
            stub = Ledger.__new__(Ledger)
            stub.freed = 0
            req = SimpleNamespace(rid="a")
            Ledger.retire(stub, req)
            Ledger.retire(stub, req, hard=True)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:8")
    assert names(report, "drift") == {"kv_size"}, (
        "retire(req, hard=True) reads req.kv_size, which the namespace lacks: drift on that "
        "call's path even though retire(req) skips it (the most live call decides); got "
        f"drift={names(report, 'drift')} unexercised={names(report, 'unexercised')}")
