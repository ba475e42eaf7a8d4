"""``policycheck demo``: two synthetic releases of real census data checked against the example policy."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

from policycheck.interfaces.cli.common import echo, guard, output_options, progress_choice


@click.command()
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(path_type=Path),
    help="Folder for the releases and reports (default: a fresh temporary folder, removed at the end unless --keep).",
)
@click.option("--keep", is_flag=True, help="Keep the temporary folder (its path is printed at the end).")
@click.option("--refresh-sample", is_flag=True, help="Rewrite the sample reports committed under reports/demo.")
@click.option("--seed", type=click.IntRange(min=0), default=20261121, show_default=True)
@click.option("--policy", type=click.Path(path_type=Path), help="Policy to check (default: policies/demo.policy.yaml).")
@output_options
@guard
def demo(
    out_dir: Path | None,
    keep: bool,
    refresh_sample: bool,
    seed: int,
    policy: Path | None,
    quiet: int,
    progress: str | None,
) -> None:
    """Check two synthetic releases of real census data (UCI Adult) against the example policy.

    It writes nowhere in a checkout unless asked: into --output, or a fresh
    temporary folder (removed at the end unless --keep); --refresh-sample
    rewrites the committed sample reports.

    Exit 0 when both checks ran, whatever their verdicts: the nonprivate
    release copies real records and fails on purpose, to show a failing
    report. Exit 3 when an evaluator could not run.
    """
    from policycheck.interfaces.demo import output_folder, run_demo

    folder = output_folder(out_dir, refresh_sample)
    temporary = out_dir is None and not refresh_sample
    try:
        mode = progress_choice(quiet, progress)
        code = run_demo(
            folder,
            seed=seed,
            policy=policy,
            progress=mode,  # type: ignore[arg-type]
            quiet=quiet,
            command=("policycheck", *sys.argv[1:]),  # as typed, as check records it
        )
    finally:
        if temporary and not keep:
            shutil.rmtree(folder, ignore_errors=True)
    if temporary and quiet < 2:
        echo()
        if keep:
            echo(f"releases and reports kept in {folder}/")
        else:
            echo(f"removed the temporary folder {folder}/ (--keep keeps it, -o DIR writes elsewhere)")
    sys.exit(code)
