"""The two GitHub workflows ``deskcheck init`` writes, fitted to a project's shape.

Each step is there because the project has what it checks (``ProjectShape``): hand-built
stand-ins get ``deskcheck standins`` and ``drift --changed-since``; registered harnesses get
``deskcheck drift``; a catalog gets the incremental sweep (PR) and the sharded sweep (nightly);
``-m metal`` tests get the GPU job. ``decisions`` says, in words, what was left out and why.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from importlib import resources

from deskcheck.report.project_shape import ProjectShape

COMMENT_MARKER = "<!-- deskcheck:pr-comment -->"
DEFAULT_TORCH = "2.13.0"  # the Makefile's pin, when this environment has no torch

_IF = "        if: ${{ !cancelled() }}\n"


@dataclass
class Workflows:
    """File name -> text (``None``: not written, see ``decisions``) and what was decided."""

    files: dict[str, str | None] = field(default_factory=dict)
    decisions: list[str] = field(default_factory=list)


def template(name: str) -> str:
    return (resources.files("deskcheck.report") / "templates" / name).read_text(
        encoding="utf-8")


def torch_version() -> str:
    """The torch release to pin: this environment's (less a ``+cpu`` tag), else the default.
    Never left open: an open range pulls a CUDA build."""
    from importlib import metadata

    try:
        return metadata.version("torch").split("+", 1)[0]
    except metadata.PackageNotFoundError:
        return DEFAULT_TORCH


def deskcheck_requirement(extras: list[str]) -> str:
    """``deskcheck[auto,torch]==VERSION``: what every job installs to run its steps."""
    from deskcheck import __version__

    wanted = f"[{','.join(sorted(set(extras)))}]" if extras else ""
    return f"deskcheck{wanted}=={__version__}"


def install_command(shape: ProjectShape, extras: list[str]) -> str:
    """The project (with its own extra that lists deskcheck, if any) and deskcheck with the
    extras the job's steps need."""
    project = "." if not shape.deskcheck_extra else f".[{shape.deskcheck_extra}]"
    return f"python -m pip install -e {shlex.quote(project)} " \
           f"{shlex.quote(deskcheck_requirement(extras))}"


def install_steps(shape: ProjectShape, extras: list[str]) -> str:
    steps = ""
    if shape.uses_torch:
        steps += ("      - name: Install a CPU torch wheel first (pinned; an unpinned `torch` "
                  "pulls a multi-GB CUDA build)\n"
                  f"        run: python -m pip install \"torch=={torch_version()}\" "
                  "--index-url https://download.pytorch.org/whl/cpu\n")
    steps += ("      - name: Install the project and deskcheck\n"
              "        run: |\n"
              "          python -m pip install --upgrade pip\n"
              f"          {install_command(shape, extras)}\n")
    return steps


def _step(name: str, run: str, guard: bool = True) -> str:
    body = run if "\n" not in run else "|\n" + "".join(
        f"          {line}\n" for line in run.splitlines()).rstrip("\n")
    return f"      - name: {name}\n" + (_IF if guard else "") + f"        run: {body}\n"


def _catalog_arg(shape: ProjectShape) -> str:
    if shape.catalog is None or shape.catalog_configured:
        return ""
    return f" --catalog {shlex.quote(shape.catalog)}"


COMMENT_SCRIPT = f"""{{ echo '{COMMENT_MARKER}'; cat deskcheck-*.md; }} > comment.md 2>/dev/null || exit 0
# edit deskcheck's own comment (found by its marker), never another one
id=$(gh api "repos/$REPO/issues/$PR/comments" --paginate \\
     --jq '.[] | select(.body | startswith("{COMMENT_MARKER}")) | .id' | head -n 1)
if [ -n "$id" ]; then
  gh api --method PATCH "repos/$REPO/issues/comments/$id" -F body=@comment.md > /dev/null
else
  gh pr comment "$PR" --body-file comment.md
fi"""


