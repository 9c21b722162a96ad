"""JUnit XML from a comparison, for CI test reporters: one testcase per case, written as text (no element tree)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent_evals.core.redact import Redactor
from agent_evals.record.read import gc_paused
from agent_evals.report.escape import truncate

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, CaseSide, Comparison, ReusedSuite, SuiteComparison

TEXT_LIMIT = 2000
"""Characters kept from each untrusted value in a message or body."""

# Characters XML 1.0 forbids even as references (https://www.w3.org/TR/xml/#charsets).
# Bidi controls are allowed but could disguise the text in a viewer ("Trojan Source"): dropped too.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


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


_ATTR = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}
)
_ATTR_SPECIAL = re.compile('[&<>"\n\r\t]')
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _attr(value: object) -> str:
    """``value`` escaped for an XML attribute (the characters ElementTree escapes there)."""
    text = value if isinstance(value, str) else str(value)
    return text.translate(_ATTR) if _ATTR_SPECIAL.search(text) else text


def _tag(name: str, attrs: list[tuple[str, object]], close: str = "") -> str:
    """``<name a="v" ...`` with each value escaped for an XML attribute, then ``close`` (``>``, `` />``)."""
    return f"<{name}" + "".join(f' {k}="{_attr(v)}"' for k, v in attrs) + close


def _properties(props: list[tuple[str, object]], indent: str) -> str:
    """A ``<properties>`` block at ``indent``; the names are ours, the values are escaped."""
    lines = "".join(f'{indent}  <property name="{n}" value="{_attr(v)}" />\n' for n, v in props)
    return f"{indent}<properties>\n{lines}{indent}</properties>\n"


def _testcase(case: CaseDiff, single_run: bool, clean: _Clean) -> tuple[str, dict[str, int]]:
    """One ``<testcase>`` element (indented for its place in the file) and what it counts as."""
    side = case.candidate
    head = (
        f'    <testcase classname="{_attr(clean(f"{case.suite_id}.{case.group}", 300))}" '
        f'name="{_attr(clean(case.case_id, 300))}" time="{case_seconds(case):.3f}"'
    )
    file, line = _file_line(case.location)
    if file:
        head += f' file="{_attr(clean(file, 300))}"'
    if line is not None:
        head += f' line="{line}"'
    props: list[tuple[str, object]] = [
        ("classification", case.classification),
        ("baseline", _frac(case.baseline)),
        ("candidate", _frac(case.candidate)),
    ]
    if case.name:
        props.append(("name", clean(case.name, 300)))
    if case.critical:
        props.append(("critical", "true"))
    if case.classification == "flaky" or (
        side is not None and side.pass_fraction is not None and 0 < side.pass_fraction < 1
    ):
        props.append(("flaky", "true"))
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    outcome = ""  # the <error>, <failure> or <skipped> element, if any
    failing_now = side is not None and side.pass_fraction is not None and side.pass_fraction < 1
    all_errored = side is not None and side.trials > 0 and side.errors == side.trials
    if case.classification == "errored" or all_errored:
        message = clean(case.error or "every trial errored", 500)
        outcome = _element("error", [("type", "errored"), ("message", message)], _evidence(case, clean))
        counts["errors"] = 1
    elif case.classification == "regressed" or case.critical_flip:
        kind = "critical-regression" if case.critical_flip else "regression"
        scorers = ", ".join(clean(f.name, 100) for f in case.failing_scorers) or "no scorer recorded"
        message = f"regressed: {_frac(case.baseline)} -> {_frac(case.candidate)} ({scorers})"
        outcome = _element("failure", [("type", kind), ("message", message)], _evidence(case, clean))
        counts["failures"] = 1
    elif single_run and failing_now:
        message = f"passed {_frac(side)} trials"
        outcome = _element("failure", [("type", "failed"), ("message", message)], _evidence(case, clean))
        counts["failures"] = 1
    elif case.classification == "removed":
        outcome = _element("skipped", [("message", "removed: present in the baseline only")])
        counts["skipped"] = 1
    elif failing_now and case.classification in ("stable-fail", "new"):
        # Failing, but not a regression the gate counts: shown as skipped so a reporter does not
        # turn the check red where the gate passed.
        reason = (
            "failing on the baseline too" if case.classification == "stable-fail" else "new case, failing"
        )
        outcome = _element("skipped", [("message", f"{reason} ({_frac(side)}); not a regression")])
        counts["skipped"] = 1
    if side is not None and side.errors and counts["errors"] == 0:
        props.append(("errored_trials", side.errors))
    text = head + ">\n" + _properties(props, "      ") + outcome + "    </testcase>\n"
    return text, counts


def _element(name: str, attrs: list[tuple[str, object]], text: str | None = None) -> str:
    """A testcase's outcome element, on its own line(s) at its depth."""
    if text is None:
        return "      " + _tag(name, attrs, " />") + "\n"
    return "      " + _tag(name, attrs, ">") + text.translate(_TEXT) + f"</{name}>\n"


