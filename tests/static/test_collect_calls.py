"""The surface collector's calls, context reads and bookkeeping (docs/drift.md, *The
surface* and the **context** category): ``get_x()`` / ``mod.get_x().a`` / ``envs.UPPER`` are
module-level state read once each, a local's or a parameter's method is not; every touch
carries its own line and the first line of its statement (what coverage.py records) and the
branch conditions it sits under; a read after a top-level write of the same chain is marked
``after_write``; ``super().m()`` keeps its conditions. Gaps mutmut found in
static/_collect.py (_visit_call, _context, _module_function, _is_env_name, _swallows,
_top_level_writes, facts, visit, _record, first_param). Each test parses its own source and
computes its facts itself, so mutmut credits every test that reaches the code."""

from __future__ import annotations

import ast
import textwrap

import pytest

from deskcheck.static._collect import (
    Access,
    ContextRead,
    FunctionFacts,
    clear_cache,
    first_param,
    function_facts,
)


def facts_of(source: str) -> FunctionFacts:
    """The facts of the first function in ``source`` (its first parameter as ``self``)."""
    tree = ast.parse(textwrap.dedent(source))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    clear_cache()
    try:
        return function_facts(node, first_param(node))
    finally:
        clear_cache()


def context_names(facts: FunctionFacts) -> list[str]:
    return [c.name for c in facts.context]


def accesses_of(facts: FunctionFacts, name: str) -> list[Access]:
    return [a for a in facts.accesses if a.name == name]


# -- context reads: get_x() calls ---------------------------------------------------------
def test_a_bare_get_call_is_one_context_read_with_its_name_and_line():
    facts = facts_of('''
        def run(self):
            x = 1
            if get_world_size():
                return x
    ''')
    assert [(c.name, c.line) for c in facts.context] == [("get_world_size()", 4)], (
        "a bare call of a module-level get_x() with no arguments is one context read named "
        f"'get_world_size()' at its line 4; the collector recorded {facts.context}")


@pytest.mark.parametrize(("call", "why"), [
    ("helper()", "a module function not named get_... is not runtime state"),
    ("get_rank(group)", "a get_... call with a positional argument is a computation"),
    ("get_rank(group=g)", "a get_... call with a keyword argument is a computation"),
    ("forget_it()", "only a name that starts with get_ is a getter"),
])
def test_calls_that_are_not_context_reads(call, why):
    facts = facts_of(f'''
        def run(self, group, g):
            return {call}
    ''')
    assert facts.context == (), (
        f"`{call}` must not be recorded as a context read ({why}); the collector recorded "
        f"{context_names(facts)}")


def test_a_module_qualified_get_call_is_a_context_read():
    facts = facts_of('''
        def run(self):
            return parallel_state.get_tp_group().rank_in_group
    ''')
    assert context_names(facts) == ["get_tp_group().rank_in_group"], (
        "`parallel_state.get_tp_group().rank_in_group` (a getter of an imported module) is one "
        f"context read named by the getter and the chain; the collector recorded "
        f"{context_names(facts)}")


@pytest.mark.parametrize(("body", "why"), [
    ("group = make_group()\n    return group.get_rank().value",
     "`group` is a local variable: its method is not module-level state"),
    ("return group.get_rank().value", "`group` is a parameter: its method is not module state"),
    ("return self.get_rank().value", "a method of self is a touch of self, not a context read"),
    ("get_size = pick()\n    return get_size()", "a local named get_... is not a module function"),
])
def test_a_getter_of_a_local_or_of_self_is_not_a_context_read(body, why):
    facts = facts_of(f"def run(self, group):\n    {body}\n")
    assert facts.context == (), (
        f"{why}; the collector recorded the context reads {context_names(facts)}")


def test_a_getter_chain_is_recorded_once_not_once_per_attribute():
    facts = facts_of('''
        def run(self):
            return get_parallel().pp_group.world_size
    ''')
    assert context_names(facts) == ["get_parallel().pp_group.world_size"], (
        "`get_parallel().pp_group.world_size` is one context read recorded whole; the "
        f"collector recorded {context_names(facts)} (a shorter prefix recorded again?)")


