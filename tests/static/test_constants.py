"""Call-site constants (deskcheck.static's public API): a call's literal values bound to the
callee's parameters decide its branches; loops over literal iterables are entered; an
undecided condition names the value that keeps it undecided and where it came from."""

from __future__ import annotations

import ast
import textwrap

import pytest

from deskcheck.static import (
    DEAD,
    LIVE,
    UNKNOWN,
    Env,
    bind,
    call_args,
    explain,
    function_constants,
    function_facts,
    merge,
    signature_problems,
)

SOURCE = textwrap.dedent('''
    class Manager:
        def abort(self, rid=None, abort_all=False, *, force=False):
            limit = 2
            if rid is None and not abort_all:
                return
            self.dispatch(rid)
            for wrapper_id in range(limit):
                self.wrappers.append(wrapper_id)
            for item in (rid, "b"):
                self.items.append(item)
            if len(self.queue) > 1:
                self.overflow += 1
            if isinstance(rid, str):
                self.by_rid[rid] = 1
            match rid:
                case "r1":
                    self.first_case = 1
                case _:
                    self.other_case = 1
            if self.mode == "slow" or force:
                self.slow = True
''')


def _method(source: str = SOURCE) -> ast.FunctionDef:
    tree = ast.parse(source)
    klass = tree.body[0]
    assert isinstance(klass, ast.ClassDef), (
        f"the test source must start with a class; it starts with {type(klass).__name__}"
    )
    method = klass.body[0]
    assert isinstance(method, ast.FunctionDef), (
        f"the class must start with a method; it starts with {type(method).__name__}"
    )
    return method


def _call(text: str) -> ast.Call:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call), (
        f"{text!r} must parse as a call; it parsed as {type(node).__name__}"
    )
    return node


def _statuses(node: ast.FunctionDef, env: Env, constants: dict | None = None) -> dict[str, int]:
    """The weakest status of each touched name's conditions."""
    out: dict[str, int] = {}
    for acc in function_facts(node, "self").accesses:
        status = LIVE
        for cond in acc.conds:
            status = min(status, explain(cond, constants or {}, env).status)
        out[acc.name] = max(out.get(acc.name, DEAD), status)
    return out


def test_a_keyword_literal_at_the_call_site_decides_the_callees_early_return():
    node = _method()
    entered = bind(node, call_args(_call("m.abort(rid='r1')"), where="t.py:3"), skip_first=True)
    skipped = bind(node, call_args(_call("m.abort()"), where="t.py:4"), skip_first=True)
    assert entered.values.get("rid") == "r1" and entered.values.get("abort_all") is False, (
        f"rid from the keyword, abort_all from its literal default: {entered}")
    assert _statuses(node, entered)["dispatch"] == LIVE, (
        "abort(rid='r1') passes the early return: the dispatch after it was not judged LIVE")
    assert _statuses(node, skipped)["dispatch"] == DEAD, (
        "abort() with rid=None and abort_all=False returns early: dispatch was not DEAD")


def test_a_positional_literal_binds_by_position_and_abort_all_decides_too():
    node = _method()
    env = bind(node, call_args(_call("M.abort(obj, None, True)"), skip=1), skip_first=True)
    assert _statuses(node, env)["dispatch"] == LIVE, (
        "abort(obj, None, True): abort_all=True passes the early return, got not LIVE")


def test_loops_over_a_literal_range_and_a_literal_tuple_are_entered():
    node = _method()
    env = bind(node, call_args(_call("m.abort(rid='x')")), skip_first=True)
    status = _statuses(node, env)
    assert status["wrappers"] == LIVE, (
        "`for wrapper_id in range(limit)` with the literal local limit = 2 was not entered")
    assert status["items"] == LIVE, "a loop over a two-item literal tuple was not entered"


def test_len_isinstance_match_and_short_circuit_decide_on_known_values():
    node = _method()
    env = bind(node, call_args(_call("m.abort(rid='r1', force=True)")), skip_first=True)
    status = _statuses(node, env, {"queue": [1, 2, 3], "mode": "fast"})
    assert status["overflow"] == LIVE, "len(self.queue) > 1 with a 3-item queue: not LIVE"
    assert status["by_rid"] == LIVE, "isinstance('r1', str) was not decided True"
    assert status["first_case"] == LIVE and status["other_case"] == DEAD, (
        f"match 'r1': case 'r1' is entered, case _ is not; got {status}")
    assert status["slow"] == LIVE, "`self.mode == 'slow' or force` with force=True: not LIVE"
    quiet = _statuses(node, env, {"queue": [], "mode": "fast"})
    assert quiet["overflow"] == DEAD, "len([]) > 1 is False: overflow was not DEAD"


