"""Render report.json (as a dict) to HTML and Markdown with Jinja2.

The renderers read nothing but the report dict, so report.json stays the
one source of truth. Autoescaping is on for HTML: values from the data
(column names, category labels) never reach the page unescaped. Every
value any template prints also has its control characters written as
escapes, as the console shows them (:func:`policycheck.core.escape.block`): a
waiver's ``approved_by: "\\e[2J"`` must not clear the screen of whoever runs
``cat report.md``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from policycheck.core.escape import block
from policycheck.core.plural import count_of, noun
from policycheck.io.outputs import REPORT_FILES, file_bytes, refuse_overwriting, write_report_set
from policycheck.report import decision as words
from policycheck.report.charts import is_empty, render_chart, render_gauge
from policycheck.report.columns import roles_by_source
from policycheck.report.formatting import (
    DIGEST_MEANS,
    VERDICT_WORDS,
    decision_text,
    detail_value,
    fmt,
    interval_of,
    is_excess,
    measured_text,
    percent,
    remedy_text,
    run_mark,
    settle_text,
    threshold_text,
)
from policycheck.report.integrity import with_report_files
from policycheck.report.junit import render_junit
from policycheck.report.sarif import render_sarif
from policycheck.report.summary import KINDS, summarize

#: The HTML report's lists of rules that need a reader's attention, by kind (report/summary.py), in this order.
ATTENTION = {
    "error": "Not evaluated",
    "blocking_fail": "Blocking failures",
    "inconclusive": "Inconclusive",
    "advisory_fail": "Advisory failures",
    "warn": "Warned",
    "waived": "Waived rules",
}


def unsettled_rules(report: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(1-based index, rule) of every rule whose level this sample leaves unsettled, in rule order.

    Inconclusive rules (the fail level) and warnings whose interval contains the warn level; a waiver
    does not settle a measurement, so waived ones are listed too. Reports before schema 1.4 have none.
    """
    return [(i, rule) for i, rule in enumerate(report["rules"], start=1) if rule.get("unsettled")]


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _printable(value: Any) -> Any:
    """What a template prints, with terminal control characters as escapes (line breaks kept)."""
    if isinstance(value, Markup):  # our own markup (charts): escaped text inside stays as it was escaped
        return Markup(block(value))
    if isinstance(value, str):
        return block(words.cite(value))  # the papers by name wherever a text cites "paper 002"
    return value


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("policycheck.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_printable,
    )
    env.filters["fmt"] = fmt
    env.filters["count_of"] = count_of  # {{ n | count_of('rule') }}: 1 rule, 2 rules
    env.filters["noun"] = noun  # {{ n | noun('fails', 'fail') }}: the word that agrees with n
    env.filters["threshold"] = threshold_text
    env.filters["measured"] = measured_text
    env.filters["interval_of"] = interval_of  # {{ rule | interval_of }}: its first clause
    env.filters["decision"] = decision_text
    env.filters["settle"] = settle_text
    env.filters["remedy"] = remedy_text
    env.filters["chart"] = render_chart
    env.filters["gauge"] = render_gauge
    env.filters["tojson_pretty"] = lambda v: json.dumps(v, indent=1, ensure_ascii=False)[:4000]
    env.filters["tojson_compact"] = lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    env.tests["scalar"] = _is_scalar
    env.tests["excess"] = is_excess
    env.tests["reaching"] = words.reaches_past_fail
    env.tests["drawable"] = lambda spec: not is_empty(spec)
    env.tests["search"] = lambda text, part: part in str(text)
    env.tests["worst_set"] = lambda rule: words.worst_set(rule) is not None
    env.filters["worst_set"] = words.worst_set
    env.filters["detail_value"] = detail_value
    for name in (
        "level_label",
        "plain_sentence",
        "decided_on_words",
        "bonferroni_words",
        "knowledge_words",
        "unsettled_words",
        "scope",
        "assumptions",
        "limitations",
        "untested",
        "decided_sentence",
        "cited",
        "effects_here",
        "verify_command",
    ):
        env.globals[name] = getattr(words, name)
    env.globals["GLOSSARY"] = words.GLOSSARY
    env.globals["VERDICT_WORDS"] = VERDICT_WORDS
    env.globals["run_mark"] = run_mark
    env.globals["digest_means"] = DIGEST_MEANS
    env.globals["percent"] = percent
    env.globals["KINDS"] = KINDS
    env.globals["ATTENTION"] = ATTENTION
    env.globals["unsettled_rules"] = unsettled_rules
    env.globals["roles_by_source"] = roles_by_source
    return env


