"""``policycheck verify``: confirm a report matches its files, by re-hashing them and re-running the check."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from policycheck.core.errors import EXIT_FAIL, EXIT_INVALID, EXIT_PASS
from policycheck.core.plural import count_of
from policycheck.interfaces.cli.common import echo, guard, print_problems

if TYPE_CHECKING:
    from policycheck.interfaces.verify import Difference


#: Differences the re-run finds listed by default: a report whose seed was edited differs in every number.
SHOWN_RERUN_DIFFERENCES = 20
#: Differences that say what was edited or changed (the report's sealed fields, its files, its inputs, rules
#: not re-run): always listed, before anything the re-run finds.
EDITS = ("sealed", "output", "file", "not-rerun")


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
    "(its hash must match the report's), with --run-synthesizer. Without it, rules that re-run the release's "
    "command are not re-run.",
)
@click.option(
    "--run-synthesizer",
    is_flag=True,
    help="Let the re-run run the synthesizer command the --manifest declares (`command:`), once per round, "
    "after re-hashing the files it names (a changed one: the command is not run). Without it a rule that "
    "would run one is not re-run.",
)
@click.option(
    "--show-external",
    is_flag=True,
    help="Also read (hash, re-run with, print the hashes of) files outside the root folder.",
)
@click.option(
    "--signoff-only",
    is_flag=True,
    help="Check only the sign-off records beside REPORT (report.signoff.json) against the report files: "
    "no re-hash of the inputs, no re-run. Exit 1 when there is no record to check.",
)
@click.option(
    "--all-differences",
    is_flag=True,
    help=f"List every difference the re-run finds (by default the first {SHOWN_RERUN_DIFFERENCES}, then a count "
    "of the rest; what was edited in the report and its files is always listed).",
)
@click.option(
    "--allowed-signers",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="An ssh allowed-signers file: SSH-signed sign-off records must be by a key listed for the signer's name.",
)
@guard
def verify(
    report: Path,
    root: Path | None,
    executor: str,
    workers: int | None,
    quiet: bool,
    manifest: Path | None,
    run_synthesizer: bool,
    show_external: bool,
    signoff_only: bool,
    all_differences: bool,
    allowed_signers: Path | None,
) -> None:
    """Confirm REPORT (report.json) matches its files: re-hash them and re-run the check.

    Exit 0 when every file hash, verdict and number is identical (numbers to a
    relative 1e-12), 1 when anything differs (what was edited is listed, and the
    first 20 differences the re-run finds unless --all-differences), 2 when
    a file is missing or invalid. Sign-off records beside REPORT
    (``policycheck sign``) are checked too: each must match the report
    files as they are now, and its SSH signature, if any, the record.
    """
    from policycheck.interfaces.verify import edited_after_the_run, read_report, verify_report

    if run_synthesizer and manifest is None:
        raise click.UsageError(
            "--run-synthesizer needs --manifest: verify runs only a command a manifest you name declares"
        )
    if signoff_only:
        # A missing, special or invalid report: one line, exit 2, as verify says it.
        edited = edited_after_the_run(report, read_report(report))
        for difference in edited:  # a record made after the edit would match it: the seal says what changed
            echo(f"DIFFERS  {difference}")
        signed = check_signoffs(report, allowed_signers, required=True)
        sys.exit(EXIT_PASS if signed and not edited else EXIT_FAIL)

    result = verify_report(
        report,
        root,
        executor=executor,
        workers=workers,
        progress=not quiet,
        manifest=manifest,
        show_external=show_external,
        run_synthesizer=run_synthesizer,
    )
    for path, sha, _ in result.files:
        echo(f"ok       {path}  sha256 {sha}")
    list_differences(result.differences, None if all_differences else SHOWN_RERUN_DIFFERENCES)
    for note in result.notes:
        echo(f"note     {note}")
    if result.problems:
        print_problems(result.problems)
        sys.exit(EXIT_INVALID)
    rules = len(result.report["rules"])
    signoffs_ok = check_signoffs(report, allowed_signers)
    if result.identical and not signoffs_ok:
        echo("NOT verified: a sign-off record does not match the report (see above)")
        sys.exit(EXIT_FAIL)
    if result.identical:
        echo(
            f"verified: {count_of(len(result.files), 'file')} unchanged; {count_of(rules, 'rule')} re-run with seed "
            f"{result.report['provenance']['seed']}: identical verdicts and numbers"
        )
        sys.exit(EXIT_PASS)
    echo(f"NOT verified: {count_of(len(result.differences), 'difference')}")
    sys.exit(EXIT_FAIL)


def list_differences(differences: list[Difference], most: int | None) -> None:
    """One line per difference: every edit, and at most ``most`` of what the re-run finds, then how many more."""
    shown = 0
    for difference in differences:
        if difference.kind in EDITS or most is None or shown < most:
            echo(f"DIFFERS  {difference}")
            shown += difference.kind not in EDITS
    rest = sum(d.kind not in EDITS for d in differences) - shown
    if rest:
        more = count_of(rest, "more difference", "more differences")
        echo(f"         and {more} from the re-run (--all-differences lists every one)")


def check_signoffs(report: Path, allowed_signers: Path | None, required: bool = False) -> bool:
    """Print one line per sign-off record beside ``report``; whether every one matches.

    With none, True, unless ``required`` (``--signoff-only``: there is nothing to verify): then a line says so.
    """
    from policycheck.core.errors import InvalidInput, Problem
    from policycheck.report.signoff import SIGNOFF_FILE, check_records

    try:
        checks = check_records(report, allowed_signers)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(Problem(str(report.with_name(SIGNOFF_FILE)), str(exc).split(": ", 1)[-1])) from None
    for check in checks:
        # "ok", not "signed": a record without an SSH signature matches the report but is signed by no key.
        echo(f"{'ok      ' if check.ok else 'DIFFERS '} sign-off: {check.line()}")
    if not checks and required:
        echo(
            "NOT verified: there is no sign-off record beside the report to verify "
            f"(policycheck sign writes them to {SIGNOFF_FILE})"
        )
        return False
    return all(check.ok for check in checks)
