"""A catalog derived from another one: some of its mutants, with their owners filtered, every
path made absolute, written where a test wants it (nothing is written next to the source)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from deskcheck.mutants.catalog import Catalog, Mutant


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(value)  # a TOML basic string


def _owner(catalog: Catalog, owner: str) -> str:
    if owner.startswith(("uniformity:", "-k", "-m")):
        return owner
    return str(catalog.root / owner)


def write_derived(catalog: Catalog, mutants: Iterable[Mutant], path: Path,
                  keep_owner: Callable[[str], bool]) -> Path:
    """``path``: a catalog of ``mutants`` owned only by the owners ``keep_owner`` keeps."""
    tests = [str(catalog.root / t) for t in catalog.settings.tests] or [str(catalog.root)]
    lines = ["[sweep]", f"tests = {_value(tests)}",
             f"timeout_factor = {catalog.settings.timeout_factor!r}",
             f"timeout_s = {catalog.settings.timeout_s!r}", ""]
    if catalog.uniformity is not None:
        audit = catalog.uniformity
        lines += ["[uniformity]", f"target = {_value(audit.target)}",
                  f"root = {_value(str(audit.root_path(catalog.root)))}"]
        pyproject = audit.pyproject_path(catalog.root)
        if pyproject is not None:
            lines.append(f"pyproject = {_value(str(pyproject))}")
        lines += [f"strict = {_value(audit.strict)}", ""]
    for mutant in mutants:
        owners = [_owner(catalog, o) for o in mutant.owners if keep_owner(o)]
        lines += ["[[mutant]]", f"id = {_value(mutant.id)}", f"title = {_value(mutant.title)}",
                  f"target = {_value(mutant.target)}", f"operator = {_value(mutant.operator)}",
                  *(f"{k} = {_value(v)}" for k, v in mutant.params.items()),
                  f"owners = {_value(owners)}"]
        if mutant.expect is not None and any(not o.startswith("uniformity:") for o in owners):
            lines.append(f"expect = {_value(mutant.expect)}")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
