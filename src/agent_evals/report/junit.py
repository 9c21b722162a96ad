"""JUnit XML from a comparison, for CI test reporters: one testcase per case."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent_evals.core.redact import Redactor
from agent_evals.gate.reader import gc_paused
from agent_evals.report.escape import truncate

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, CaseSide, Comparison, SuiteComparison

TEXT_LIMIT = 2000
"""Characters kept from each untrusted value in a message or body."""

# Characters XML 1.0 forbids even as references (https://www.w3.org/TR/xml/#charsets).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


class _Clean:
    """Redacts secrets, drops characters XML cannot carry and truncates."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor

    def __call__(self, value: object, limit: int | None = TEXT_LIMIT) -> str:
        if value is None:
            return ""
        text = self._redactor(value if isinstance(value, str) else str(value))
        return _XML_INVALID.sub("", truncate(text, limit))


def _frac(side: CaseSide | None) -> str:
    if side is None:
        return "-"
    return f"{side.passes}/{side.trials - side.errors}" + (
        f" (+{side.errors} errored)" if side.errors else ""
    )


def _evidence(case: CaseDiff, clean: _Clean) -> str:
    lines = [f"baseline {_frac(case.baseline)} -> candidate {_frac(case.candidate)}"]
    for failure in case.failing_scorers:
        lines.append(f"scorer {clean(failure.name, 200)} failed in {failure.trials_failed} trial(s)")
        if failure.error:
            lines.append(f"  error: {clean(failure.error)}")
        if failure.notes:
            lines.append(f"  notes: {clean(failure.notes)}")
        if failure.expected is not None:
            lines.append(f"  expected: {clean(failure.expected)}")
        if failure.actual is not None:
            lines.append(f"  actual: {clean(failure.actual)}")
    if case.expected is not None and not case.failing_scorers:
        lines.append(f"expected: {clean(case.expected)}")
    if case.output is not None:
        lines.append(f"output: {clean(case.output)}")
    if case.location:
        lines.append(f"declared at {clean(case.location, 300)}")
    return "\n".join(lines)


def case_seconds(case: CaseDiff) -> float:
    """Seconds the candidate's trials of ``case`` took (0 when the record has no durations)."""
    if case.duration_s is not None:
        return case.duration_s
    side = case.candidate
    return side.usage.duration_s if side is not None and side.usage and side.usage.duration_s else 0.0


def _file_line(location: str | None) -> tuple[str | None, int | None]:
    """``"evals/x.py:12"`` -> ``("evals/x.py", 12)``; a location without a line keeps only the file."""
    if not location:
        return None, None
    file, sep, line = location.rpartition(":")
    if sep and line.isdigit():
        return file, int(line)
    return location, None


def _property(parent: ET.Element, name: str, value: object) -> None:
    ET.SubElement(parent, "property", name=name, value=str(value))


