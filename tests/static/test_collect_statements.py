"""The branch conditions the collector records for each kind of statement (docs/drift.md,
*The production surface* and *The verdict*: every site is listed with the branch condition it
sits under, and the guard prunes branches statically with the stand-in's own constant state:
``if``/``elif``/``else``, ``while``, early returns, loops over a known container, locals bound
to a ``self`` chain). Checked through ``function_facts`` (what each ``self.X`` touch sits
under, as ``Cond.text`` shows it in the verdict) and ``decide`` (the static pruning of one
condition). Gaps mutmut found in static/_collect.py's statements."""

from __future__ import annotations

import ast
import textwrap
from types import SimpleNamespace

from deskcheck.static._collect import (
    Access,
    Cond,
    FunctionFacts,
    clear_cache,
    first_param,
    function_facts,
)
from deskcheck.static._conditions import DEAD, LIVE, UNKNOWN, decide

_WORDS = {DEAD: "DEAD (never entered)", LIVE: "LIVE (entered)", UNKNOWN: "UNKNOWN"}


def _facts(source: str) -> tuple[FunctionFacts, str]:
    """The facts of the first method of the first class in ``source``, computed afresh."""
    text = textwrap.dedent(source)
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef))
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef))
    clear_cache()  # the cache is keyed by node id: a new tree may reuse an old id
    try:
        return function_facts(method, first_param(method)), text
    finally:
        clear_cache()


