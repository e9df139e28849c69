"""A self-contained HTML report: one file, no network (inline CSS and JS), each target's
source with its mutated lines marked, and every mutant inline with its diff and verdict.

The page opens with the mutation score (KILLED over judged mutants, accepted survivors
apart). Each mutated source line is coloured by the verdict of the mutants on it (the worst
one, when several). The page is complete without JavaScript; the script only filters by
verdict (buttons, or ``#verdict=SURVIVED`` in the address) and keeps every count in step
with the filter: "N of M mutants shown" and each target heading's "N of M mutants".
"""

from __future__ import annotations

from html import escape

from deskcheck.report.locations import function_span, mutant_span
from deskcheck.report.records import HOLDING_VERDICTS, MutantRecord
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import kill_phrase, kill_split, mutation_score, verdict_order
from deskcheck.report.wording import excerpt_lines, fix_hint, verdict_message

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em;color:#222}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.5em 0 .3em}
h3{font-size:1em;margin:.2em 0}code,pre{font:12.5px/1.4 ui-monospace,monospace}
pre{background:#f6f8fa;padding:.6em;overflow:auto;border-radius:4px;margin:.4em 0}
.badge{display:inline-block;padding:0 .5em;border-radius:3px;color:#fff;font-size:.85em}
.v-KILLED{background:#1a7f37}.v-ACCEPTED_SURVIVOR{background:#0969da}
.v-SURVIVED,.v-OWNER_MISSED,.v-WRONG_FAILURE{background:#cf222e}.v-TIMEOUT{background:#8250df}
.v-STALE,.v-BROKEN,.v-NOT_INJECTABLE,.v-BASELINE_RED{background:#9a6700}.v-NO_COVERAGE{background:#57606a}
.mutant{border:1px solid #d0d7de;border-radius:6px;padding:.5em .8em;margin:.6em 0}
.mutant dl{display:grid;grid-template-columns:max-content 1fr;gap:.1em .8em;margin:.3em 0}
.mutant dt{color:#57606a}.mutant dd{margin:0}
.source .ln{display:inline-block;width:3.5em;color:#8c959f;user-select:none}
.source .mutated{background:#fff8c5;display:inline-block;min-width:100%}
.source .l-KILLED{background:#dafbe1}.source .l-ACCEPTED_SURVIVOR{background:#ddf4ff}
.source .l-SURVIVED,.source .l-OWNER_MISSED,.source .l-WRONG_FAILURE{background:#ffebe9}
.source .l-TIMEOUT{background:#fbefff}
.source .l-STALE,.source .l-BROKEN,.source .l-BASELINE_RED{background:#fff8c5}
.score{font-size:1.1em;margin:.4em 0}.score b{font-size:1.3em}
.legend span{display:inline-block;padding:0 .4em;margin-right:.4em;border-radius:3px}
.diff .add{color:#1a7f37}.diff .del{color:#cf222e}.diff .hunk{color:#8250df}
#filters button{margin:0 .3em .3em 0;cursor:pointer}
#filters button.active{outline:2px solid #0969da}
"""

_JS = """
(function(){
  var mutants=[].slice.call(document.querySelectorAll('article.mutant'));
  var count=document.getElementById('shown-count');
  function show(verdict){
    var shown=0;
    mutants.forEach(function(m){
      var on=!verdict||m.getAttribute('data-verdict')===verdict;
      if(on){m.removeAttribute('hidden');shown++;}else{m.setAttribute('hidden','');}
    });
    document.querySelectorAll('section.target').forEach(function(s){
      var all=s.querySelectorAll('article.mutant').length;
      var on=s.querySelectorAll('article.mutant:not([hidden])').length;
      if(on){s.removeAttribute('hidden');}else{s.setAttribute('hidden','');}
      var c=s.querySelector('.target-count');
      if(c){c.textContent=(on===all?all:on+' of '+all)+' mutant'+(all===1?'':'s');}
    });
    document.querySelectorAll('#filters button').forEach(function(b){
      b.classList.toggle('active',(b.getAttribute('data-verdict')||'')===(verdict||''));
    });
    count.textContent=shown+' of '+mutants.length+' mutants shown';
  }
  document.querySelectorAll('#filters button').forEach(function(b){
    b.addEventListener('click',function(){
      var v=b.getAttribute('data-verdict')||'';
      history.replaceState(null,'',v?'#verdict='+v:'#');show(v);
    });
  });
  var m=/verdict=([A-Z_]+)/.exec(location.hash);show(m?m[1]:'');
})();
"""


def _badge(verdict: str) -> str:
    return f'<span class="badge v-{escape(verdict)}">{escape(verdict)}</span>'


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        kind = ("hunk" if line.startswith(("@@", "---", "+++")) else "add" if line.startswith("+")
                else "del" if line.startswith("-") else "")
        text = escape(line)
        out.append(f'<span class="{kind}">{text}</span>' if kind else text)
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


def _list(items: list[str]) -> str:
    return ", ".join(f"<code>{escape(i)}</code>" for i in items) or "—"


def _mutant_html(mutant: MutantRecord) -> str:
    rows = [("operator", escape(mutant.operator)), ("owners", _list(mutant.owners)),
            ("killed by", _list(mutant.killed_by)),
            ("why", escape("survived: no test failed under the mutant"  # owners: row above
                           if mutant.verdict == "SURVIVED" else verdict_message(mutant))),
            ("time", "reused from an earlier run" if mutant.reused
             else f"{mutant.duration_s:.3f} s")]
    if mutant.failed_non_owners:
        rows.insert(3, ("failed, not owners", _list(mutant.failed_non_owners)))
    hint = fix_hint(mutant)
    if hint:
        rows.append(("fix", escape(hint)))
    parts = [f'<article class="mutant" id="mutant-{escape(mutant.id)}" '
             f'data-mutant-id="{escape(mutant.id)}" data-verdict="{escape(mutant.verdict)}">',
             f"<h3><code>{escape(mutant.id)}</code> {escape(mutant.title)} "
             f"{_badge(mutant.verdict)}</h3>",
             "<dl>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"]
    if mutant.diff:
        parts.append(_diff_html(mutant.diff))
    parts.append(_evidence_html(mutant))
    parts.append("</article>")
    return "\n".join(p for p in parts if p)


def _evidence_html(mutant: MutantRecord) -> str:
    """What the tests did: the failure (less what the card says already) or, for a
    survivor, every test that ran under the mutant and passed, with the time they took."""
    if mutant.verdict in ("SURVIVED", "ACCEPTED_SURVIVOR"):
        ran = [str(n) for n in mutant.detail.get("items_run", [])] or list(mutant.owners)
        if not ran:
            return ""
        took = mutant.detail.get("tests_s")
        head = (f"{len(ran)} test(s) ran under the mutant and passed"
                + (f" in {float(took):.3f} s" if took is not None else ""))
        return (f'<details open class="evidence"><summary>{escape(head)}</summary><ul>'
                + "".join(f"<li><code>{escape(n)}</code> passed</li>" for n in ran)
                + "</ul></details>")
    lines = excerpt_lines(mutant)
    if not lines:
        return ""
    return ("<details><summary>failure excerpt</summary><pre>"
            f"{escape(chr(10).join(lines))}</pre></details>")


def _source_html(data: ReportData, target: str, mutants: list[MutantRecord]) -> str:
    source_file = next((data.mutated_file(m) for m in mutants if data.mutated_file(m)), "")
    text = data.source_text(source_file)
    if text is None:
        return "<p><em>source not available</em></p>"
    lines = text.splitlines()
    verdicts = {m.id: m.verdict for m in mutants}
    marks: dict[int, list[str]] = {}
    for mutant in mutants:
        span = mutant_span(mutant, text)
        for line in range(span.start_line, span.end_line + 1):
            marks.setdefault(line, []).append(mutant.id)
    first, last = function_span(text, target) or (
        min(marks, default=1), max(marks, default=len(lines)))
    rows = []
    for number in range(first, min(last, len(lines)) + 1):
        code = f'<span class="ln">{number}</span>{escape(lines[number - 1])}'
        if number in marks:
            title = escape("mutated by " + ", ".join(marks[number]))
            worst = min((verdicts[mid] for mid in marks[number]), key=verdict_order)
            code = (f'<span class="mutated l-{escape(worst)}" data-line-verdict='
                    f'"{escape(worst)}" title="{title}">{code}</span>')
        rows.append(code)
    where = f"{escape(data.relative_path(source_file))}:{first}-{last}"
    return f'<p><code>{where}</code></p><pre class="source">' + "\n".join(rows) + "</pre>"


def _score_html(mutants: list[MutantRecord]) -> str:
    """The mutation score line and the legend of the source-line colours."""
    score = mutation_score(mutants)
    value = "n/a" if score["score"] is None else f"{score['score']:.1f}%"
    apart = []
    if score["accepted"]:
        apart.append(f"{score['accepted']} accepted survivor(s) shown apart")
    if score["not_judged"]:
        apart.append(f"{score['not_judged']} not judged (stale, broken or baseline red)")
    legend = "".join(f'<span class="source l-{v}"><span class="mutated l-{v}">{label}'
                     "</span></span>" for v, label in (
                         ("KILLED", "killed"), ("SURVIVED", "survived / missed / wrong"),
                         ("ACCEPTED_SURVIVOR", "accepted"), ("TIMEOUT", "timeout"),
                         ("STALE", "not judged")))
    return (f'<p class="score" id="mutation-score">Mutation score <b>{value}</b>: '
            f"{score['killed']} killed by their owners of {score['judged']} judged"
            + (f" ({escape(proof)})" if (proof := kill_phrase(kill_split(mutants))) else "")
            + (f" · {' · '.join(apart)}" if apart else "") + "</p>"
            + f'<p class="legend">mutated lines: {legend}</p>')


def render(data: ReportData) -> str:
    run, summary = data.run, data.summary
    by_target: dict[str, list[MutantRecord]] = {}
    for mutant in sorted(data.mutants, key=lambda m: (verdict_order(m.verdict), m.id)):
        by_target.setdefault(mutant.target, []).append(mutant)
    order = sorted(by_target, key=lambda t: (min(verdict_order(m.verdict)
                                                 for m in by_target[t]), t))
    sections = []
    for target in order:
        mutants = by_target[target]
        sections.append(
            f'<section class="target" data-target="{escape(target)}">'
            f'<h2><code>{escape(target)}</code> — <span class="target-count">'
            f"{len(mutants)} mutant{'s' if len(mutants) != 1 else ''}</span></h2>"
            + _source_html(data, target, mutants)
            + "\n".join(_mutant_html(m) for m in mutants) + "</section>")
    counts = {v: n for v, n in summary.get("counts", {}).items() if n}
    buttons = ['<button type="button" data-verdict="">all</button>'] + [
        f'<button type="button" data-verdict="{escape(v)}">{_badge(v)} {n}</button>'
        for v, n in sorted(counts.items(), key=lambda kv: verdict_order(kv[0]))]
    holds = all(m.verdict in HOLDING_VERDICTS for m in data.mutants)
    score = _score_html(data.mutants)
    title = f"deskcheck {run.kind} run {run.id}"
    meta = " · ".join(escape(x) for x in (
        f"commit {run.commit[:12] or 'unknown'}", f"branch {run.branch or 'unknown'}",
        f"tier {run.tier}", f"started {run.started_at}", f"status {run.status}",
        f"deskcheck {run.deskcheck_version}") + ((f"shard {run.shard}",) if run.shard else ()))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{escape(title)}</title><style>{_CSS}</style></head>
<body><header><h1>{escape(title)}: {'holds' if holds else 'falls short'}</h1>
<p>{meta}</p>
{score}
<nav id="filters">{''.join(buttons)}</nav>
<p id="shown-count">{len(data.mutants)} mutants</p></header>
<main>
{chr(10).join(sections) or '<p>No mutants in this run.</p>'}
</main>
<script>{_JS}</script>
</body></html>
"""
