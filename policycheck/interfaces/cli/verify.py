"""``policycheck verify``: confirm a report matches its files, by re-hashing them and re-running the check."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from policycheck.core.errors import EXIT_FAIL, EXIT_INVALID, EXIT_PASS
from policycheck.interfaces.cli.common import echo, guard, print_problems


@click.command()
@click.argument("report", type=click.Path(path_type=Path))
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder the report's relative paths start from: the folder the check ran in (default: the "
    "folder holding REPORT; never a folder the report names). No file outside it is read.",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "serial"]),
    default="local",
    show_default=True,
    help="Where heavy work runs: local processes, or serially in this process.",
)
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: the cores available).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option(
    "--manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help="A release manifest you trust: the only source of synthesizer commands verify will run "
    "(its hash must match the report's). Without it, rules that re-run the release's command are not re-run.",
)
@click.option(
    "--show-external",
    is_flag=True,
    help="Also read (hash, re-run with, print the hashes of) files outside the root folder.",
)
@guard
def verify(
    report: Path,
    root: Path | None,
    executor: str,
    workers: int | None,
    quiet: bool,
    manifest: Path | None,
    show_external: bool,
) -> None:
    """Confirm REPORT (report.json) matches its files: re-hash them and re-run the check.

    Exit 0 when every file hash, verdict and number is identical (numbers to a
    relative 1e-12), 1 when anything differs (each difference is listed), 2 when
    a file is missing or invalid.
    """
    from policycheck.interfaces.verify import verify_report

    result = verify_report(
        report,
        root,
        executor=executor,
        workers=workers,
        progress=not quiet,
        manifest=manifest,
        show_external=show_external,
    )
    for path, sha, _ in result.files:
        echo(f"ok       {path}  sha256 {sha}")
    for difference in result.differences:
        echo(f"DIFFERS  {difference}")
    if result.problems:
        print_problems(result.problems)
        sys.exit(EXIT_INVALID)
    rules = len(result.report["rules"])
    if result.identical:
        echo(
            f"verified: {len(result.files)} file(s) unchanged; {rules} rule(s) re-run with seed "
            f"{result.report['provenance']['seed']}: identical verdicts and numbers"
        )
        sys.exit(EXIT_PASS)
    echo(f"NOT verified: {len(result.differences)} difference(s)")
    sys.exit(EXIT_FAIL)