def _suite(suite: SuiteComparison, single_run: bool, clean: _Clean) -> tuple[list[str], dict[str, int]]:
    """A ``<testsuite>`` as text pieces, and its totals."""
    props: list[tuple[str, object]] = [("verdict", suite.verdict), ("outcome", suite.outcome)]
    if suite.candidate.rate is not None:
        props.append(("candidate_pass_rate", f"{suite.candidate.rate:.4f}"))
    if suite.baseline is not None and suite.baseline.rate is not None:
        props.append(("baseline_pass_rate", f"{suite.baseline.rate:.4f}"))
    if suite.delta is not None and suite.delta.p_value is not None:
        props.append(("p_value", f"{suite.delta.p_value:.6g}"))
    for index, reason in enumerate(suite.reasons):
        props.append((f"reason.{index}", clean(reason.message, 500)))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    time = 0.0
    pieces = ["", _properties(props, "    ")]  # the opening tag goes first once the totals are known
    for case in suite.cases:
        text, counts = _testcase(case, single_run, clean)
        pieces.append(text)
        totals["tests"] += 1
        for key, value in counts.items():
            totals[key] += value
        time += case_seconds(case)
    attrs: list[tuple[str, object]] = [("name", clean(suite.suite_id, 300)), *totals.items()]
    pieces[0] = "  " + _tag("testsuite", [*attrs, ("time", f"{time:.3f}")], ">\n")
    pieces.append("  </testsuite>\n")
    return pieces, totals


def _reused(reused: ReusedSuite, clean: _Clean) -> tuple[list[str], dict[str, int]]:
    """A suite copied from the baseline (``ci --reuse-unchanged``): one skipped testcase that says so,
    never a pass (its cases did not run here)."""
    props: list[tuple[str, object]] = [
        ("verdict", "reused"),
        ("reused", "true"),
        ("reason", clean(reused.reason, 500)),
        ("cases", reused.cases),
    ]
    if reused.baseline_run_id:
        props.append(("baseline_run_id", clean(reused.baseline_run_id, 100)))
    if reused.baseline_sha:
        props.append(("baseline_sha", clean(reused.baseline_sha, 100)))
    name = clean(reused.suite_id, 300)
    message = clean(
        f"reused, not re-run: {reused.cases} case(s) copied from the baseline ({reused.reason}); no new evidence",
        500,
    )
    totals = {"tests": 1, "failures": 0, "errors": 0, "skipped": 1}
    case = (
        "    "
        + _tag(
            "testcase", [("classname", name), ("name", "reused from the baseline"), ("time", "0.000")], ">\n"
        )
        + _element("skipped", [("message", message)])
        + "    </testcase>\n"
    )
    head = "  " + _tag("testsuite", [("name", name), *totals.items(), ("time", "0.000")], ">\n")
    return [head, _properties(props, "    "), case, "  </testsuite>\n"], totals


def render_junit(comparison: Comparison, *, env: Mapping[str, str] | None = None) -> str:
    """JUnit XML of ``comparison``: a testsuite per suite, a testcase per case.

    Regressed cases (and critical flips) are failures, cases whose every trial errored are errors,
    flaky cases carry a ``flaky`` property, removed cases and failures that are not regressions
    (failing on the baseline too, or new) are skipped with the reason; a suite reused from the
    baseline (``ci --reuse-unchanged``) is one skipped testcase that says so. For a single run without a
    baseline every failing case is a failure. Secrets of ``env`` (default ``os.environ``) are redacted.
    """
    with gc_paused():  # a large comparison makes every cyclic GC pass slow; nothing here forms cycles
        clean = _Clean(Redactor.from_env(env))
        single_run = comparison.mode == "single_run"
        totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        body: list[str] = []
        for suite in comparison.suites:
            pieces, counts = _suite(suite, single_run, clean)
            body += pieces
            for key, value in counts.items():
                totals[key] += value
        for reused in comparison.reused_suites:
            pieces, counts = _reused(reused, clean)
            body += pieces
            for key, value in counts.items():
                totals[key] += value
        head = _tag("testsuites", [("name", "agent-evals"), *totals.items()], ">\n" if body else " />\n")
        tail = "</testsuites>\n" if body else ""
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + head + "".join(body) + tail
