"""SGLang's own unit-test files, as the SGLang benchmarks use them: manifest, check, placing.

The files are public (github.com/sgl-project/sglang) but never committed here: the manifest
``bench/sglang_tests.toml`` names each by repository path, commit and length (characters),
with what it stands in for. They are expected under ``bench/_work/sglang-tests/<path>``
(``SGLANG_TESTS`` or ``--dir`` names another folder).

    python3 bench/sglang_tests.py                 # check; say what is missing and how to get it
    python3 bench/sglang_tests.py --from-clone C  # place them from a clone C of the repository
    python3 bench/sglang_tests.py --json          # the manifest with each file's state

A checked folder gets ``MANIFEST.json`` (a list of {path, commit}) for tools that only need the
list. A file whose length differs from the manifest is reported, never used silently.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "sglang_tests.toml"
DEFAULT_DIR = HERE / "_work" / "sglang-tests"
REPOSITORY = "https://github.com/sgl-project/sglang"


@dataclass(frozen=True)
class TestFile:
    path: str
    commit: str
    chars: int
    stands_in: str
    standins: tuple[str, ...]
    catalog: bool

    def state(self, folder: Path) -> str:
        """"ok", "missing", or "changed (N chars, manifest says M)"."""
        file = folder / self.path
        if not file.is_file():
            return "missing"
        chars = len(file.read_text(encoding="utf-8"))
        return "ok" if chars == self.chars else f"changed ({chars} chars, manifest says {self.chars})"


def tests_dir() -> Path:
    return Path(os.environ.get("SGLANG_TESTS") or DEFAULT_DIR)


def load_manifest(path: Path = MANIFEST) -> list[TestFile]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [TestFile(path=entry["path"], commit=entry["commit"], chars=entry["chars"],
                     stands_in=entry.get("stands_in", ""),
                     standins=tuple(entry.get("standins", ())),
                     catalog=bool(entry.get("catalog", False)))
            for entry in data["file"]]


def how_to_get(files: list[TestFile], folder: Path) -> str:
    lines = [f"  git -C sglang show {f.commit}:{f.path} > {folder / f.path}" for f in files]
    return (f"get them from a clone of {REPOSITORY} (git clone --filter=blob:none), then\n"
            f"  python3 bench/sglang_tests.py --dir {folder} --from-clone sglang\n"
            "or by hand (mkdir -p the folders first):\n" + "\n".join(lines))


def place_from_clone(files: list[TestFile], folder: Path, clone: Path) -> list[str]:
    """Write each file from ``git show COMMIT:PATH`` of a local clone; returns the failures."""
    failed = []
    for f in files:
        out = subprocess.run(["git", "-C", str(clone), "show", f"{f.commit}:{f.path}"],
                             capture_output=True)
        if out.returncode:
            failed.append(f"{f.path}@{f.commit[:10]}: {out.stderr.decode().strip()}")
            continue
        target = folder / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(out.stdout)
    return failed


def write_list(files: list[TestFile], folder: Path) -> Path:
    listing = folder / "MANIFEST.json"
    listing.write_text(json.dumps([{"path": f.path, "commit": f.commit} for f in files],
                                  indent=1) + "\n", encoding="utf-8")
    return listing


def ensure_tests(folder: Path | None = None) -> tuple[Path, list[TestFile]]:
    """The folder and the manifest's files; exits saying how to get them when any is absent."""
    folder = folder or tests_dir()
    files = load_manifest()
    bad = [(f, f.state(folder)) for f in files if f.state(folder) != "ok"]
    if bad:
        listing = "\n".join(f"  {f.path}: {state}" for f, state in bad)
        sys.exit(f"SGLang test files not ready under {folder}:\n{listing}\n"
                 + how_to_get([f for f, _ in bad], folder))
    return folder, files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None,
                        help="folder of the test files (default: $SGLANG_TESTS or "
                             "bench/_work/sglang-tests)")
    parser.add_argument("--from-clone", type=Path, default=None,
                        help="a local clone of sgl-project/sglang to place the files from")
    parser.add_argument("--json", action="store_true", help="print the manifest with states")
    args = parser.parse_args(argv)
    folder = (args.dir or tests_dir()).resolve()
    files = load_manifest()
    if args.from_clone:
        failed = place_from_clone(files, folder, args.from_clone)
        for line in failed:
            print("not placed:", line, file=sys.stderr)
    states = {f.path: f.state(folder) for f in files}
    if args.json:
        print(json.dumps([{"path": f.path, "commit": f.commit, "chars": f.chars,
                           "stands_in": f.stands_in, "state": states[f.path]} for f in files],
                         indent=1))
    bad = [f for f in files if states[f.path] != "ok"]
    if bad:
        if not args.json:
            for f in bad:
                print(f"{states[f.path]:>10}  {f.path}")
            print(how_to_get(bad, folder), file=sys.stderr)
        return 1
    listing = write_list(files, folder)
    if not args.json:
        print(f"{len(files)} SGLang test files ok under {folder}; list: {listing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
