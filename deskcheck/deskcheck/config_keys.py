"""Every ``[tool.deskcheck]`` key, its type and an example: checked when the config is
loaded, so a wrongly typed or unknown key is one ``pyproject.toml:LINE`` error (all of them
in one pass), never a ``TypeError`` deep inside a command."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from deskcheck.errors import ConfigError

_STR = (str,)
_LIST = (list,)
_PATHS = (str, list)
_NUMBER = (int, float)

# key -> (accepted types, the example the fix shows); lists hold strings only
KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "catalog": (_STR, 'a path, e.g. catalog = "mutants.toml"'),
    "store": (_STR, 'a path, e.g. store = ".deskcheck/results.sqlite"'),
    "harnesses": (_LIST, 'a list of paths or modules, e.g. harnesses = ["tests"]'),
    "test_paths": (_PATHS, 'a list of paths, e.g. test_paths = ["tests"]'),
    "source_paths": (_PATHS, 'a list of paths, e.g. source_paths = ["src"]'),
    "auto_max_mutants": ((int,), "an integer (-1: no cap), e.g. auto_max_mutants = 50"),
    "auto_max_per_line": ((int,), "an integer >= 1, e.g. auto_max_per_line = 1"),
    "auto_operators": (_LIST, 'a list of operator names, e.g. auto_operators = ["ROR"]'),
    "auto_arid_calls": (_LIST, 'a list of patterns, e.g. auto_arid_calls = ["log.*"]'),
    "auto_tests": (_LIST, 'a list of pytest arguments, e.g. auto_tests = ["tests"]'),
    "auto_coverage_timeout": (_NUMBER, "seconds, e.g. auto_coverage_timeout = 1800"),
    "auto_timeout_s": (_NUMBER, "seconds, e.g. auto_timeout_s = 10"),
    "auto_timeout_factor": (_NUMBER, "a factor, e.g. auto_timeout_factor = 3"),
    "auto_wrong_failure_types": (_LIST, 'exception names, e.g. auto_wrong_failure_types = '
                                        '["TypeError"]'),
    "auto_crash_kills": (_STR, 'a rule, e.g. auto_crash_kills = "fall-short"'),
    "desk_env": ((dict,), "a table of the DESK tier's variables, e.g. [tool.deskcheck.desk_env] "
                          'with CUDA_VISIBLE_DEVICES = false (docs/suites.md)'),
    "uniformity": ((dict,), "a table, e.g. [tool.deskcheck.uniformity] with roots = "
                            '["event_loop*"] (docs/uniformity.md)'),
}


def _right_type(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) or not isinstance(value, types):
        return False
    return not isinstance(value, list) or all(isinstance(v, str) for v in value)


def key_lines(text: str) -> dict[str, int]:
    """The line of each key of the ``[tool.deskcheck]`` table, and of its header (``""``)."""
    found: dict[str, int] = {}
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header = re.match(r"^\[\s*([^\[\]]+?)\s*\]", stripped)
        if header:
            inside = header.group(1).replace(" ", "") == "tool.deskcheck"
            if inside:
                found[""] = number
            continue
        key = re.match(r"^([A-Za-z0-9_-]+|\"[^\"]+\")\s*=", stripped)
        if inside and key:
            found.setdefault(key.group(1).strip('"'), number)
        elif not inside and stripped.startswith("tool.deskcheck."):  # dotted keys at top
            dotted = re.match(r"^tool\.deskcheck\.([A-Za-z0-9_-]+)\s*=", stripped)
            if dotted:
                found.setdefault(dotted.group(1), number)
    return found


def check_section(section: dict[str, Any], pyproject: Path, text: str) -> None:
    """Raise one ``ConfigError`` listing every unknown or wrongly typed key."""
    lines = key_lines(text)
    errors: list[ConfigError] = []
    for key, value in section.items():
        where = f"{pyproject}:{lines.get(key, lines.get('', '?'))}"
        if key not in KEYS:
            close = difflib.get_close_matches(key, list(KEYS), n=1)
            errors.append(ConfigError(
                f"[tool.deskcheck] has an unknown key {key!r}"
                + (f"; did you mean {close[0]!r}?" if close else ""), location=where,
                fix=(f"rename it to {close[0]!r}" if close else
                     f"remove it; the keys are {', '.join(KEYS)}")))
            continue
        types, example = KEYS[key]
        if not _right_type(value, types):
            errors.append(ConfigError(f"[tool.deskcheck] {key} = {value!r} has the wrong type",
                                      location=where, fix=f"write {key} as {example}"))
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigError(f"{len(errors)} problem(s) in [tool.deskcheck] of {pyproject}",
                          location=str(pyproject), errors=errors)
