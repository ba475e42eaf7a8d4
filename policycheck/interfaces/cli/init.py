"""``policycheck init``: a commented starter policy; with ``--from-data``, also the release manifest for your files."""

from __future__ import annotations

from pathlib import Path

import click

from policycheck.core.errors import display_path
from policycheck.interfaces.cli.common import echo, guard
from policycheck.interfaces.cli.release_options import POPULATION_HELP


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--schema", "schema", help="Schema the $schema line names (path or URL; default: schemas/policy.schema.json)."
)
@click.option(
    "--from-data",
    "from_data",
    is_flag=True,
    help="PATHS are ORIGINAL SYNTHETIC...: write NAME.policy.yaml and NAME.release.yaml for them, "
    "every column's role settled.",
)
@click.option("--synthetic", multiple=True, type=click.Path(path_type=Path), help="A synthetic set (repeatable).")
@click.option(
    "--holdout", type=click.Path(path_type=Path), help="Holdout data: real records the synthesizer never saw."
)
@click.option("--population", type=click.Path(path_type=Path), help=POPULATION_HELP)
@click.option("--name", help="With --from-data: the policy's and release's id and the files' stem [default: release].")
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="With --from-data: the folder to write into [default: the current folder].",
)
@guard
def init(
    paths: tuple[Path, ...],
    schema: str | None,
    from_data: bool,
    synthetic: tuple[Path, ...],
    holdout: Path | None,
    population: Path | None,
    name: str | None,
    out_dir: Path | None,
) -> None:
    """Write a commented starter policy at PATH (default: release.policy.yaml); never overwrites.

    With --from-data ORIGINAL SYNTHETIC... [--holdout H] [--population P] --name NAME, write
    NAME.policy.yaml and NAME.release.yaml, which `policycheck validate -r
    NAME.release.yaml NAME.policy.yaml` accepts as written.
    """
    from policycheck.interfaces.starter import schema_reference, write_from_data, write_starter

    if from_data:
        if not paths:
            raise click.UsageError("--from-data needs ORIGINAL and at least one SYNTHETIC file")
        sets = [*paths[1:], *synthetic]
        if not sets:
            raise click.UsageError("--from-data needs at least one synthetic file after ORIGINAL (or --synthetic)")
        policy, manifest, release = write_from_data(
            name or "release", paths[0], sets, holdout, out_dir, schema, population
        )
        roles = ", ".join(f"{n} {sum(1 for r in release.roles.values() if r == n)}" for n in _present(release.roles))
        echo(f"wrote {display_path(manifest)}: {len(release.roles)} columns ({roles})")
        echo(f"wrote {display_path(policy)}: its levels are placeholders; choose them for this release")
        echo(f"next: policycheck validate -r {display_path(manifest)} {display_path(policy)}")
        written = policy
    else:
        if synthetic or holdout or population or name or out_dir:
            raise click.UsageError("--synthetic, --holdout, --population, --name and --output go with --from-data")
        if len(paths) > 1:
            raise click.UsageError("give one PATH (or --from-data ORIGINAL SYNTHETIC...)")
        written = write_starter(paths[0] if paths else None, schema)
        echo(f"wrote {display_path(written)}: edit it, then `policycheck validate {display_path(written)}`")
    reference = schema_reference(written, schema)
    target = written.parent / reference
    if "://" not in reference and not target.is_file():
        echo(
            f"note: its $schema line names {display_path(target)}, which does not exist yet: "
            f"`policycheck schema --write {display_path(target.parent)}` writes it",
            err=True,
        )


def _present(roles: dict[str, str]) -> list[str]:
    """The roles in use, in a fixed order."""
    order = ("numeric", "categorical", "ordinal", "datetime", "id", "ignore")
    return [r for r in order if r in roles.values()]