def _line(text: str, marker: str) -> int:
    """The 1-based line of ``text`` that carries the comment ``# marker``."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if line.endswith(f"# {marker}")]
    assert len(hits) == 1, f"test source: marker {marker!r} must be on exactly one line"
    return hits[0]


def _access(facts: FunctionFacts, name: str, kind: str = "read") -> Access:
    found = [a for a in facts.accesses if a.name == name and a.kind == kind]
    assert len(found) == 1, (
        f"self.{name} must be recorded once as a {kind}; the collector recorded "
        f"{[(a.name, a.kind, a.line) for a in facts.accesses]}")
    return found[0]


def _shown(conds: tuple[Cond, ...]) -> list[tuple[str, int, str]]:
    return [(c.kind, c.line, c.text) for c in conds]


def _decided(cond: Cond, constants: dict) -> str:
    return _WORDS[decide(cond, constants)]


BRANCHES = '''
class Engine:
    def run(self):
        if self.ready:  # if
            self.in_if
            if self.stop_if:  # stop-if
                return
            self.past_stop_in_if
        else:
            self.in_else
            if self.stop_else:  # stop-else
                return
            self.past_stop_in_else
        while self.spinning:  # while
            self.in_while
        else:
            self.in_while_else
'''


def test_if_body_and_else_each_sit_under_their_side_of_the_test():
    facts, text = _facts(BRANCHES)
    at = _line(text, "if")
    body, other = _access(facts, "in_if").conds, _access(facts, "in_else").conds
    assert _shown(body) == [("if", at, "if self.ready")], (
        f"a read in an if body sits under that if, shown as written at its line; got "
        f"{_shown(body)}")
    assert _shown(other) == [("if", at, "else of `if self.ready`")], (
        f"a read in the else block sits under the else of the same if at line {at}; got "
        f"{_shown(other)}")
    assert _decided(body[0], {"ready": True}) == _WORDS[LIVE], (
        "with ready=True the if body is entered: the condition must carry its test, the "
        "self names and the non-negated side")
    assert _decided(other[0], {"ready": True}) == _WORDS[DEAD], (
        "with ready=True the else block is never entered: the condition must be the negated "
        "side of the same test, recognising self")
    assert _decided(other[0], {"ready": False}) == _WORDS[LIVE], (
        "with ready=False the else block is entered")


def test_code_after_an_early_return_in_if_and_else_blocks_sits_under_its_negation():
    facts, text = _facts(BRANCHES)
    at, stop_if, stop_else = _line(text, "if"), _line(text, "stop-if"), _line(text, "stop-else")
    past_if = _access(facts, "past_stop_in_if").conds
    past_else = _access(facts, "past_stop_in_else").conds
    assert _shown(past_if) == [("if", at, "if self.ready"),
                               ("if", stop_if, "past `if self.stop_if: return`")], (
        f"inside an if body, the code after `if c: return` runs under not c too (the body "
        f"is a block like any other); got {_shown(past_if)}")
    assert _shown(past_else) == [("if", at, "else of `if self.ready`"),
                                 ("if", stop_else, "past `if self.stop_else: return`")], (
        f"inside an else block, the code after `if c: return` runs under not c too; got "
        f"{_shown(past_else)}")
    assert _decided(past_else[1], {"stop_else": True}) == _WORDS[DEAD], (
        "past `if self.stop_else: return` is never reached when stop_else is True")


def test_while_body_and_its_else_sit_under_the_while_test():
    facts, text = _facts(BRANCHES)
    at = _line(text, "while")
    body, other = _access(facts, "in_while").conds, _access(facts, "in_while_else").conds
    assert _shown(body) == [("if", at, "if self.spinning")], (
        f"a while body is entered when its test holds, like an if body; got {_shown(body)}")
    assert _shown(other) == [("if", at, "else of `if self.spinning`")], (
        f"a while's else block sits under the negated test; got {_shown(other)}")
    assert _decided(body[0], {"spinning": False}) == _WORDS[DEAD], (
        "with spinning=False the while body is never entered")
    assert _decided(other[0], {"spinning": False}) == _WORDS[LIVE], (
        "with spinning=False the while's else block runs")


LOOPS = '''
class Engine:
    def run(self):
        for self.cursor in self.items:  # for
            self.in_for
            if self.skip:  # skip
                continue
            self.past_skip
        else:
            self.in_for_else
            if self.stop:  # stop
                return
            self.past_stop_in_for_else
'''


def test_a_loop_body_and_its_target_sit_under_the_loop_over_its_iterable():
    facts, text = _facts(LOOPS)
    at = _line(text, "for")
    body = _access(facts, "in_for").conds
    target = _access(facts, "cursor", "write").conds
    assert _shown(body) == [("for", at, "for ... in self.items")], (
        f"a read in a for body sits under the loop over its iterable at line {at}; got "
        f"{_shown(body)}")
    assert _shown(target) == [("for", at, "for ... in self.items")], (
        f"`for self.cursor in ...` writes cursor only when the loop is entered; got "
        f"{_shown(target)}")
    assert _decided(body[0], {"items": []}) == _WORDS[DEAD], (
        "a loop over an empty container is never entered: the condition must carry the "
        "iterable and the self names")
    assert _decided(body[0], {"items": [1]}) == _WORDS[LIVE], (
        "a loop over a non-empty container is entered")
    assert _access(facts, "items").conds == (), (
        "the iterable itself is read before the loop, under no condition")


def test_code_after_continue_in_a_loop_body_sits_under_its_negation():
    facts, text = _facts(LOOPS)
    conds = _access(facts, "past_skip").conds
    assert _shown(conds) == [("for", _line(text, "for"), "for ... in self.items"),
                             ("if", _line(text, "skip"), "past `if self.skip: continue`")], (
        f"inside a loop body the code after `if c: continue` runs under not c; got "
        f"{_shown(conds)}")


def test_a_for_else_block_sits_under_for_else_and_is_a_block():
    facts, text = _facts(LOOPS)
    at = _line(text, "for")
    other = _access(facts, "in_for_else").conds
    assert _shown(other) == [("for-else", at, "for ... else")], (
        f"the else of a for loop sits under 'for ... else' at the loop's line {at}; got "
        f"{_shown(other)}")
    assert _decided(other[0], {"items": []}) == _WORDS[UNKNOWN], (
        "whether a for's else runs depends on a break, which static state cannot decide")
    past = _access(facts, "past_stop_in_for_else").conds
    assert _shown(past) == [("for-else", at, "for ... else"),
                            ("if", _line(text, "stop"), "past `if self.stop: return`")], (
        f"inside a for's else block, the code after `if c: return` runs under not c; got "
        f"{_shown(past)}")


HANDLERS = '''
class Engine:
    def run(self):
        try:
            self.in_try
        except (KeyError, ValueError):  # typed
            self.in_typed
            if self.stop:  # stop
                return
            self.past_stop_in_handler
        except:  # bare
            self.in_bare
        else:
            self.in_try_else
        finally:
            self.in_finally
'''


def test_each_except_handler_sits_under_the_exceptions_it_catches():
    facts, text = _facts(HANDLERS)
    typed, bare = _access(facts, "in_typed").conds, _access(facts, "in_bare").conds
    assert _shown(typed) == [("except", _line(text, "typed"), "except (KeyError, ValueError)")], (
        f"a read in a handler sits under `except <what it catches>` at the handler's line; "
        f"got {_shown(typed)}")
    assert _shown(bare) == [("except", _line(text, "bare"), "except")], (
        f"a bare `except:` is shown as plain 'except'; got {_shown(bare)}")
    past = _access(facts, "past_stop_in_handler").conds
    assert _shown(past)[1:] == [("if", _line(text, "stop"), "past `if self.stop: return`")], (
        f"inside a handler, the code after `if c: return` runs under not c; got "
        f"{_shown(past)}")


def test_try_body_else_and_finally_sit_under_no_condition():
    facts, _ = _facts(HANDLERS)
    for name in ("in_try", "in_try_else", "in_finally"):
        assert _shown(_access(facts, name).conds) == [], (
            f"self.{name} (try body, else or finally) runs without entering a handler: it "
            f"must sit under no condition; got {_shown(_access(facts, name).conds)}")


MATCHES = '''
class Engine:
    def run(self):
        match self.mode:
            case Mode.FAST if self.allowed:  # fast
                self.in_fast
            case _:  # default
                self.in_default
        with self.lock:
            self.in_with
'''


def test_each_case_sits_under_its_pattern_and_its_guard_is_read_there():
    facts, text = _facts(MATCHES)
    assert _access(facts, "mode").conds == (), "the match subject is read before any case"
    fast = [("case", _line(text, "fast"), "case Mode.FAST")]
    guarded = fast + [("if", _line(text, "fast"), "if self.allowed")]
    assert _shown(_access(facts, "in_fast").conds) == guarded, (
        f"a read in a case body sits under `case <pattern>` at the pattern's line, and under "
        f"the case's guard; got {_shown(_access(facts, 'in_fast').conds)}")
    assert _shown(_access(facts, "allowed").conds) == fast, (
        "a case's guard is read only when its pattern matched: under that case")
    assert _shown(_access(facts, "in_default").conds) == [
        ("case", _line(text, "default"), "case _")], (
        f"the wildcard case is shown as `case _`; got "
        f"{_shown(_access(facts, 'in_default').conds)}")


def test_with_items_and_body_are_read_under_no_condition():
    facts, _ = _facts(MATCHES)
    for name in ("lock", "in_with"):
        assert _shown(_access(facts, name).conds) == [], (
            f"self.{name} (a with item or its body) always runs; got "
            f"{_shown(_access(facts, name).conds)}")


EARLY_RETURNS = '''
class Engine:
    def run(self):
        if self.outer:
            if self.first:  # first
                return
            if self.second:  # second
                raise RuntimeError
            self.inside
        self.after_block
'''


def test_the_negations_of_early_returns_end_with_their_block():
    facts, text = _facts(EARLY_RETURNS)
    inside = _access(facts, "inside").conds
    assert [c.text for c in inside] == [
        "if self.outer", "past `if self.first: return`", "past `if self.second: raise`"], (
        f"code after two early exits runs under both negations; got {_shown(inside)}")
    assert _shown(_access(facts, "after_block").conds) == [], (
        f"the early returns inside the if body only rule out the rest of that body: code "
        f"after the if sits under no condition; got "
        f"{_shown(_access(facts, 'after_block').conds)}")


ALIASES = '''
class Engine:
    def run(self, other):
        req = self.pending
        head = self.queue.head
        if req is None:  # req
            return
        if head is None:  # head
            return
        self.after_alias
        req = other.pending
        if req is None:  # rebound
            return
        self.after_rebind
'''


def test_an_early_return_on_a_local_bound_to_a_self_chain_is_decided():
    facts, text = _facts(ALIASES)
    conds = _access(facts, "after_alias").conds
    assert [c.line for c in conds] == [_line(text, "req"), _line(text, "head")], (
        f"self.after_alias sits under the two early returns; got {_shown(conds)}")
    assert _decided(conds[0], {"pending": None}) == _WORDS[DEAD], (
        "after `req = self.pending`, `if req is None: return` stops the method when the "
        "stand-in's pending is None: the condition must remember what req is bound to")
    assert _decided(conds[0], {"pending": 3}) == _WORDS[LIVE], (
        "with pending set, the code after `if req is None: return` runs")
    nested = SimpleNamespace(head=None)
    assert _decided(conds[1], {"queue": nested}) == _WORDS[DEAD], (
        "after `head = self.queue.head`, `if head is None: return` is decided from the "
        "stand-in's queue.head: the local must be bound to the whole dotted chain")


def test_a_local_rebound_to_something_else_no_longer_aliases_self():
    facts, text = _facts(ALIASES)
    conds = _access(facts, "after_rebind").conds
    assert conds[-1].line == _line(text, "rebound"), (
        f"self.after_rebind sits last under the third early return; got {_shown(conds)}")
    assert _decided(conds[-1], {"pending": None}) == _WORDS[UNKNOWN], (
        "after `req = other.pending`, req no longer stands for self.pending: the stand-in's "
        "pending must not decide `if req is None`")


GLOBALS = '''
class Engine:
    def run(self):
        global COUNTER
        if COUNTER:
            self.counted
'''


def test_a_name_declared_global_is_a_context_read():
    facts, _ = _facts(GLOBALS)
    assert [c.name for c in facts.context] == ["global COUNTER"], (
        f"a method that declares `global COUNTER` and reads it reads module-level state: "
        f"the context reads must list it; got {[c.name for c in facts.context]}")


CASE_RETURNS = '''
class Engine:
    def run(self):
        match self.mode:
            case "fast":  # case
                if self.stop:  # stop
                    return
                self.past_stop_in_case
'''


def test_code_after_an_early_return_in_a_case_body_sits_under_its_negation():
    facts, text = _facts(CASE_RETURNS)
    conds = _access(facts, "past_stop_in_case").conds
    assert _shown(conds) == [("case", _line(text, "case"), "case 'fast'"),
                             ("if", _line(text, "stop"), "past `if self.stop: return`")], (
        f"a case body is a block like an if body: the code after `if c: return` runs "
        f"under not c; got {_shown(conds)}")
    assert _decided(conds[1], {"stop": True}) == _WORDS[DEAD], (
        "past `if self.stop: return` is never reached when the stand-in's stop is True")


CAUGHT_FROM_SELF = '''
class Engine:
    def run(self):
        try:
            self.step()
        except KeyError:
            pass
        except (ValueError, self.retry_errors):  # retry
            pass
'''


def test_the_exception_types_a_handler_reads_from_self_are_recorded():
    facts, text = _facts(CAUGHT_FROM_SELF)
    found = _access(facts, "retry_errors")
    assert found.line == _line(text, "retry"), (
        f"`except (ValueError, self.retry_errors)` reads self.retry_errors on the handler's "
        f"line {_line(text, 'retry')}; the collector put it on line {found.line}")
    assert _shown(found.conds) == [
        ("except", _line(text, "retry"), "except (ValueError, self.retry_errors)")], (
        "the handler's exception types are read only when the try body raises, so the read "
        f"sits under that handler's `except` condition; got {_shown(found.conds)}")


def test_a_read_through_a_local_bound_to_a_self_chain_is_a_touch_of_that_chain():
    facts, _text = _facts('''
        class Pool:
            def sweep(self, other):
                req = self.pending
                size = req.kv.size
                req = other
                return req.rid
    ''')
    touched = {a.name for a in facts.accesses}
    assert "pending.kv" in touched and "pending.kv.size" in touched, (
        "`req = self.pending; req.kv.size` reads self.pending.kv.size: the stand-in judge "
        f"needs that chain to check a namespace held in `pending`; got {sorted(touched)}")
    assert "pending.rid" not in touched, (
        "after `req = other` the local no longer aliases self.pending: `req.rid` is not "
        f"a touch of self; got {sorted(touched)}")
