"""``policycheck diff``: the rules whose verdict or value changed between two reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from policycheck.core.errors import EXIT_FAIL, EXIT_PASS
from policycheck.interfaces.cli.common import echo, guard


@click.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON (as --format json).")
@click.option(
    "--format",
    "diff_format",
    type=click.Choice(["text", "json", "html"]),
    default=None,
    help="text (default), json, or html: a page with both verdicts and values of every rule.",
)
@click.option(
    "-o",
    "--output",
    "diff_output",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the comparison to this file instead of stdout.",
)
@click.option(
    "--fail-on-worse", is_flag=True, help="Exit 1 when a rule's verdict got worse (a listing exits 0 otherwise)."
)
@guard
def diff(
    old: Path, new: Path, as_json: bool, diff_format: str | None, diff_output: Path | None, fail_on_worse: bool
) -> None:
    """List the rules whose verdict or value changed from report OLD to report NEW.

    A listing: exit 0. With --fail-on-worse, exit 1 when a rule's verdict got
    worse (pass < waived < warn < inconclusive < fail < error; a new rule counts from pass).
    """
    from policycheck.interfaces.verify import diff_reports, read_report

    changes = diff_reports(read_report(old), read_report(new))
    if as_json and diff_format not in (None, "json"):
        raise click.UsageError("--json and --format text/html: choose one")
    chosen = "json" if as_json else diff_format or "text"
    text = render_changes(changes, chosen)
    if diff_output is not None:
        from policycheck.io.outputs import atomic_write_text, refuse_overwriting

        refuse_overwriting(
            [diff_output],
            [old, new],
            "an input of this diff would be overwritten by its output: name another output file with -o",
        )
        atomic_write_text(diff_output, text)
        echo(f"comparison in {diff_output}", err=True)
    elif chosen == "text":
        for line in text.splitlines():
            echo(line)  # one_line: ids and values come from files
    else:
        echo(text, nl=False, lines=True)
    sys.exit(EXIT_FAIL if fail_on_worse and changes.worse else EXIT_PASS)


def render_changes(changes: Any, chosen: str) -> str:
    """The comparison as ``chosen`` (text, json or html) shows it."""
    if chosen == "html":
        from policycheck.report.across import render_diff_html

        return render_diff_html(changes.old, changes.new, changes.to_dict())
    if chosen == "json":
        return json.dumps(changes.to_dict(), indent=2, ensure_ascii=False) + "\n"
    lines = [
        f"{changes.old['release']['id']} ({changes.old['verdict']}) -> "
        f"{changes.new['release']['id']} ({changes.new['verdict']})"
    ]
    lines += [f"warning: {w}" for w in changes.warnings]
    lines += [f"  {difference}" for difference in changes.context + changes.files + changes.rules]
    if not changes.rules:
        lines.append("  no rule verdict or value changed")
    if changes.worse:
        lines.append(f"worse: {', '.join(changes.worse)}")
    return "\n".join(lines) + "\n"
