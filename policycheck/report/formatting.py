"""The wording of numbers, thresholds and verdicts shared by every renderer (HTML, Markdown, JUnit, SARIF, console).

It imports nothing from the renderers, so they all import it and not each
other: report.json -> report/summary.py -> renderers, one way.
"""

from __future__ import annotations

import math
from typing import Any

VERDICT_WORDS = {
    "pass": "PASS",
    "warn": "WARN",
    "fail": "FAIL",
    "error": "ERROR: NOT EVALUATED",
    "waived": "WAIVED",
    "inconclusive": "INCONCLUSIVE",
}


def fmt(value: Any, digits: int = 4) -> str:
    """A number for people: at most ``digits`` significant digits."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "–"
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
            # 1e-05, not 1.000e-05: the same number prints the same way in every table and chart
            mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
            return f"{mantissa.rstrip('0').rstrip('.')}e{exponent}"
        return f"{value:.{digits}g}"
    return str(value)


def detail_value(value: Any, key: str = "", field: dict[str, Any] | None = None) -> str:
    """A details value as its typed field says: formatted, with its unit; a seed or an id as written."""
    field = field or {}
    if isinstance(value, int) and not isinstance(value, bool) and key.endswith("seed"):
        return str(value)  # a seed is a name, not a quantity: 20261121, never 20,261,121
    shown = fmt(value)
    if field.get("format") == "percent" and isinstance(value, (int, float)) and not isinstance(value, bool):
        shown = f"{fmt(value * 100)}%"
    return f"{shown} {field['unit']}" if field.get("unit") and value is not None else shown


def threshold_text(t: dict[str, Any]) -> str:
    parts = []
    for key, word in (
        ("fail_above", "fail if >"),
        ("warn_above", "warn if >"),
        ("fail_below", "fail if <"),
        ("warn_below", "warn if <"),
    ):
        if t.get(key) is not None:
            parts.append(f"{word} {fmt(t[key])}")
    return ", ".join(parts) + COMPARE_WORDS.get(t.get("compare", "interval"), "")


#: How each decision rule shows beside a threshold. The interval, the default, goes unsaid (each rule's
#: decision says which ends decided, and a value without an interval is judged as it is); the estimate
#: alone is named, so a report written before the interval became the default reads as it did.
COMPARE_WORDS = {
    "interval": "",
    "estimate": " (on the estimate)",
    "lower": " (lower CI bound)",
    "upper": " (upper CI bound)",
}


def interval_of(rule: dict[str, Any], full: bool = False) -> str:
    """What the rule's interval is of, when its metric says that is not the value (report.json's ``interval_of``).

    The phrase's first clause (up to the first "; "), for a table or a sentence already long: ``this attack's
    excess over the claim``; the whole phrase with ``full``. '' when the interval is the value's own, or absent.
    """
    phrase = rule.get("interval_of")
    if not phrase or not rule.get("interval"):
        return ""
    return str(phrase) if full else str(phrase).split("; ", 1)[0]


def interval_text(rule: dict[str, Any], with_of: bool = True) -> str:
    """`` [0.01, 0.09]``, and what it is of where its metric says it is not the value's (unless not ``with_of``)."""
    interval = rule.get("interval")
    if not interval:
        return ""
    of = interval_of(rule) if with_of else ""
    return f" [{fmt(interval[0])}, {fmt(interval[1])}]" + (f" of {of}" if of else "")


def is_excess(rule: dict[str, Any]) -> bool:
    """Whether the rule's value is its observed rate minus its baseline (not a ratio or a scale of its own)."""
    raw, baseline, value = rule.get("raw"), rule.get("baseline"), rule.get("value")
    if raw is None or baseline is None or value is None:
        return False
    excess: bool = abs((raw - baseline) - value) <= 1e-9 * max(1.0, abs(value))
    return excess


def measured_text(rule: dict[str, Any], with_of: bool = True) -> str:
    """The value with its interval and, where the metric gives them, the observed rate and the baseline.

    ``0.05 [0.01, 0.09] excess = observed 0.25 - baseline 0.2`` when the value
    is the excess over a baseline; ``0.004 [-0.09, 0.1] (observed 0.7413, baseline
    0.7403)`` when the value is derived from both otherwise (the individual
    reconstruction risk is a ratio of errors); ``0.52 [0.5, 0.54] (baseline
    0.5)`` when the value keeps its own scale. ``0 [0, 0.7] of this attack's
    excess over the claim`` when the metric says the interval is not of the value
    (``with_of=False`` leaves that to a caller that words it itself).
    """
    shown = fmt(rule.get("value")) + interval_text(rule, with_of)
    if rule.get("baseline") is None:
        return shown
    raw, baseline = rule.get("raw"), rule["baseline"]
    if is_excess(rule):
        return f"{shown} excess = observed {fmt(raw)} − baseline {fmt(baseline)}"
    if raw is not None:
        return f"{shown} (observed {fmt(raw)}, baseline {fmt(baseline)})"
    return f"{shown} (baseline {fmt(baseline)})"


#: What the report digest is, where a page has room to say it (docs/outputs.md explains it once).
DIGEST_MEANS = (
    "the SHA-256 of report.json's canonical content without its integrity block, not of the file's bytes "
    "(sha256sum gives another value); policycheck verify checks it"
)


