"""A check's report for the Python API: its verdict and rules, as a DataFrame, rendered or written."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import EXIT_PASS
from policycheck.core.plural import noun

if TYPE_CHECKING:
    import pandas as pd

#: Report formats :meth:`Report.write` and :meth:`Report.render` know.
FORMATS = ("json", "html", "md", "junit", "sarif")


class Report:
    """The outcome of a check: report.json's content with helpers to read and write it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @classmethod
    def read(cls, path: str | Path) -> Report:
        """A report.json written earlier.

        Checked as ``verify`` reads it: raises :data:`InputError` if it is not one.
        """
        from policycheck.interfaces.verify import read_report

        return cls(read_report(Path(path)))

    @property
    def verdict(self) -> str:
        """The release verdict: pass, warn, fail or error."""
        verdict: str = self.data["verdict"]
        return verdict

    @property
    def exit_code(self) -> int:
        """What ``policycheck check`` exits with: 0 pass, 1 blocking failure, 3 evaluator error."""
        code: int = self.data["exit_code"]
        return code

    @property
    def passed(self) -> bool:
        """Whether the release may go out: every blocking rule passes (exit code 0)."""
        return self.exit_code == EXIT_PASS

    @property
    def rules(self) -> list[dict[str, Any]]:
        rules: list[dict[str, Any]] = self.data["rules"]
        return rules

    def to_dict(self) -> dict[str, Any]:
        """report.json as a fresh dict."""
        data: dict[str, Any] = json.loads(self.to_json())
        return data

    def to_json(self) -> str:
        return self.render("json")

    def to_frame(self) -> pd.DataFrame:
        """One row per rule: id, metric, severity, verdict, value, interval, its confidence, what it is of (where
        its metric says it is not the value's own; else None), threshold, and the synthetic set that decided it
        (the worst, for a rule over several sets)."""
        import pandas as pd

        from policycheck.report.decision import interval_level, worst_set
        from policycheck.report.formatting import interval_of, threshold_text

        rows = [
            {
                "id": r["id"],
                "metric": r["metric"],
                "severity": r["severity"],
                "verdict": r["verdict"],
                "value": r["value"],
                "interval": tuple(r["interval"]) if r["interval"] else None,
                "interval_level": interval_level(r) if r["interval"] else None,
                "interval_of": interval_of(r, full=True) or None,
                "threshold": threshold_text(r["threshold"]),
                "worst_set": worst_set(r),
            }
            for r in self.rules
        ]
        columns = [
            "id",
            "metric",
            "severity",
            "verdict",
            "value",
            "interval",
            "interval_level",
            "interval_of",
            "threshold",
            "worst_set",
        ]
        return pd.DataFrame(rows, columns=columns)

    def render(self, format: str) -> str:  # noqa: A002 - the CLI's word
        """The report as text in one of :data:`FORMATS`."""
        from policycheck.report.render import render_format

        if format not in FORMATS:
            raise ValueError(f"unknown report format {format!r}; choose from {', '.join(FORMATS)}")
        return render_format(format, self.data)

    def write(self, out_dir: str | Path, formats: Iterable[str] = ("json", "html", "md")) -> list[Path]:
        """Write the chosen formats into ``out_dir`` (atomically); return the paths written.

        :attr:`data` is then report.json as written: it lists the report files written with it.
        """
        from policycheck.report.render import write_listed_reports

        chosen = tuple(formats)
        unknown = [f for f in chosen if f not in (*FORMATS, "pdf")]  # pdf: the HTML printed by Chromium
        if unknown:
            raise ValueError(
                f"unknown report {noun(len(unknown), 'format')} {unknown}; choose from {', '.join(FORMATS)}"
            )
        self.data, paths = write_listed_reports(self.data, Path(out_dir), chosen)
        return paths

    def __repr__(self) -> str:
        s = self.data["summary"]
        return (
            f"<Report {self.data['policy']['id']!r} on {self.data['release']['id']!r}: {self.verdict} "
            f"({s['passed']} passed, {s['warned']} warned, {s['failed']} failed, {s['waived']} waived, "
            f"{s['errors']} errors)>"
        )

    def _repr_html_(self) -> str:
        """A compact version of the HTML report for Jupyter: the verdict and one row per rule."""
        from policycheck.report.formatting import VERDICT_WORDS, fmt, interval_text, threshold_text

        colours = {
            "pass": "#1a7f37",
            "warn": "#9a6700",
            "fail": "#cf222e",
            "error": "#8250df",
            "waived": "#57606a",
            "inconclusive": "#9a6700",
        }
        e = html.escape
        rows = []
        for r in self.rules:
            interval = interval_text(r)
            colour = colours.get(r["verdict"], "#57606a")
            rows.append(
                f"<tr><td><code>{e(r['id'])}</code></td><td>{e(r['metric'])}</td>"
                f'<td style="color:{colour};font-weight:bold">{e(r["verdict"])}</td>'
                f"<td>{e(fmt(r['value']))}{e(interval)}</td><td>{e(threshold_text(r['threshold']))}</td>"
                f"<td>{e(r['severity'])}</td></tr>"
            )
        d = self.data
        colour = colours.get(self.verdict, "#57606a")
        verdict = e(VERDICT_WORDS.get(self.verdict, self.verdict.upper()))
        return (
            '<div class="policycheck-report">'
            f"<p><strong>{e(d['policy']['id'])}</strong> on <strong>{e(d['release']['id'])}</strong>: "
            f'<span style="color:{colour};font-weight:bold">{verdict}</span> '
            f"(exit code {self.exit_code}, seed {d['provenance']['seed']})</p>"
            "<table><thead><tr><th>rule</th><th>metric</th><th>verdict</th><th>value [interval]</th>"
            "<th>threshold</th><th>severity</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            "<p><small>Full report: <code>report.write(folder)</code> writes report.html.</small></p></div>"
        )