def test_a_global_getter_call_is_recorded_once_as_the_call():
    facts = facts_of('''
        def run(self):
            global get_config
            return get_config()
    ''')
    assert context_names(facts) == ["get_config()"], (
        "a call of get_config() reads module state once, recorded as the call 'get_config()', "
        f"even when the name is declared global; the collector recorded {context_names(facts)}")


# -- context reads: env-style config objects ------------------------------------------------
@pytest.mark.parametrize("base", ["envs", "env", "environ", "environment", "Env", "server_envs"])
def test_env_style_objects_with_an_upper_name_are_context_reads(base):
    facts = facts_of(f'''
        def run(self):
            return {base}.SGLANG_FLAG
    ''')
    assert context_names(facts) == [f"{base}.SGLANG_FLAG"], (
        f"`{base}.SGLANG_FLAG` is an env-style config read (envs/env/environ/environment, any "
        f"case, or a name ending in _envs); the collector recorded {context_names(facts)}")


@pytest.mark.parametrize(("expr", "why"), [
    ("envs.lower_name", "only an UPPER attribute of an env object is a setting"),
    ("config.SGLANG_FLAG", "`config` is not an env-style name"),
    ("envs_table.SGLANG_FLAG", "a name that only starts with envs is not env-style"),
])
def test_other_module_attributes_are_not_context_reads(expr, why):
    facts = facts_of(f'''
        def run(self):
            return {expr}
    ''')
    assert facts.context == (), (
        f"`{expr}` must not be a context read ({why}); the collector recorded "
        f"{context_names(facts)}")


def test_an_env_read_followed_by_a_method_is_recorded_once():
    facts = facts_of('''
        def run(self):
            return envs.SGLANG_FLAG.get()
    ''')
    assert context_names(facts) == ["envs.SGLANG_FLAG"], (
        "`envs.SGLANG_FLAG.get()` reads one setting, recorded once as 'envs.SGLANG_FLAG'; the "
        f"collector recorded {context_names(facts)}")


def test_self_reads_inside_a_non_context_attribute_chain_are_recorded():
    facts = facts_of('''
        def run(self):
            return compute(self.size).total
    ''')
    assert [a.kind for a in accesses_of(facts, "size")] == ["read"], (
        "`compute(self.size).total` reads self.size inside an attribute chain that is not a "
        f"context read; the collector recorded {facts.accesses}")


# -- lines, statement lines and conditions --------------------------------------------------
def test_a_context_read_carries_its_line_its_statement_line_and_its_conditions():
    facts = facts_of('''
        def run(self, flag):
            if flag:
                total = (
                    1 + get_parallel().pp_size
                )
                return total
    ''')
    assert len(facts.context) == 1, f"one context read expected, got {facts.context}"
    ctx: ContextRead = facts.context[0]
    assert (ctx.line, ctx.stmt_line) == (5, 4), (
        "the context read is on line 5 inside the statement that starts on line 4 (coverage.py "
        f"records line 4); the collector recorded line {ctx.line}, statement line "
        f"{ctx.stmt_line}")
    assert [c.text for c in ctx.conds] == ["if flag"], (
        "the context read sits under `if flag`; the collector recorded the conditions "
        f"{[getattr(c, 'text', c) for c in ctx.conds]}")


def test_a_bare_get_call_carries_its_statement_line():
    facts = facts_of('''
        def run(self):
            size = max(
                get_world_size(), 1)
            return size
    ''')
    assert [(c.line, c.stmt_line) for c in facts.context] == [(4, 3)], (
        "get_world_size() is on line 4 of the statement that starts on line 3; the collector "
        f"recorded {[(c.line, c.stmt_line) for c in facts.context]}")


