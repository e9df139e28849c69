"""Rewrite the kill table of docs/selfproof.md from a fresh self-sweep.

    .venv/bin/python bench/selfproof_kill_table.py [--from-json SWEEP.json]

Runs ``deskcheck sweep --catalog tests/mutants.toml --no-store --json`` and puts, for each
self-mutant, its verdict, the owner that killed it and the first line of that failure between
the ``kill table`` markers. Exits 1 (leaving the doc alone) when a mutant is not KILLED.
``--from-json`` reads the ``--json`` of a self-sweep just run instead of running another.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "selfproof.md"
BEGIN, END = "<!-- kill table: begin -->", "<!-- kill table: end -->"


def short_nodeid(nodeid: str) -> str:
    return nodeid.removeprefix("tests/").replace(".py::", "::")


def first_line(excerpt: str, limit: int = 150) -> str:
    line = excerpt.split(": ", 1)[-1].splitlines()[0] if excerpt else ""
    line = line.replace("|", "\\|")
    return line if len(line) <= limit else line[:limit] + "…"


def table(mutants: list[dict]) -> str:
    rows = ["| mutant | owner that kills it | its failure (first line) |", "|---|---|---|"]
    for m in mutants:
        owner = short_nodeid((m["killed_by"] or m["owners"] or ["-"])[0])
        rows.append(f"| `{m['id']}` ({m['verdict']}) | `{owner}` | {first_line(m['excerpt'])} |")
    return "\n".join(rows)


def fresh_sweep() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sweep.json"
        subprocess.run([sys.executable, "-m", "deskcheck.cli", "sweep", "--catalog",
                        "tests/mutants.toml", "--no-store", "--json", str(out)], cwd=ROOT,
                       check=False, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())["mutants"]


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--from-json":
        mutants = json.loads(Path(sys.argv[2]).read_text())["mutants"]
    else:
        mutants = fresh_sweep()
    short = [m["id"] for m in mutants if m["verdict"] != "KILLED"]
    if short:
        print(f"not KILLED, doc left alone: {short}", file=sys.stderr)
        return 1
    text = DOC.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{table(mutants)}\n{END}{tail}")
    print(f"{DOC.relative_to(ROOT)}: {len(mutants)} mutants, all KILLED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
