"""The six options that name a release, declared once for every command that reads one (check, validate, plan)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from policycheck.core.escape import one_line

if TYPE_CHECKING:  # pandas loads only when a command reads data
    from policycheck.release.model import Release

#: The roles ``--column-type NAME=TYPE`` may give.
COLUMN_ROLES = ("numeric", "categorical", "datetime", "id", "ignore")

#: The --population option's help, also init --from-data's.
POPULATION_HELP = (
    "Records the membership game draws training sets and targets from (a census, a register); "
    "default: the original and holdout records."
)

OPTIONS = (
    click.option("--release", "-r", "manifest", type=click.Path(path_type=Path), help="Release manifest (YAML)."),
    click.option("--original", type=click.Path(path_type=Path), help="Original (training) data, CSV or Parquet."),
    click.option("--synthetic", multiple=True, type=click.Path(path_type=Path), help="A synthetic set (repeatable)."),
    click.option(
        "--holdout", type=click.Path(path_type=Path), help="Holdout data: real records the synthesizer never saw."
    ),
    click.option("--population", type=click.Path(path_type=Path), help=POPULATION_HELP),
    click.option(
        "--column-type",
        "column_types",
        multiple=True,
        metavar="NAME=TYPE",
        help="A column's role: numeric, categorical, datetime (or datetime:FORMAT, strftime), "
        "id or ignore (repeatable; over --metadata and inference).",
    ),
    click.option(
        "--metadata",
        type=click.Path(path_type=Path),
        help="SDV metadata JSON giving column types (sdtypes: id, numerical, categorical, "
        "datetime, boolean; others are ignored).",
    ),
)


@dataclass(frozen=True)
class ReleaseArgs:
    """What the release options gave: a manifest, or the data files and column types."""

    manifest: Path | None = None
    original: Path | None = None
    synthetic: tuple[Path, ...] = ()
    holdout: Path | None = None
    column_types: tuple[str, ...] = ()
    metadata: Path | None = None
    population: Path | None = None

    @property
    def given(self) -> bool:
        """Whether any release was named (column types alone name none)."""
        return bool(self.manifest or self.original or self.synthetic or self.holdout)

    def load(self, required: bool = True, show_findings: bool = True, threads: int = 1) -> Release | None:
        """The release named, or None when none is and none is ``required`` (nothing read: no pandas).

        ``show_findings`` prints what reading the data found, one line each on stderr; ``threads``
        files are read at once (the command's workers: one with ``--workers 1``).
        """
        if not self.given and not required:
            return None  # nothing to read: validate and plan stay fast without pandas
        release = self.read(required, threads)
        for finding in release.findings if release is not None and show_findings else ():
            click.echo(f"finding: {one_line(finding)}", err=True)
        return release

    def read(self, required: bool = True, threads: int = 1) -> Release | None:
        """Read the release from a manifest, or build it from the data files (a usage error names a bad mix)."""
        from policycheck.release.load import build_release, load_manifest
        from policycheck.release.model import SynthesizerInfo

        self.check_usage(required)
        if self.manifest:
            return load_manifest(self.manifest, threads)
        if not self.original:
            return None
        synth = [(Path(p), f"synthetic[{i}]", SynthesizerInfo()) for i, p in enumerate(self.synthetic)]
        return build_release(
            Path(self.original).stem,
            Path(self.original),
            synth,
            Path(self.holdout) if self.holdout else None,
            column_declarations(self.column_types),
            metadata=Path(self.metadata) if self.metadata else None,
            declared_by="flags",
            threads=threads,
            population=Path(self.population) if self.population else None,
        )

    def check_usage(self, required: bool = True) -> None:
        """Refuse a bad mix of release options (a usage error), before anything is read."""
        if self.manifest and (self.original or self.synthetic or self.holdout or self.population):
            raise click.UsageError("give either --release or --original/--synthetic/--holdout/--population, not both")
        if self.manifest and (self.column_types or self.metadata):
            # verify re-runs a manifest's check from the manifest alone
            raise click.UsageError(
                "with --release, declare column types in the manifest (`columns:`, `metadata:`), "
                "not with --column-type or --metadata"
            )
        if self.manifest:
            return
        if not self.original and not self.synthetic:
            if required:
                raise click.UsageError("no release: give --release MANIFEST, or --original and --synthetic")
            return
        if not self.original or not self.synthetic:
            raise click.UsageError("--original and at least one --synthetic are needed together")
        column_declarations(self.column_types)  # a malformed --column-type


def column_declarations(items: tuple[str, ...]) -> dict[str, Any]:
    """``--column-type NAME=TYPE`` (TYPE one of :data:`COLUMN_ROLES`, or ``datetime:FORMAT``) as manifest columns."""
    from policycheck.release.manifest import ColumnDecl, ColumnRole

    columns = {}
    for item in items:
        name, _, kind = item.partition("=")
        kind, _, fmt = kind.partition(":")
        if not name or kind not in COLUMN_ROLES or (fmt and kind != "datetime"):
            raise click.UsageError(
                f"--column-type {item!r}: expected NAME=TYPE with TYPE one of "
                f"{', '.join(COLUMN_ROLES)} (or datetime:FORMAT)"
            )
        columns[name] = ColumnDecl(type=cast(ColumnRole, kind), format=fmt or None)  # one of COLUMN_ROLES
    return columns


def release_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Declare the release options on a command; it receives them as one ``release: ReleaseArgs``."""

    @functools.wraps(fn)
    def wrapper(
        *args: Any,
        manifest: Path | None,
        original: Path | None,
        synthetic: tuple[Path, ...],
        holdout: Path | None,
        population: Path | None,
        column_types: tuple[str, ...],
        metadata: Path | None,
        **kwargs: Any,
    ) -> Any:
        given = ReleaseArgs(manifest, original, tuple(synthetic), holdout, tuple(column_types), metadata, population)
        return fn(*args, release=given, **kwargs)

    for option in reversed(OPTIONS):
        wrapper = option(wrapper)
    return wrapper