def test_a_self_touch_carries_the_first_line_of_its_statement():
    facts = facts_of('''
        def run(self):
            total = (
                1
                + self.size
            )
            return total
    ''')
    assert [(a.line, a.stmt_line) for a in accesses_of(facts, "size")] == [(5, 3)], (
        "self.size is read on line 5 of a statement that starts on line 3 (the line coverage.py "
        "records); the collector recorded "
        f"{[(a.line, a.stmt_line) for a in accesses_of(facts, 'size')]}")


def test_a_touch_after_a_nested_statement_keeps_its_statement_line():
    facts = facts_of('''
        def run(self):
            match self.mode:
                case "fast" if self.quick:
                    pass
                case "slow" if self.patient:
                    pass
    ''')
    got = [(a.line, a.stmt_line) for a in accesses_of(facts, "patient")]
    assert got == [(6, 3)], (
        "the second case guard reads self.patient on line 6 inside the match statement of "
        "line 3, after the first case's body was visited; the collector recorded "
        f"(line, statement line) {got}")


def test_a_super_call_keeps_the_conditions_it_sits_under():
    facts = facts_of('''
        def close(self, flag):
            if flag:
                super().close()
    ''')
    assert [n for n, _k, _line in facts.super_uses] == ["close"], (
        f"super().close() is one use of the base's close; got {facts.super_uses}")
    conds = facts.super_conds[0] if facts.super_conds else None
    assert conds is not None and [c.text for c in conds] == ["if flag"], (
        f"super().close() sits under `if flag`; the collector recorded the conditions {conds}")


# -- calls ----------------------------------------------------------------------------------
def test_arguments_of_a_method_call_on_self_are_read():
    facts = facts_of('''
        def run(self, other):
            return self.compute(self.size, key=other)
    ''')
    assert [a.kind for a in accesses_of(facts, "compute")] == ["call"], (
        f"self.compute(...) is a call; the collector recorded {facts.accesses}")
    assert [a.kind for a in accesses_of(facts, "size")] == ["read"], (
        "the argument self.size of self.compute(self.size) is a read; the collector recorded "
        f"{facts.accesses}")


@pytest.mark.parametrize("call", ["len(self.items)", 'helper(self, "named")',
                                  'register(self, "named", 1)'])
def test_a_plain_function_taking_self_is_not_an_attribute_access(call):
    facts = facts_of(f'''
        def run(self):
            return {call}
    ''')
    names = sorted({a.name for a in facts.accesses})
    expected = ["items"] if "items" in call else []
    assert names == expected, (
        f"`{call}` is not getattr/hasattr/setattr/delattr: only self.X touches count, so the "
        f"names must be {expected}; the collector recorded {names}")


# -- after_write: reads after a top-level write ---------------------------------------------
def test_a_read_after_a_top_level_write_of_a_chain_is_after_write():
    facts = facts_of('''
        def run(self):
            self.cfg.size = 1
            return self.cfg.size
    ''')
    reads = [a.after_write for a in accesses_of(facts, "cfg.size") if a.kind == "read"]
    assert reads == [True], (
        "self.cfg.size is written at the top level on line 3 and read on line 4, so that read "
        f"is after the write (after_write); the collector recorded {reads}")


def test_an_annotated_assignment_with_a_value_is_a_write_the_reads_follow():
    facts = facts_of('''
        def run(self):
            self.total: int = 0
            return self.total
    ''')
    reads = [a.after_write for a in accesses_of(facts, "total") if a.kind == "read"]
    assert reads == [True], (
        "`self.total: int = 0` writes self.total, so the read on the next line is after the "
        f"write; the collector recorded after_write {reads}")


def test_a_bare_annotation_is_not_a_write():
    facts = facts_of('''
        def run(self):
            self.total: int
            return self.total
    ''')
    reads = [a.after_write for a in accesses_of(facts, "total") if a.kind == "read"]
    assert reads == [False], (
        "`self.total: int` with no value assigns nothing, so the read after it still needs "
        f"self.total; the collector recorded after_write {reads}")