def test_an_undecided_condition_names_the_unknown_value_and_where_it_came_from():
    node = _method()
    env = bind(node, call_args(_call("m.abort(rid=make_rid())"), where="tests/t.py:9"),
               skip_first=True, label="Manager.abort")
    facts = function_facts(node, "self")
    dispatch = next(a for a in facts.accesses if a.name == "dispatch")
    decisions = [explain(c, {}, env) for c in dispatch.conds]
    undecided = [d for d in decisions if d.status == UNKNOWN]
    assert undecided, f"rid=make_rid() cannot decide `rid is None`: {decisions}"
    why = undecided[0].why
    assert "rid" in why and "tests/t.py:9" in why and "make_rid()" in why, (
        f"the reason names the parameter, the call and its site: {why!r}")


def test_a_rebound_parameter_is_not_trusted():
    node = _method("class C:\n    def f(self, flag=True):\n        flag = compute()\n"
                   "        if flag:\n            self.x = 1\n")
    env = bind(node, call_args(_call("c.f(flag=True)")), skip_first=True)
    assert "flag" not in env.values, f"flag is reassigned in the body, so unknown: {env}"
    assert "reassigned" in env.get("flag").why, (
        "a rebound parameter must be unknown because it is 'reassigned'; the reason given is "
        f"{env.get('flag').why!r}"
    )


def test_merge_keeps_only_what_every_call_site_agrees_on():
    node = _method()
    one = bind(node, call_args(_call("m.abort(rid='a')")), skip_first=True)
    two = bind(node, call_args(_call("m.abort(rid='b')")), skip_first=True)
    merged = merge([one, two])
    assert "rid" not in merged.values and "differs" in merged.get("rid").why, merged
    assert merged.values.get("abort_all") is False, "both leave abort_all at its default"


def test_signature_problems_name_unknown_keywords_missing_and_extra_positionals():
    node = _method("class C:\n    def f(self, a, *, b, c=1):\n        pass\n")
    assert signature_problems(node, call_args(_call("o.f(1, b=2)")), skip_first=True) == [], (
        "a call that fits reports nothing")
    problems = signature_problems(node, call_args(_call("o.f(1, 2, d=3)")), skip_first=True)
    text = " | ".join(problems)
    assert "2 positional" in text and "`d`" in text and "`b`" in text, (
        f"too many positionals, keyword d not accepted, required b not passed: {problems}")


def test_function_constants_records_literal_defaults_and_literal_locals():
    facts = function_constants(_method())
    defaults = {p.name: p.default for p in facts.params if p.has_default}
    assert defaults == {"rid": None, "abort_all": False, "force": False}, defaults
    assert facts.locals == {"limit": 2}, f"limit = 2 is the one literal local: {facts.locals}"


def test_a_local_bound_more_than_once_is_not_a_literal_local():
    """docs/drift.md: function_constants gives "the locals bound once to a literal"."""
    node = _method("class C:\n    def f(self):\n        mode = self.pick()\n"
                   "        if mode is None:\n            return\n        self.after = mode\n"
                   "        mode = None\n        count = 1\n        count = 2\n")
    facts = function_constants(node)
    assert facts.locals == {}, (
        "function_constants must give only the locals bound once to a literal; `mode` and "
        f"`count` are each bound twice, yet it gives {facts.locals}")
    statuses = _statuses(node, Env().with_locals(facts))
    assert statuses.get("after") != DEAD, (
        "`if mode is None: return` reads mode = self.pick(), unknown there, so self.after "
        f"must not be pruned as DEAD; the statuses are {statuses}")


def test_getattr_of_a_loop_name_over_literal_strings_reads_each_name():
    node = _method("class C:\n    def f(self):\n        for name in ('waiting', 'staging'):\n"
                   "            queue = getattr(self, name)\n            setattr(self, name, [])\n")
    facts = function_facts(node, "self")
    reads = {a.name for a in facts.accesses if a.kind == "read"}
    writes = {a.name for a in facts.accesses if a.kind == "write"}
    assert reads == {"waiting", "staging"} and writes == {"waiting", "staging"}, (
        f"getattr/setattr(self, name) over a literal tuple touches each name: {facts.accesses}")
    assert not facts.dynamic_lines, "a name from a literal tuple is not dynamic"


def test_an_object_known_to_exist_is_never_none_and_a_namespace_is_truthy():
    from deskcheck.static import Something

    node = _method("class C:\n    def f(self, req):\n        if self.pending is None:\n"
                   "            return\n        if self.chunked is not self.pending:\n"
                   "            self.dropped = 1\n        if self.handle:\n"
                   "            self.handled = 1\n")
    pending, other = Something(True), Something(True)
    status = _statuses(node, Env(), {"pending": pending, "chunked": None, "handle": other})
    assert status["dropped"] == LIVE, (
        "pending is an object (never None) and chunked is None: `is not` is True, got "
        f"{status}")
    assert status["handled"] == LIVE, "a namespace value is truthy"
    same = _statuses(node, Env(), {"pending": pending, "chunked": pending, "handle": other})
    assert same["dropped"] == UNKNOWN, (
        "the same construction may build two objects: `x is not x` stays undecided")


