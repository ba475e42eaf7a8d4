"""``policycheck index``: one page listing every report under a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from policycheck.core.plural import count_of
from policycheck.interfaces.cli.common import echo, guard


@click.command()
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "-o",
    "--output",
    "index_output",
    type=click.Path(path_type=Path),
    default=None,
    help="Where to write the page (default: FOLDER/index.html).",
)
@click.option(
    "--since", type=click.DateTime(formats=["%Y-%m-%d"]), help="Only reports generated on or after this date."
)
@click.option(
    "--until", type=click.DateTime(formats=["%Y-%m-%d"]), help="Only reports generated on or before this date."
)
@click.option(
    "--verdict",
    "verdicts",
    multiple=True,
    type=click.Choice(["pass", "warn", "fail", "error"]),
    help="Only reports with this verdict (repeatable).",
)
@guard
def index(
    folder: Path,
    index_output: Path | None,
    since: Any = None,
    until: Any = None,
    verdicts: tuple[str, ...] = (),
) -> None:
    """Write FOLDER/index.html: every report.json under FOLDER with its release, policy, verdict, date,
    sign-off (decision, signer, whether the record still matches the report), waivers and policy hash."""
    from policycheck.core.errors import PolicycheckError
    from policycheck.interfaces.verify import read_report
    from policycheck.io.outputs import atomic_write_text, refuse_overwriting
    from policycheck.report.across import index_entries, render_index_html

    reports: list[tuple[Path, dict[str, Any]]] = []
    unreadable: list[tuple[str, str]] = []
    for path in sorted(folder.rglob("report.json")):
        try:
            reports.append((path, read_report(path)))
        except PolicycheckError as exc:
            unreadable.append((path.relative_to(folder).as_posix(), str(exc).split(": ", 1)[-1]))
    target = index_output or folder / "index.html"
    refuse_overwriting(
        [target],
        list(folder.rglob("report.json")),
        "an input of this index would be overwritten by its output: name another output file with -o",
    )
    first = since.date().isoformat() if since else None
    last = until.date().isoformat() if until else None
    entries = index_entries(reports, folder, first, last, tuple(verdicts))
    filters = ", ".join(
        part
        for part in (
            f"from {first}" if first else "",
            f"until {last}" if last else "",
            f"verdict {' or '.join(verdicts)}" if verdicts else "",
        )
        if part
    )
    atomic_write_text(target, render_index_html(entries, folder, unreadable, filters))
    echo(
        f"{count_of(len(entries), 'report')} listed in {target}"
        + (f"; {len(unreadable)} not read" if unreadable else "")
    )