def test_a_top_level_write_to_another_object_is_not_a_self_write():
    facts = facts_of('''
        def run(self, other):
            other.size = 1
            return self.size
    ''')
    reads = [a.after_write for a in accesses_of(facts, "size")]
    assert reads == [False], (
        "`other.size = 1` writes another object, so self.size read after it is still needed; "
        f"the collector recorded after_write {reads}")


# -- try/except handlers --------------------------------------------------------------------
def test_a_handler_naming_a_subscript_does_not_swallow():
    facts = facts_of('''
        def run(self):
            try:
                return self.size
            except ERRORS[0]:
                return 0
    ''')
    got = [a.swallowed for a in accesses_of(facts, "size")]
    assert got == [False], (
        "`except ERRORS[0]:` names no AttributeError-catching class the collector can read, so "
        f"self.size in the try body is not swallowed; the collector recorded {got}")


# -- first_param -----------------------------------------------------------------------------
@pytest.mark.parametrize(("source", "expected"), [
    ("def f(): pass", None),
    ("def f(*args, **kwargs): pass", None),
    ("def f(*, key): pass", None),
    ("def f(me, /, other): pass", "me"),
    ("def f(this, other): pass", "this"),
])
def test_first_param_names_the_first_positional_parameter(source, expected):
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef), (
        f"{source!r} must parse as a function definition; it parsed as {type(node).__name__}"
    )
    assert first_param(node) == expected, (
        f"the first positional parameter of `{source}` is {expected!r} (None when it has "
        f"none); first_param returned {first_param(node)!r}")


@pytest.mark.parametrize("handler, swallowed", [
    ("except Exception:", True), ("except:", True), ("except (KeyError, AttributeError):", True),
    ("except builtins.AttributeError:", True), ("except KeyError:", False),
    ("except (KeyError, ValueError):", False), ("except LookupError:", False)])
def test_a_read_in_a_try_is_swallowed_only_where_a_handler_catches_attribute_error(
        handler, swallowed):
    facts = facts_of(f'''
        def run(self):
            try:
                return self.size
            {handler}
                return 0
    ''')
    got = [a.swallowed for a in accesses_of(facts, "size")]
    assert got == [swallowed], (
        f"docs/drift.md:438: a read inside a `try` whose handler is `{handler}` is "
        f"{'swallowed' if swallowed else 'not swallowed'} (a missing name "
        f"{'would' if swallowed else 'would not'} quietly take the fallback); the collector "
        f"recorded {got}")


@pytest.mark.parametrize("body, swallowed", [
    ("self.failed += 1\n                raise", False),           # SGLang's abort_request
    ("raise RuntimeError('lost') from None", False),
    ("if self.strict:\n                    raise\n                return 0", True),
    ("return 0\n                raise", True),
])
def test_a_handler_that_re_raises_on_every_path_swallows_nothing(body, swallowed):
    facts = facts_of(f'''
        def run(self):
            try:
                return self.size
            except BaseException:
                {body}
    ''')
    got = [a.swallowed for a in accesses_of(facts, "size")]
    assert got == [swallowed], (
        f"docs/drift.md:438: a handler that catches AttributeError but raises on every path "
        f"(a `raise` at its top level, nothing returning before it) lets a missing name fail "
        f"the test loudly, so the read is not swallowed; one that can fall through is. Handler "
        f"body {body!r}: expected swallowed={swallowed}, the collector recorded {got} (SGLang's "
        f"`except BaseException: ...; raise` in TokenizerManager.abort_request was read as a "
        f"silent skip)")


def test_a_later_handler_that_catches_attribute_error_swallows_too():
    facts = facts_of('''
        def run(self):
            try:
                return self.size
            except KeyError:
                return 1
            except AttributeError:
                return 0
    ''')
    got = [a.swallowed for a in accesses_of(facts, "size")]
    assert got == [True], (
        "docs/drift.md:438: a read inside a `try` is swallowed when any of its handlers catches "
        "AttributeError; here the second one, `except AttributeError:`, after `except "
        f"KeyError:`, yet the collector recorded {got}")
