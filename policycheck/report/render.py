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

from policycheck.fileio import atomic_write_text
from policycheck.report.charts import render_chart

VERDICT_WORDS = {
    "pass": "PASS",
    "warn": "PASS WITH WARNINGS",
    "fail": "FAIL",
    "error": "ERROR: NOT EVALUATED",
    "waived": "WAIVED",
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
    env.filters["chart"] = render_chart
    env.filters["tojson_pretty"] = lambda v: json.dumps(v, indent=1, ensure_ascii=False)[:4000]
    env.tests["scalar"] = _is_scalar
    env.globals["VERDICT_WORDS"] = VERDICT_WORDS
    return env


def render_html(report: dict[str, Any]) -> str:
    return _environment().get_template("report.html.j2").render(r=report)


def render_markdown(report: dict[str, Any]) -> str:
    env = _environment()
    env.autoescape = False
    env.filters["md"] = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    return env.get_template("report.md.j2").render(r=report)


def write_reports(report: dict[str, Any], out_dir: Path, formats: tuple[str, ...] = ("json", "html", "md")) -> list[Path]:
    """Write the chosen formats atomically into ``out_dir``; returns the paths."""
    out_dir = Path(out_dir)
    written = []
    renderers = {
        "json": ("report.json", lambda r: json.dumps(r, indent=2, ensure_ascii=False) + "\n"),
        "html": ("report.html", render_html),
        "md": ("report.md", render_markdown),
    }
    for fmt_name in formats:
        if fmt_name not in renderers:
            continue
        filename, render = renderers[fmt_name]
        path = out_dir / filename
        atomic_write_text(path, render(report))
        written.append(path)
    return written