def _testcase(parent: ET.Element, case: CaseDiff, single_run: bool, clean: _Clean) -> dict[str, int]:
    side = case.candidate
    element = ET.SubElement(
        parent,
        "testcase",
        classname=clean(f"{case.suite_id}.{case.group}", 300),
        name=clean(case.case_id, 300),
        time=f"{case_seconds(case):.3f}",
    )
    file, line = _file_line(case.location)
    if file:
        element.set("file", clean(file, 300))
    if line is not None:
        element.set("line", str(line))
    props = ET.SubElement(element, "properties")
    _property(props, "classification", case.classification)
    _property(props, "baseline", _frac(case.baseline))
    _property(props, "candidate", _frac(case.candidate))
    if case.name:
        _property(props, "name", clean(case.name, 300))
    if case.critical:
        _property(props, "critical", "true")
    if case.classification == "flaky" or (
        side is not None and side.pass_fraction is not None and 0 < side.pass_fraction < 1
    ):
        _property(props, "flaky", "true")
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    failing_now = side is not None and side.pass_fraction is not None and side.pass_fraction < 1
    all_errored = side is not None and side.trials > 0 and side.errors == side.trials
    if case.classification == "errored" or all_errored:
        error = ET.SubElement(
            element, "error", type="errored", message=clean(case.error or "every trial errored", 500)
        )
        error.text = _evidence(case, clean)
        counts["errors"] = 1
    elif case.classification == "regressed" or case.critical_flip:
        kind = "critical-regression" if case.critical_flip else "regression"
        scorers = ", ".join(clean(f.name, 100) for f in case.failing_scorers) or "no scorer recorded"
        failure = ET.SubElement(
            element,
            "failure",
            type=kind,
            message=f"regressed: {_frac(case.baseline)} -> {_frac(case.candidate)} ({scorers})",
        )
        failure.text = _evidence(case, clean)
        counts["failures"] = 1
    elif single_run and failing_now:
        failure = ET.SubElement(element, "failure", type="failed", message=f"passed {_frac(side)} trials")
        failure.text = _evidence(case, clean)
        counts["failures"] = 1
    elif case.classification == "removed":
        ET.SubElement(element, "skipped", message="removed: present in the baseline only")
        counts["skipped"] = 1
    elif failing_now and case.classification in ("stable-fail", "new"):
        # Failing, but not a regression the gate counts: shown as skipped so a reporter does not
        # turn the check red where the gate passed.
        reason = (
            "failing on the baseline too" if case.classification == "stable-fail" else "new case, failing"
        )
        ET.SubElement(element, "skipped", message=f"{reason} ({_frac(side)}); not a regression")
        counts["skipped"] = 1
    if side is not None and side.errors and counts["errors"] == 0:
        _property(props, "errored_trials", side.errors)
    return counts


def _suite(root: ET.Element, suite: SuiteComparison, single_run: bool, clean: _Clean) -> dict[str, int]:
    element = ET.SubElement(root, "testsuite", name=clean(suite.suite_id, 300))
    props = ET.SubElement(element, "properties")
    _property(props, "verdict", suite.verdict)
    _property(props, "outcome", suite.outcome)
    if suite.candidate.rate is not None:
        _property(props, "candidate_pass_rate", f"{suite.candidate.rate:.4f}")
    if suite.baseline is not None and suite.baseline.rate is not None:
        _property(props, "baseline_pass_rate", f"{suite.baseline.rate:.4f}")
    if suite.delta is not None and suite.delta.p_value is not None:
        _property(props, "p_value", f"{suite.delta.p_value:.6g}")
    for index, reason in enumerate(suite.reasons):
        _property(props, f"reason.{index}", clean(reason.message, 500))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    time = 0.0
    for case in suite.cases:
        counts = _testcase(element, case, single_run, clean)
        totals["tests"] += 1
        for key, value in counts.items():
            totals[key] += value
        time += case_seconds(case)
    for key, value in totals.items():
        element.set(key, str(value))
    element.set("time", f"{time:.3f}")
    return totals


def render_junit(comparison: Comparison, *, env: Mapping[str, str] | None = None) -> str:
    """JUnit XML of ``comparison``: a testsuite per suite, a testcase per case.

    Regressed cases (and critical flips) are failures, cases whose every trial errored are errors,
    flaky cases carry a ``flaky`` property, removed cases and failures that are not regressions
    (failing on the baseline too, or new) are skipped with the reason. For a single run without a
    baseline every failing case is a failure. Secrets of ``env`` (default ``os.environ``) are redacted.
    """
    with gc_paused():  # a large comparison makes every cyclic GC pass slow; nothing here forms cycles
        clean = _Clean(Redactor.from_env(env))
        single_run = comparison.mode == "single_run"
        root = ET.Element("testsuites", name="agent-evals")
        totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for suite in comparison.suites:
            for key, value in _suite(root, suite, single_run, clean).items():
                totals[key] += value
        for key, value in totals.items():
            root.set(key, str(value))
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
