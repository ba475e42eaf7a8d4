"""``policycheck sign``: record a signer's decision on a report, bound to the report's SHA-256."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from policycheck.interfaces.cli.common import echo, guard


@click.command()
@click.argument("report", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--name", "--by", "name", required=True, help="Who signs (as in the sign-off block).")
@click.option("--role", required=True, help="The signer's role, e.g. 'privacy reviewer', 'data owner'.")
@click.option("--decision", type=click.Choice(["approve", "reject"]), required=True, help="Release the data, or not.")
@click.option("--comment", "--note", "comment", default=None, help="Conditions or reasons, in words.")
@click.option(
    "--review-by",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Date by which the release must be re-assessed (YYYY-MM-DD).",
)
@click.option(
    "--ssh-key",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Also sign the record with this SSH private key (ssh-keygen -Y sign, as git signs commits).",
)
@guard
def sign(
    report: Path,
    name: str,
    role: str,
    decision: str,
    comment: str | None,
    review_by: dt.datetime | None,
    ssh_key: Path | None,
) -> None:
    """Add a sign-off record for REPORT (report.json) to report.signoff.json beside it.

    The record names the release, policy, verdict, signer, role, decision
    and date, and holds the SHA-256 of report.json and of each report file
    beside it: `policycheck verify REPORT --signoff-only` fails once any of
    them, or the record, is edited. The report files are not changed.
    """
    from policycheck.core.errors import InvalidInput, Problem, display_path
    from policycheck.interfaces.verify import edited_after_the_run, read_report
    from policycheck.io.outputs import atomic_write_text
    from policycheck.report.signoff import SIGNOFF_FILE, new_record, read_records, records_text, ssh_sign

    for what, value in (("--name", name), ("--role", role)):
        if not value.strip():
            raise InvalidInput(Problem(what, "must not be empty"))
    today = dt.datetime.now(dt.UTC).date()
    if review_by is not None and review_by.date() < today:
        raise InvalidInput(
            Problem("--review-by", f"{review_by.date().isoformat()} has passed (today is {today.isoformat()})")
        )
    data = read_report(report)
    edited = edited_after_the_run(report, data)
    if edited:
        # A sign-off binds the report as it is: one edited after its check would certify what no check found.
        raise InvalidInput(
            Problem(
                display_path(report),
                f"not as its check wrote it: {edited[0]}{f'; and {len(edited) - 1} more' if len(edited) > 1 else ''}. "
                "Sign a report as its check wrote it (`policycheck verify REPORT` lists every change)",
            )
        )
    target = report.with_name(SIGNOFF_FILE)
    try:
        records = read_records(target)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(Problem(str(target), str(exc).split(": ", 1)[-1])) from None
    record = new_record(
        report,
        data,
        name=name.strip(),
        role=role.strip(),
        decision=decision,
        comment=comment,
        review_by=review_by.date().isoformat() if review_by else None,
    )
    if ssh_key is not None:
        try:
            record["ssh"] = ssh_sign(record, ssh_key)
        except (OSError, TimeoutError) as exc:
            raise InvalidInput(Problem(str(ssh_key), f"could not sign: {exc}")) from None
    atomic_write_text(target, records_text([*records, record]))
    echo(
        f"{decision} by {record['signer']['name']} ({record['signer']['role']}) recorded in {target}: "
        f"release {record['release']}, verdict {record['verdict']}, report.json sha256 {record['files'][report.name]}"
        + ("; SSH-signed" if ssh_key else "")
    )