def render_html(report: dict[str, Any]) -> str:
    return _environment().get_template("report.html.j2").render(r=report, s=summarize(report))


def render_markdown(report: dict[str, Any]) -> str:
    env = _environment()
    env.autoescape = False
    # NOTE: merge-request comments render inline HTML: values from the data
    # (a column named <img src=x>) must show as text.
    env.filters["md"] = lambda s: str(s).replace("<", "&lt;").replace("|", "\\|").replace("\n", " ")
    return env.get_template("report.md.j2").render(r=report, s=summarize(report))


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


def _renderer(fmt_name: str) -> Callable[[dict[str, Any]], str]:
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


def report_inputs(report: dict[str, Any]) -> list[Path]:
    """Every file the report was made from (policies, manifest, metadata, data, ledgers, matrices), as paths here."""
    prov = report["provenance"]
    ran_in = Path(prov["working_directory"])
    entries = [
        *prov["policy_files"],
        *prov["data_files"],
        *prov.get("referenced_files", []),
        *(e for e in (prov.get("manifest"), prov.get("metadata")) if e),
    ]
    return [ran_in / e["path"] for e in entries]


def write_reports(
    report: dict[str, Any], out_dir: Path, formats: tuple[str, ...] = ("json", "html", "md")
) -> list[Path]:
    """Write the chosen formats into ``out_dir`` as one set (:func:`write_listed_reports`); returns the paths."""
    return write_listed_reports(report, out_dir, formats)[1]


def write_listed_reports(
    report: dict[str, Any], out_dir: Path, formats: tuple[str, ...] = ("json", "html", "md")
) -> tuple[dict[str, Any], list[Path]]:
    """Write the chosen formats into ``out_dir`` as one set (see fileio.write_report_set).

    Returns the report as report.json holds it (listing the set, when json is written) and the paths.

    ``pdf`` prints the HTML through headless Chromium (report/pdf.py) first: report.json,
    rendered last, lists every file of the set with its SHA-256
    (:func:`policycheck.report.integrity.with_report_files`), which verify checks.
    """
    out_dir = Path(out_dir)
    refuse_overwriting([out_dir / name for name in REPORT_FILES], report_inputs(report))
    if "pdf" in formats:
        from policycheck.report.pdf import require_chromium

        require_chromium()  # before anything is written: exit 2 leaves the folder as it was
    files: dict[str, str | bytes] = {OUTPUTS[f]: render_format(f, report) for f in formats if f in OUTPUTS}
    if "pdf" in formats:
        from policycheck.report.pdf import print_report

        html = files.get("report.html")
        files["report.pdf"] = print_report(
            html if isinstance(html, str) else render_html(report), out_dir / "report.pdf"
        )
    if "report.json" in files:
        # NOTE: the list is in the integrity block, which no render and no report_sha256 covers. Every file's
        # digest, the renders' too: another build of policycheck may render report.json otherwise.
        written = [
            {"name": name, "sha256": hashlib.sha256(file_bytes(content)).hexdigest()}
            for name, content in files.items()
            if name != "report.json"
        ]
        report = with_report_files(report, written)
        files["report.json"] = render_format("json", report)
    write_report_set(out_dir, files)
    return report, [out_dir / name for name in files]