def run_mark(report: dict[str, Any]) -> str:
    """The run id and the report digest, which every rendered file carries (verify checks them).

    The digest (``provenance.integrity.report_sha256``) is of report.json's canonical JSON
    without its integrity block, not of the file: it is called the report digest, never the
    file's sha256, so nobody takes ``sha256sum report.json`` differing from it for an edit.
    """
    prov = report["provenance"]
    digest = (prov.get("integrity") or {}).get("report_sha256", "-")
    return f"run {prov.get('run_id') or '-'} · report digest {digest}"


def percent(confidence: float) -> str:
    """0.95 -> ``95%``; a Bonferroni level such as 0.9833 keeps two decimals."""
    return f"{round(confidence * 100, 2):g}%"


def decision_text(rule: dict[str, Any], confidence: float | None = None) -> str:
    """A failing or inconclusive rule's value, compared bound and threshold in words.

    ``0.86 (95% upper bound 0.91) > 0.2`` for a rule that compares an
    interval end; ``0.86 (95% interval 0.8 – 0.91) > 0.2`` for one that
    compares the estimate; the observed rate and baseline where the value
    is relative to one; the reason when a rule fails for another cause (a
    refuted claim). What the first page lists for each rule that fails.
    """
    if rule.get("error"):
        return f"not evaluated: {rule['error']}"
    t = rule["threshold"]
    above = t.get("fail_above") is not None
    level = t.get("fail_above") if above else t.get("fail_below")
    op = ">" if above else "<"
    conf = rule.get("confidence") or confidence
    interval = rule.get("interval")
    shown = fmt(rule.get("value"))
    if interval and conf:
        of = f", of {interval_of(rule)}" if interval_of(rule) else ""
        if t.get("compare") in ("upper", "lower"):
            end = interval[1] if t["compare"] == "upper" else interval[0]
            shown += f" ({percent(conf)} {t['compare']} bound {fmt(end)}{of})"
        else:
            shown += f" ({percent(conf)} interval {fmt(interval[0])} – {fmt(interval[1])}{of})"
    if rule.get("raw") is not None and rule.get("baseline") is not None:
        shown += f" (observed {fmt(rule['raw'])}, baseline {fmt(rule['baseline'])})"
    if level is None:
        return shown
    verdict = rule.get("verdict_before_waiver") if rule.get("verdict") == "waived" else rule.get("verdict")
    on_interval = rule.get("decided_on") == "interval"
    if verdict == "inconclusive":
        if on_interval:
            return f"{shown}: the interval contains the fail level {fmt(level)}"
        return f"{shown}: estimate and bound on opposite sides of {fmt(level)}"
    compared = rule.get("compared_value")
    beyond = compared is not None and (compared > level if above else compared < level)
    if verdict == "fail" and beyond:
        # NOTE: decided on the interval, "(interval a – b) > level" says the whole interval is beyond it.
        return f"{shown} {op} {fmt(level)}"
    if verdict == "fail" and rule.get("verdict_reason"):
        return f"{shown}, fail level {fmt(level)}: {rule['verdict_reason']}"
    return f"{shown}; fail level {op} {fmt(level)}"


def remedy_text(rule: dict[str, Any]) -> str:
    """What to do about a rule: its metric's remedy, after more data where only the sample leaves it unsettled.

    A rule that warns or is inconclusive because its interval reaches a level (``unsettled``) may be a safe
    release measured on too few records: the first thing to do is measure more, not regenerate.
    """
    remedy = rule.get("remedy") or ""
    if not rule.get("unsettled") or rule.get("verdict") not in ("warn", "inconclusive"):
        return remedy
    unit = rule.get("sample_unit") or "records"
    more = (
        f"about {fmt(rule['records_to_settle'])} {unit} would (this run used {fmt(rule['sample_size'])})"
        if rule.get("records_to_settle") and rule.get("sample_size")
        else f"more {unit} would narrow its interval"
    )
    first = f"This sample cannot settle the {rule['unsettled']} level: {more}, if the estimate held."
    return f"{first} If the value is beyond it: {remedy}" if remedy else first


def settle_text(rule: dict[str, Any]) -> str:
    """What the sample leaves unsettled and what would settle it, for page 1's list.

    ``the interval [-0.0073, 0.0301] contains the fail level 0.01; about 50,182 records would settle it
    (this run used 800)``.
    """
    t = rule["threshold"]
    above = t.get("fail_above") is not None
    which = rule.get("unsettled") or "fail"
    level = t.get(f"{which}_above" if above else f"{which}_below")
    interval = rule.get("interval")
    if interval and rule.get("decided_on") == "interval":
        text = f"the interval{interval_text(rule)} contains the {which} level {fmt(level)}"
    else:
        text = (
            f"the estimate {fmt(rule.get('value'))} and the compared bound {fmt(rule.get('compared_value'))} "
            f"lie on opposite sides of the {which} level {fmt(level)}"
        )
    if rule.get("records_to_settle"):
        used = f" (this run used {fmt(rule['sample_size'])})" if rule.get("sample_size") else ""
        unit = rule.get("sample_unit") or "records"
        text += f"; about {fmt(rule['records_to_settle'])} {unit} would settle it{used}, if the estimate held"
    else:
        text += "; no sample size can be given (the metric does not say how many records it used)"
    return text
