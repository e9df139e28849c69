"""``audit()``: the whole uniformity audit of one class (or one method), from source alone."""

from __future__ import annotations

import ast
import gc
import re
import sys
import time
from collections.abc import Mapping
from fnmatch import fnmatchcase
from pathlib import Path

from deskcheck.errors import UnknownTargetError
from deskcheck.static import (
    CallResolver,
    Fn,
    Sources,
    StaticIndex,
    build_static,
    record_reads,
    split_spec,
)
from deskcheck.uniformity.cache import AuditCache, audit_key
from deskcheck.uniformity.config import UniformityConfig, load_uniformity_config
from deskcheck.uniformity.decide import gather, judge
from deskcheck.uniformity.declarations import arm_exists, check_declarations
from deskcheck.uniformity.model import AuditReport, NotEntered
from deskcheck.uniformity.reach import Reach
from deskcheck.uniformity.trace import Tracer

_INLINE = re.compile(r"#\s*deskcheck:\s*(agreed|role|replica|config)\b\s*(.*)$")


def audit(target: str, *, root: Path | str, roots_methods: list[str] | None = None,
          config: UniformityConfig | None = None, sources: Sources | None = None,
          overlay: Mapping[str, str] | None = None,
          cache: AuditCache | None = None) -> AuditReport:
    """Audit ``MODULE:Class`` (its root methods) or ``MODULE:Class.method`` under ``root``.

    ``config``: default ``[tool.deskcheck.uniformity]`` of ``root/pyproject.toml``.
    ``sources``/``overlay``: audit source text held in memory (mutants, can-fail arms).
    ``cache``: reuse a finished audit that still holds for these sources, else keep this one.
    """
    started = time.perf_counter()
    if sys.getrecursionlimit() < 100000:
        sys.setrecursionlimit(100000)  # input sets are walked recursively, hop by hop
    root_path = Path(root).resolve()
    if config is None:
        config = load_uniformity_config(root_path / "pyproject.toml")
    if sources is None:
        sources = Sources(overlay)
    key = audit_key(target, root_path, roots_methods, config) if cache is not None else ""
    collecting = gc.isenabled()
    gc.disable()  # the audit makes almost no cyclic garbage; each pass rescans the ASTs
    try:
        found = cache.lookup(key, sources) if cache is not None else None
        if found is not None:
            found.seconds = time.perf_counter() - started
            return found
        with record_reads() as reads:
            report = _audit(target, root_path, roots_methods, config, sources)
        if cache is not None:
            cache.store(key, sources, report, reads)
    finally:
        if collecting:
            gc.enable()
    report.seconds = time.perf_counter() - started
    return report


def _audit(target: str, root_path: Path, roots_methods: list[str] | None,
           config: UniformityConfig, sources: Sources) -> AuditReport:
    module, qualname, method = _split(target, sources, root_path)
    model = build_static(module, qualname, [root_path], sources)
    index = StaticIndex([root_path], sources)
    resolver = CallResolver(index)
    resolver.declared_components = {c.field: c.classes for c in config.components}
    patterns = [method] if method else (roots_methods or config.roots)
    roots = _root_methods(model, resolver, patterns, target)
    reach = Reach(resolver, config)
    reach.build(roots)
    reach.read_preconditions(roots, [*(fn.module for fn in roots),
                                     *(k.module for k in model.sources)])
    inline = _inline_declarations(reach, sources)
    sanctioned = {a.field: f"agreed by {a.collective}" + (f" ({a.why})" if a.why else "")
                  for a in config.agreed if a.field}
    sanctioned.update({r.field: f"replica checked by {r.arm}" if arm_exists(config, r.arm)
                       else f"replica, claimed by {r.arm} (no such test)" for r in config.replica})
    sanctioned.update({k: f"declared inline: {why}" for k, (kind, why) in inline.items()
                       if kind in ("agreed", "replica", "config")})
    tracer = Tracer(reach, sanctioned, config.rank_local, config.config,
                    lambda f, n: _line(sources, f, n))
    tracer.outside_writes = config.outside_writes
    tracer.agreed_calls = {a.call: _agreed_why(a) for a in config.agreed if a.call}
    tracer.made_by = {_agreed_why(a): a.collective for a in config.agreed if a.call}
    roles = {" ".join(r.condition.split()): r.why for r in config.role}
    inline_roles = {k: why for k, (kind, why) in inline.items() if kind == "role"}
    decisions = [judge(b, reach, tracer, roles, inline_roles) for b in gather(reach)]
    decisions.sort(key=lambda d: (d.file, d.line, d.condition))
    report = AuditReport(target, [f.qualname for f in roots], decisions, _unique(reach.sites),
                         functions=len({c.fn.key for c in reach.ctxs.values()}),
                         notes=list(dict.fromkeys(model.notes + resolver.notes + reach.notes
                                                  + [p.note() for p in
                                                     reach.preconditions.values()])))
    report.declarations = check_declarations(config, report, reach, tracer, model, inline)
    report.files_read = sorted(reach.files_read(model))
    report.not_entered = _not_entered(reach)
    return report


def _agreed_why(a) -> str:
    return f"returned agreed by {a.collective}" + (f" ({a.why})" if a.why else "")


def _not_entered(reach: Reach) -> list[NotEntered]:
    """Every call on the walk whose receiver did not resolve, once per place."""
    found = {(c.fn.file, call.lineno, ast.unparse(call.func)): note
             for c in reach.ctxs.values() for call, note in c.unresolved}
    return [NotEntered(file, line, text, why) for (file, line, text), why in sorted(found.items())]


def _split(target: str, sources: Sources, root: Path) -> tuple[str, str, str | None]:
    module, qualname, method = split_spec(target)
    if method is not None:
        # MODULE:Class (no method) is split as Class=module part... tell them apart by case
        index = StaticIndex([root], sources)
        try:
            index.find_class(module, f"{qualname}.{method}")
            return module, f"{qualname}.{method}", None
        except Exception:
            return module, qualname, method
    return module, qualname, None


def _root_methods(model, resolver: CallResolver, patterns: list[str], target: str) -> list[Fn]:
    names: list[str] = []
    for klass in model.sources:
        for name, member in klass.members.items():
            if member.is_function and any(fnmatchcase(name, p) for p in patterns) \
                    and name not in names:
                names.append(name)
    fns = [fn for fn in (resolver.method(model, n) for n in names) if fn is not None]
    if not fns:
        raise UnknownTargetError(
            f"{model.name} has no method matching {patterns}", location=model.location,
            fix="name the root methods with --roots (globs), or audit MODULE:Class.method")
    return fns


def _inline_declarations(reach: Reach, sources: Sources) -> dict[str, tuple[str, str]]:
    """``# deskcheck: agreed|role|replica <why>`` comments in the files the audit entered."""
    out: dict[str, tuple[str, str]] = {}
    for file in reach.files_read():
        try:
            text = sources.parse(file).data.decode("utf-8", "replace")
        except Exception:
            continue
        if "deskcheck:" not in text:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = _INLINE.search(line)
            if match:
                out[f"{file}:{number}"] = (match.group(1), match.group(2).strip() or match.group(1))
    return out


def _line(sources: Sources, file: str, number: int) -> str:
    try:
        lines = sources.parse(file).data.decode("utf-8", "replace").splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""
    except Exception:
        return ""


def _unique(sites):
    seen = {}
    for site in sites:
        seen.setdefault((site.file, site.line, site.call), site)
    return sorted(seen.values(), key=lambda s: (s.file, s.line))