def pr_checks(shape: ProjectShape) -> tuple[str, list[str]]:
    """The PR job's checking steps and, in words, what each is there for."""
    steps, what = "", []
    if shape.adhoc_standins:
        steps += _step("Hand-built stand-ins (Cls.__new__, SimpleNamespace, MagicMock(spec=)) "
                       "judged on the paths their tests drive", "deskcheck standins")
        what.append("stand-in checks")
    if shape.harnesses:
        steps += _step("Drift guards of the registered harnesses and stubs", "deskcheck drift")
        what.append("drift guards")
    if shape.stand_ins:
        steps += _step("Names the branch newly needs on the stand-ins' driven paths",
                       'deskcheck drift --changed-since "$BASE" --markdown deskcheck-drift.md')
    steps += _step("Red-first (new tests fail on the base and pass on the branch)",
                   'deskcheck redfirst --base "$BASE" --json deskcheck-redfirst.json '
                   "--markdown deskcheck-redfirst.md")
    steps += _step("Regressions (failed ids on the branch minus those on the base)",
                   'deskcheck regress --base "$BASE" -n 2 --json deskcheck-regress.json '
                   "--markdown deskcheck-regress.md")
    what += ["red-first and regression gates against the base branch"]
    if shape.catalog:
        steps += _step("Incremental sweep of the changed targets and owners",
                       f'deskcheck sweep{_catalog_arg(shape)} --changed-since "$BASE"')
        steps += _step("Reports", "\n".join(
            f"deskcheck report latest --kind sweep --format {fmt} --output {out}"
            for fmt, out in (("markdown", "deskcheck-sweep.md"),
                             ("junit", "deskcheck-junit.xml"),
                             ("html", "deskcheck-report.html"))))
        what.append("an incremental sweep of the mutants whose targets or owners changed")
    steps += _step("Job summary",
                   'cat deskcheck-*.md >> "$GITHUB_STEP_SUMMARY" 2>/dev/null || true')
    steps += ("      - name: PR comment (deskcheck's own, found by its marker, edited in place)\n"
              "        if: ${{ !cancelled() && github.event.pull_request.head.repo.full_name "
              "== github.repository }}\n"
              "        env:\n"
              "          GH_TOKEN: ${{ github.token }}\n"
              "          PR: ${{ github.event.pull_request.number }}\n"
              "          REPO: ${{ github.repository }}\n"
              "        run: |\n" + "".join(f"          {line}\n" if line else "\n"
                                           for line in COMMENT_SCRIPT.splitlines()))
    return steps, what


def pr_workflow(shape: ProjectShape) -> str:
    steps, what = pr_checks(shape)
    extras = ["torch"] if shape.uses_torch else []
    return (template("deskcheck-pr.yml").replace("@INSTALL@\n", install_steps(shape, extras))
            .replace("@CHECKS@\n", steps).replace("@WHAT@", ", ".join(what)))


def nightly_workflow(shape: ProjectShape) -> str | None:
    jobs, what = "", []
    if shape.metal_tests:
        gpu_install = install_command(shape, ["torch"])
        jobs += template("nightly-gpu.yml").replace("@GPU_INSTALL@", gpu_install)
        what.append("the METAL tier on a GPU runner (`deskcheck suites metal`)")
    if shape.catalog:
        extras = ["auto", *(["torch"] if shape.uses_torch else [])]
        jobs += (template("nightly-sweep.yml").replace("@INSTALL@\n", install_steps(shape, extras))
                 .replace("@CATALOG@", _catalog_arg(shape)))
        what.append("the full mutant sweep in shards, merged into one run, and a diff against "
                    "last night's run (the store kept as an artifact)")
    if not jobs:
        return None
    return template("nightly-head.yml").replace("@WHAT@", "; ".join(what)) + jobs


def build_workflows(shape: ProjectShape) -> Workflows:
    """Both workflows for ``shape`` and every decision, said in words."""
    result = Workflows()
    result.files[".github/workflows/deskcheck-pr.yml"] = pr_workflow(shape)
    result.files[".github/workflows/deskcheck-nightly.yml"] = nightly_workflow(shape)
    say = result.decisions.append
    if shape.adhoc_standins:
        say(f"{len(shape.adhoc_standins)} hand-built stand-in(s) (first: "
            f"{shape.adhoc_standins[0]}): `deskcheck standins` and `drift --changed-since`")
    if shape.harnesses:
        say(f"{len(shape.harnesses)} registered harness(es)/stub(s) (first: "
            f"{shape.harnesses[0]}): `deskcheck drift`")
    if not shape.stand_ins:
        say("no stand-in found in the tests: no drift step")
    if shape.catalog:
        say(f"catalog {shape.catalog}: the incremental sweep (PR) and the sharded sweep "
            "(nightly)")
    else:
        say("no mutant catalog (mutants.toml): no sweep; add one, then rerun `deskcheck init` "
            "(after deleting the workflows) or add the sweep steps by hand")
    if shape.metal_tests:
        say(f"-m metal tests ({shape.metal_tests[0]}): the GPU nightly (`deskcheck suites "
            "metal`)")
    else:
        say("no -m metal tests: no GPU job")
    if result.files[".github/workflows/deskcheck-nightly.yml"] is None:
        say("no catalog and no -m metal tests: no nightly workflow")
    return result
