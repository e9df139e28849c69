"""The surface collector on expressions (docs/drift.md, *The surface* and *The verdict*):
the branch conditions a touch inside a ternary, an ``and``/``or`` operand, a comprehension,
a closure or a lambda sits under, as the static verdict judges and names them; ``super()``
reads and writes; ``global`` names as context reads. Gaps mutmut found in
static/_collect.py (``_visit_expr``, ``_visit_function``).

Every test builds its own result (no module-scoped fixture): mutmut credits a test only with
the calls it makes itself."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.drift_guard import clear_cache, judge_paths, surface

SOURCE = '''
COUNTER = 0


class Base:
    @property
    def level(self):
        return self.getter_name

    @level.setter
    def level(self, value):
        self.setter_name = value

    @level.deleter
    def level(self):
        del self.deleter_name


class Shop(Base):
    def ternary(self):
        return self.yes_name if self.flag else self.no_name

    def both(self):
        return self.flag and self.and_name

    def either(self):
        return self.flag or self.or_name

    def both_then(self):
        found = self.flag and self.keep and self.and_name
        return found, self.after_bool_name

    def listing(self):
        return [self.elt_name for item in self.items]

    def nested_loops(self):
        return [self.pair_name for item in self.items for other in self.others]

    def filtered(self):
        return [self.kept_name for item in self.items if self.keep]

    def filtered_then(self):
        found = [item for item in self.items if self.keep]
        return found, self.after_name

    def mapping(self):
        return {self.key_name: self.value_name for item in self.items}

    def read_super(self):
        if self.flag:
            return super().level
        return None

    def write_super(self):
        super().level = 5

    def delete_super(self):
        del super().level

    def counting(self):
        global COUNTER
        if self.flag:
            return COUNTER
        return 0

    def closure(self):
        def helper():
            return self.helper_name
        return helper

    def closure_exit(self):
        def helper():
            if self.flag:
                return None
            return self.past_name
        return helper

    def anonymous(self):
        return lambda: self.lambda_name
'''

PROVIDED = {"flag", "items", "others", "keep", "level"}


@pytest.fixture
def shop(tmp_path) -> Path:
    """The package under a fresh root, with every parse cache cleared (function scope)."""
    package = tmp_path / "dc_s6b"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shop.py").write_text(textwrap.dedent(SOURCE))
    clear_cache()
    yield tmp_path
    clear_cache()


def _line(root: Path, text: str, after: int = 0) -> int:
    """The first line past ``after`` that holds ``text``."""
    lines = (root / "dc_s6b" / "shop.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if n > after and text in line)


def _judge(root: Path, method: str, **constants):
    return judge_paths("dc_s6b.shop:Shop", [method], provided=PROVIDED, roots=[root],
                       constants={"flag": False, "items": [], "others": [], "keep": False,
                                  **constants})


def _record(verdict, category: str, name: str):
    found = [r for r in getattr(verdict, category) if r.name == name]
    assert found, (f"{name} should be listed as {category}; the verdict says:\n"
                   f"{verdict.render()}")
    return found[0]


def _under(record, text: str, line: int) -> None:
    assert record.condition.startswith(text) and record.condition.endswith(f"shop.py:{line}"), (
        f"{record.name} should be listed under `{text}` at shop.py:{line}, the branch that "
        f"keeps it off the path; it is listed under {record.condition!r}")


# -- conditional expressions ------------------------------------------------------------------
def test_a_ternarys_body_is_unexercised_under_its_test_when_the_test_is_false(shop):
    verdict = _judge(shop, "ternary", flag=False)
    line = _line(shop, "self.yes_name if self.flag")
    _under(_record(verdict, "unexercised", "yes_name"), "if self.flag", line)
    _record(verdict, "drift", "no_name")


def test_a_ternarys_else_is_unexercised_under_the_negated_test_when_it_is_true(shop):
    verdict = _judge(shop, "ternary", flag=True)
    line = _line(shop, "self.yes_name if self.flag")
    _under(_record(verdict, "unexercised", "no_name"), "else of `if self.flag`", line)
    _record(verdict, "drift", "yes_name")


# -- and / or ---------------------------------------------------------------------------------
def test_the_right_operand_of_and_is_unexercised_when_the_left_is_false(shop):
    verdict = _judge(shop, "both", flag=False)
    _under(_record(verdict, "unexercised", "and_name"), "if self.flag",
           _line(shop, "self.flag and self.and_name"))
    assert _judge(shop, "both", flag=True).names("drift") == ["and_name"], (
        "with self.flag true the right operand of `and` runs: and_name is drift")


def test_the_right_operand_of_or_is_unexercised_when_the_left_is_true(shop):
    verdict = _judge(shop, "either", flag=True)
    _under(_record(verdict, "unexercised", "or_name"), "else of `if self.flag`",
           _line(shop, "self.flag or self.or_name"))
    assert _judge(shop, "either", flag=False).names("drift") == ["or_name"], (
        "with self.flag false the right operand of `or` runs: or_name is drift")


def test_the_conditions_of_and_or_operands_end_with_the_expression(shop):
    verdict = _judge(shop, "both_then", flag=False, keep=False)
    record = _record(verdict, "drift", "after_bool_name")
    assert record.condition == "", (
        f"the statement after `a and b and c` runs whatever its operands are; "
        f"after_bool_name is listed under {record.condition!r}")


# -- comprehensions ---------------------------------------------------------------------------
def test_a_comprehension_over_an_empty_container_leaves_its_element_unexercised(shop):
    verdict = _judge(shop, "listing", items=[])
    _under(_record(verdict, "unexercised", "elt_name"), "for ... in self.items",
           _line(shop, "self.elt_name for item"))
    assert _judge(shop, "listing", items=[1]).names("drift") == ["elt_name"], (
        "a comprehension over a non-empty container computes its element: elt_name is drift")


def test_only_the_first_loop_of_a_comprehension_is_judged_by_its_container(shop):
    verdict = _judge(shop, "nested_loops", items=[], others=[1])
    _under(_record(verdict, "unexercised", "pair_name"), "for ... in self.items",
           _line(shop, "self.pair_name for item"))
    assert _judge(shop, "nested_loops", items=[1], others=[]).names("drift") == ["pair_name"], (
        "the second loop's container is read inside the first loop: an empty second "
        "container must not rule the element out as if it were the outer loop")


def test_a_comprehensions_filter_is_the_branch_its_element_sits_under(shop):
    verdict = _judge(shop, "filtered", items=[1], keep=False)
    _under(_record(verdict, "unexercised", "kept_name"), "if self.keep",
           _line(shop, "if self.keep]"))
    assert _judge(shop, "filtered", items=[1], keep=True).names("drift") == ["kept_name"], (
        "a filter that holds lets the element run: kept_name is drift")


def test_a_comprehensions_conditions_end_with_it(shop):
    verdict = _judge(shop, "filtered_then", items=[], keep=False)
    record = _record(verdict, "drift", "after_name")
    assert record.condition == "", (
        f"the statement after a comprehension runs whatever its loop and filter do; "
        f"after_name is listed under {record.condition!r}")


def test_a_dict_comprehension_needs_its_keys_and_values(shop):
    verdict = _judge(shop, "mapping", items=[1])
    assert verdict.names("drift") == ["key_name", "value_name"], (
        f"a dict comprehension over a non-empty container computes each key and value: "
        f"{verdict.render()}")


# -- super() ----------------------------------------------------------------------------------
def test_a_super_property_read_is_followed_under_its_branch(shop):
    assert _judge(shop, "read_super", flag=True).names("drift") == ["getter_name"], (
        "super().level read on the driven path enters the base getter: getter_name is drift")
    verdict = _judge(shop, "read_super", flag=False)
    assert not any(getattr(verdict, c) for c in ("drift", "unexercised", "unknown")), (
        f"super().level is read only under `if self.flag`, which self.flag=False rules out: "
        f"the getter is not on the path, yet the verdict says:\n{verdict.render()}")


@pytest.mark.parametrize(("method", "entered", "needs"), [
    ("write_super", "Base.level (setter)", "setter_name"),
    ("delete_super", "Base.level (deleter)", "deleter_name"),
])
def test_a_super_property_write_or_delete_is_recorded_as_written(shop, method, entered, needs):
    # Python itself raises AttributeError on `super().x = v` / `del super().x`; the collector
    # records what the source says, as it does for self.x, and the surface follows the role.
    result = surface(f"dc_s6b.shop:Shop.{method}", roots=[shop])
    assert entered in result.methods and "Base.level" not in result.methods, (
        f"`{method}` touches super().level through the {entered.split()[-1]} role, not the "
        f"getter; the surface entered {sorted(result.methods)}")
    assert needs in result.names and "getter_name" not in result.names, (
        f"`{method}` reaches {needs} only; the surface lists {sorted(result.names)}")


# -- global names -----------------------------------------------------------------------------
def test_a_global_name_read_is_a_context_read_at_its_line(shop):
    line = _line(shop, "return COUNTER")
    result = surface("dc_s6b.shop:Shop.counting", roots=[shop])
    sites = result.context.get("global COUNTER", [])
    assert [s.line for s in sites] == [line], (
        f"reading the global COUNTER is a context read named 'global COUNTER' at line {line}; "
        f"the surface's context reads are {result.to_json()['context']}")
    verdict = _judge(shop, "counting", flag=True)
    record = _record(verdict, "context", "global COUNTER")
    assert record.site.endswith(f"shop.py:{line}"), (
        f"the verdict's context read of COUNTER should cite shop.py:{line}, where it is read; "
        f"it cites {record.site}")
    assert _judge(shop, "counting", flag=False).context == [], (
        "the global is read only under `if self.flag`: with self.flag=False it is off the path")


# -- closures and lambdas ---------------------------------------------------------------------
def test_a_closures_reads_are_unknown_inside_the_nested_def(shop):
    verdict = _judge(shop, "closure")
    _under(_record(verdict, "unknown", "helper_name"), "inside nested def helper",
           _line(shop, "def helper():"))


def test_a_lambdas_reads_are_unknown_inside_the_nested_lambda(shop):
    verdict = _judge(shop, "anonymous")
    _under(_record(verdict, "unknown", "lambda_name"), "inside nested lambda",
           _line(shop, "lambda: self.lambda_name"))


def test_an_early_return_inside_a_closure_rules_out_what_follows_it(shop):
    verdict = _judge(shop, "closure_exit", flag=True)
    line = _line(shop, "if self.flag:", after=_line(shop, "def closure_exit"))
    _under(_record(verdict, "unexercised", "past_name"), "past `if self.flag: return`", line)
