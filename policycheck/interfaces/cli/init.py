"""``policycheck init``: a commented starter policy."""

from __future__ import annotations

from pathlib import Path

import click

from policycheck.core.errors import display_path
from policycheck.interfaces.cli.common import echo, guard


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--schema", "schema", help="Schema the $schema line names (path or URL; default: schemas/policy.schema.json)."
)
@guard
def init(path: Path | None, schema: str | None) -> None:
    """Write a commented starter policy at PATH (default: release.policy.yaml); never overwrites."""
    from policycheck.interfaces.starter import schema_reference, write_starter

    written = write_starter(path, schema)
    echo(f"wrote {display_path(written)}: edit it, then `policycheck validate {display_path(written)}`")
    reference = schema_reference(written, schema)
    target = written.parent / reference
    if "://" not in reference and not target.is_file():
        echo(
            f"note: its $schema line names {display_path(target)}, which does not exist yet: "
            f"`policycheck schema --write {display_path(target.parent)}` writes it",
            err=True,
        )
