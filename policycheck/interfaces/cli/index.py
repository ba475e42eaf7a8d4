"""``policycheck index``: one page listing every report under a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

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
@guard
def index(folder: Path, index_output: Path | None) -> None:
    """Write FOLDER/index.html: every report.json under FOLDER with its release, policy, verdict and date."""
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
    atomic_write_text(target, render_index_html(index_entries(reports, folder), folder, unreadable))
    echo(f"{len(reports)} report(s) listed in {target}" + (f"; {len(unreadable)} not read" if unreadable else ""))
