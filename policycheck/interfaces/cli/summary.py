"""The verdicts of a check as the terminal shows them: one line per rule, then the counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from policycheck.core.escape import one_line

#: Terminal colour of each verdict (shown only where colour is on: see main.colour_choice).
COLOURS = {
    "pass": "green",
    "warn": "yellow",
    "fail": "red",
    "error": "magenta",
    "waived": "cyan",
    "inconclusive": "yellow",
}


def print_summary(report: dict[str, Any], out_dir: Path | str | None = None, err: bool = False) -> None:
    """One line per rule and the overall verdict (on stdout, or stderr when stdout holds a report)."""
    from policycheck.report.decision import untested
    from policycheck.report.formatting import VERDICT_WORDS, measured_text
    from policycheck.report.summary import summarize

    def echo(text: str) -> None:
        # NOTE: ids and errors come from files: one_line escapes control characters.
        click.echo(text, err=err)

    verdict = report["verdict"]
    words = click.style(VERDICT_WORDS.get(verdict, verdict.upper()), fg=COLOURS.get(verdict), bold=True)
    echo(f"{one_line(report['policy']['id'])} on {one_line(report['release']['id'])}: {words}")
    for finding in report["release"].get("findings", []):
        echo(f"  finding: {one_line(finding)}")
    width = max([6, *(len(rule["verdict"]) for rule in report["rules"])])
    for rule in report["rules"]:
        extra = f" ({rule['error']})" if rule["error"] else ""
        label = click.style(f"{rule['verdict']:<{width}}", fg=COLOURS.get(rule["verdict"]))
        echo(f"  {label} {one_line(rule['id'])} ({rule['metric']}): {one_line(measured_text(rule) + extra)}")
        if rule.get("verdict_reason") and rule["verdict"] != "pass":
            echo(f"  {'':<{width}}   {one_line(rule['verdict_reason'])}")
    echo(f"  {summarize(report).counts_text()}")
    for gap in untested(report):
        echo(f"  not tested: {one_line(gap)}")
    if out_dir is not None:
        echo(f"reports in {one_line(str(out_dir))}/")
