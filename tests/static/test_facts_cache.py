"""The facts cache of ``function_facts`` (static/_collect.py): one function read for two
different names (``self`` and another parameter) gives each name's own touches, never the
facts cached for the other name."""

from __future__ import annotations

import ast

from deskcheck.static._collect import clear_cache, function_facts

SOURCE = '''
def step(self, other):
    self.ready = True
    return other.queue
'''


def test_one_function_read_for_two_names_gives_each_its_own_touches() -> None:
    clear_cache()
    node = ast.parse(SOURCE).body[0]
    first = {a.name for a in function_facts(node, "self").accesses}
    second = {a.name for a in function_facts(node, "other").accesses}
    assert (first, second) == ({"ready"}, {"queue"}), (
        f"step() touches self.ready and other.queue: read for 'self' it must give ready, "
        f"for 'other' queue (the cache is keyed by the name too); got {first} and {second}")
