"""Reading a TOML file a person wrote (a catalog, pyproject.toml): bytes that are not UTF-8
and a byte-order mark are ``file:line`` errors with the fix, never a ``UnicodeDecodeError``."""

from __future__ import annotations

from pathlib import Path

from deskcheck.errors import ConfigError

BOM = "\ufeff"


def read_toml_text(path: Path, error: type[ConfigError] = ConfigError) -> str:
    """The text of ``path``; raise ``error`` naming the line of a non-UTF-8 byte or a BOM."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(f"{path.name} is not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
                    f"column {column} ({exc.reason})", location=f"{path}:{line}",
                    fix="TOML files are UTF-8: re-save the file as UTF-8 (e.g. `iconv -f "
                        f"latin1 -t utf-8 {path.name}`), or replace that character") from exc
    if text.startswith(BOM):
        raise error(f"{path.name} starts with a UTF-8 byte-order mark (BOM), which TOML does "
                    "not allow", location=f"{path}:1",
                    fix="save the file as UTF-8 without a BOM (e.g. `sed -i '1s/^\\xEF\\xBB\\xBF//' "
                        f"{path.name}`)")
    return text
