"""JUnit XML: one testcase per mutant, so a CI test tab lists every survivor.

KILLED passes. SURVIVED, OWNER_MISSED, WRONG_FAILURE and STALE are ``<failure>``s: a test or a
catalog entry is wrong and someone must fix it. TIMEOUT, BROKEN and BASELINE_RED are
``<error>``s: the mutant could not be judged. ACCEPTED_SURVIVOR is ``<skipped>`` with its reason.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from deskcheck.report.records import MutantRecord
from deskcheck.report.reportdata import ReportData
from deskcheck.report.summary import killed_phrase
from deskcheck.report.wording import accepted_reason, verdict_message

__all__ = ["accepted_reason", "render", "verdict_message", "xml_safe"]

FAILURE_VERDICTS = ("SURVIVED", "OWNER_MISSED", "WRONG_FAILURE", "STALE")
ERROR_VERDICTS = ("TIMEOUT", "BROKEN", "BASELINE_RED")
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """Drop characters XML 1.0 cannot carry (terminal escapes in a captured failure)."""
    return _XML_ILLEGAL.sub("", text)


def _details(mutant: MutantRecord) -> str:
    parts = [f"{mutant.id}: {mutant.title}", f"target: {mutant.target}",
             f"operator: {mutant.operator}", f"owners: {', '.join(mutant.owners)}"]
    if mutant.excerpt:
        parts += ["", mutant.excerpt]
    if mutant.diff:
        parts += ["", mutant.diff]
    return xml_safe("\n".join(parts))


def render(data: ReportData) -> str:
    mutants = data.mutants
    failures = sum(m.verdict in FAILURE_VERDICTS for m in mutants)
    errors = sum(m.verdict in ERROR_VERDICTS for m in mutants)
    skipped = sum(m.verdict == "ACCEPTED_SURVIVOR" for m in mutants)
    total_time = f"{sum(m.duration_s for m in mutants):.3f}"
    suites = ET.Element("testsuites", name="deskcheck", tests=str(len(mutants)),
                        failures=str(failures), errors=str(errors), skipped=str(skipped),
                        time=total_time)
    suite = ET.SubElement(
        suites, "testsuite", name=f"deskcheck.{data.run.kind}", tests=str(len(mutants)),
        failures=str(failures), errors=str(errors), skipped=str(skipped), time=total_time,
        timestamp=data.run.started_at, hostname=data.run.machine or "unknown")
    properties = ET.SubElement(suite, "properties")
    for name in ("commit", "branch", "tier", "shard", "deskcheck_version"):
        ET.SubElement(properties, "property", name=name, value=str(getattr(data.run, name)))
    ET.SubElement(properties, "property", name="kills", value=killed_phrase(mutants))
    for mutant in mutants:
        case = ET.SubElement(suite, "testcase", classname=mutant.target.replace(":", "."),
                             name=mutant.id, time=f"{mutant.duration_s:.3f}")
        path = data.mutated_file(mutant)
        if path:
            case.set("file", data.relative_path(path))
            if mutant.source_line and mutant.source_file == path:
                case.set("line", str(mutant.source_line))
        message = xml_safe(verdict_message(mutant))
        if mutant.verdict in FAILURE_VERDICTS:
            ET.SubElement(case, "failure", message=message, type=mutant.verdict).text = \
                _details(mutant)
        elif mutant.verdict in ERROR_VERDICTS:
            ET.SubElement(case, "error", message=message, type=mutant.verdict).text = \
                _details(mutant)
        elif mutant.verdict == "ACCEPTED_SURVIVOR":
            ET.SubElement(case, "skipped", message=message)
        else:
            reused = " (verdict reused)" if mutant.reused else ""
            ET.SubElement(case, "system-out").text = xml_safe(message + reused)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