def test_a_namespace_stand_in_is_an_instance_of_no_production_class():
    from deskcheck.static import Something

    node = _method("class C:\n    def f(self, obj):\n        if isinstance(obj, EmbeddingReq):\n"
                   "            return\n        obj.sampling.append(1)\n")
    facts = function_facts(node, "obj")
    access = next(a for a in facts.accesses if a.name == "sampling")
    namespace = {"": Something(True, "namespace")}
    assert all(explain(c, namespace, Env()).status == LIVE for c in access.conds), (
        "isinstance(a SimpleNamespace, EmbeddingReq) is False: the read after it is LIVE")
    unknown = [explain(c, {}, Env()) for c in access.conds]
    assert any(d.status == UNKNOWN and "obj" in d.why for d in unknown), (
        f"without the stand-in known, the reason names it: {unknown}")


def test_a_walrus_in_a_condition_is_decided_by_its_value():
    node = _method("class C:\n    def f(self):\n        if (x := self.limit) is not None and x < 1:\n"
                   "            return\n        self.after = 1\n")
    status = _statuses(node, Env(), {"limit": None})
    assert status["after"] == LIVE, "(x := None) is not None is False: the return is not taken"


def test_merge_forgets_a_value_one_call_site_of_three_disagrees_on():
    node = _method()
    sites = [bind(node, call_args(_call(f"m.abort(rid='{rid}')")), skip_first=True)
             for rid in ("a", "a", "b")]
    merged = merge(sites)
    assert "rid" not in merged.values, (
        f"merge kept rid={merged.values.get('rid')!r} though the third call site passes 'b';"
        " docs/drift.md: merge(envs) keeps only what every call site agrees on")


def _to_del_method(change: str) -> ast.FunctionDef:
    return _method(
        "class C:\n    def abort(self, rid):\n        to_del = []\n"
        "        for i, req in enumerate(self.queue):\n"
        "            if req.rid == rid:\n"
        f"                {change}\n"
        "        for i in reversed(to_del):\n            self.send(i)\n")


@pytest.mark.parametrize("change", [
    "to_del.append(i)", "to_del.extend([i])", "to_del.insert(0, i)", "to_del += [i]",
    "to_del[0:0] = [i]", "keep(to_del, i)", "other = to_del; other.append(i)",
    "other = to_del or []; other.append(i)", "(to_del if rid else []).append(i)",
    "push = lambda x: to_del.append(x); push(i)",
])
def test_a_mutable_literal_local_changed_later_is_not_known_empty(change):
    """docs/drift.md: only a local bound once to a literal, and never changed, decides a
    branch. SGLang's abort path builds `to_del = []`, appends to it in a loop, then walks
    `reversed(to_del)`: taking it as the empty list called the walk's body dead."""
    node = _to_del_method(change)
    facts = function_constants(node)
    assert "to_del" not in facts.locals, (
        f"`to_del = []` is changed later (`{change}`), yet function_constants gives it as a "
        f"known literal: {facts.locals}")
    statuses = _statuses(node, Env().with_locals(facts))
    assert statuses.get("send") != DEAD, (
        f"`for i in reversed(to_del)` after `{change}` may run its body: self.send must not be "
        f"DEAD; statuses {statuses}")


def test_a_mutable_literal_local_only_read_stays_known():
    node = _to_del_method("print(len(to_del), to_del[0] if to_del and rid else None, i in to_del)")
    facts = function_constants(node)
    assert facts.locals == {"to_del": []}, (
        f"`to_del = []` only read (len, subscript read, `in`, truth) stays a known literal: "
        f"{facts.locals}")
    assert _statuses(node, Env().with_locals(facts)).get("send") == DEAD, (
        "a loop over a never-changed empty list never runs its body")


@pytest.mark.parametrize("change", ["pending[rid] = 1", "pending.update(x=1)", "pending.setdefault(rid, 1)"])
def test_a_dict_literal_local_changed_later_is_not_known_empty(change):
    node = _method(
        "class C:\n    def flush(self, rid):\n        pending = {}\n"
        "        for req in self.queue:\n"
        f"            {change}\n"
        "        if pending:\n            self.send(pending)\n")
    facts = function_constants(node)
    assert "pending" not in facts.locals, (
        f"`pending = {{}}` is changed later (`{change}`), yet function_constants gives it as a "
        f"known literal: {facts.locals}")


@pytest.mark.parametrize(("change", "shown"), [
    ("to_del.append(i)", "`to_del.append(i)` at line 6"),
    ("other = to_del", "`other = to_del` at line 6"),
    ("to_del[0:0] = [i]", "`to_del[0:0] = [i]` at line 6"),
])
def test_an_undecided_loop_over_a_changed_literal_local_says_where_it_changes(change, shown):
    node = _to_del_method(change)
    facts = function_facts(node, "self")
    cond = next(a for a in facts.accesses if a.name == "send").conds[-1]
    why = explain(cond, {}, Env().with_locals(function_constants(node))).why
    assert "changes after it is bound" in why and shown in why, (
        f"the loop over `to_del` stays undecided because `{change}` changes the list; the "
        f"reason must say so and where ({shown}); it says: {why!r}")
