"""Render report.json (as a dict) to HTML and Markdown with Jinja2.

The renderers read nothing but the report dict, so report.json stays the
one source of truth. Autoescaping is on for HTML: values from the data
(column names, category labels) never reach the page unescaped.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from policycheck.fileio import write_report_set
from policycheck.report.charts import render_chart, render_gauge

VERDICT_WORDS = {
    "pass": "PASS",
    "warn": "PASS WITH WARNINGS",
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
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}g}"
    return str(value)


def threshold_text(t: dict[str, Any]) -> str:
    parts = []
    for key, word in (("fail_above", "fail if >"), ("warn_above", "warn if >"), ("fail_below", "fail if <"), ("warn_below", "warn if <")):
        if t.get(key) is not None:
            parts.append(f"{word} {fmt(t[key])}")
    on = {"estimate": "", "lower": " (lower CI bound)", "upper": " (upper CI bound)"}[t.get("compare", "estimate")]
    return ", ".join(parts) + on


def interval_text(rule: dict[str, Any]) -> str:
    interval = rule.get("interval")
    return f" [{fmt(interval[0])}, {fmt(interval[1])}]" if interval else ""


def measured_text(rule: dict[str, Any]) -> str:
    """The value with its interval and, where the metric gives them, the observed rate and the baseline.

    ``0.05 [0.01, 0.09] excess = observed 0.25 - baseline 0.2`` when the value
    is the excess over a baseline; ``0.52 [0.5, 0.54] (baseline 0.5)`` when
    the value keeps its own scale.
    """
    shown = fmt(rule.get("value")) + interval_text(rule)
    if rule.get("baseline") is None:
        return shown
    if rule.get("raw") is not None:
        return f"{shown} excess = observed {fmt(rule['raw'])} − baseline {fmt(rule['baseline'])}"
    return f"{shown} (baseline {fmt(rule['baseline'])})"


def run_mark(report: dict[str, Any]) -> str:
    """The run id and report.json's digest, which every rendered file carries (verify checks them)."""
    prov = report["provenance"]
    return f"run {prov.get('run_id') or '-'} · report.json sha256 {(prov.get('integrity') or {}).get('report_sha256', '-')}"


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("policycheck.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = fmt
    env.filters["threshold"] = threshold_text
    env.filters["measured"] = measured_text
    env.filters["chart"] = render_chart
    env.filters["gauge"] = render_gauge
    env.filters["tojson_pretty"] = lambda v: json.dumps(v, indent=1, ensure_ascii=False)[:4000]
    env.filters["tojson_compact"] = lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    env.tests["scalar"] = _is_scalar
    env.globals["VERDICT_WORDS"] = VERDICT_WORDS
    env.globals["run_mark"] = run_mark
    return env


def render_html(report: dict[str, Any]) -> str:
    return _environment().get_template("report.html.j2").render(r=report)


def render_markdown(report: dict[str, Any]) -> str:
    env = _environment()
    env.autoescape = False
    # NOTE: merge-request comments render inline HTML: values from the data
    # (a column named <img src=x>) must show as text.
    env.filters["md"] = lambda s: (
        str(s).replace("<", "&lt;").replace("|", "\\|").replace("\n", " ")
    )
    return env.get_template("report.md.j2").render(r=report)


def render_explain(report: dict[str, Any]) -> str:
    """For every verdict, the attacker knowledge and inputs behind it, in plain text.

    What ``policycheck check --explain`` prints: the policy line, the data
    files (with hashes), the params, the shared intermediates and the seed
    of each rule, so an auditor can trace a number to its source.
    """
    env = _environment()
    env.autoescape = False
    return env.get_template("explain.txt.j2").render(r=report)


#: Output format -> (file name, renderer of the report dict).
OUTPUTS = {
    "json": "report.json",
    "html": "report.html",
    "md": "report.md",
    "junit": "report.junit.xml",
    "sarif": "report.sarif",
}


def _renderer(fmt_name: str):
    # NOTE: imported here because the JUnit and SARIF modules reuse this
    # module's number and threshold wording.
    from policycheck.report.junit import render_junit
    from policycheck.report.sarif import render_sarif

    return {
        "json": lambda r: json.dumps(r, indent=2, ensure_ascii=False) + "\n",
        "html": render_html,
        "md": render_markdown,
        "junit": render_junit,
        "sarif": render_sarif,
    }[fmt_name]


def render_format(fmt_name: str, report: dict[str, Any]) -> str:
    """The text of one output format (``verify`` renders again to check the files beside report.json)."""
    return _renderer(fmt_name)(report)


def write_reports(report: dict[str, Any], out_dir: Path, formats: tuple[str, ...] = ("json", "html", "md")) -> list[Path]:
    """Write the chosen formats into ``out_dir`` as one set (see fileio.write_report_set); returns the paths."""
    out_dir = Path(out_dir)
    files = {OUTPUTS[f]: render_format(f, report) for f in formats if f in OUTPUTS}
    write_report_set(out_dir, files)
    return [out_dir / name for name in files]
