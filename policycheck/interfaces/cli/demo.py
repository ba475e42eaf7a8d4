"""``policycheck demo``: two synthetic releases of real census data checked against the example policy."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from policycheck.interfaces.cli.common import guard


@click.command()
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(path_type=Path),
    help="Folder for the releases and reports (default: a fresh temporary folder, named when it starts).",
)
@click.option("--refresh-sample", is_flag=True, help="Rewrite the sample reports committed under reports/demo.")
@click.option("--seed", type=click.IntRange(min=0), default=20261121, show_default=True)
@click.option("--policy", type=click.Path(path_type=Path), help="Policy to check (default: policies/demo.policy.yaml).")
@click.option("--quiet", "-q", is_flag=True, help="Plain progress lines instead of live bars.")
@guard
def demo(out_dir: Path | None, refresh_sample: bool, seed: int, policy: Path | None, quiet: bool) -> None:
    """Check two synthetic releases of real census data (UCI Adult) against the example policy.

    It writes nowhere in a checkout unless asked: into --output, or a fresh
    temporary folder; --refresh-sample rewrites the committed sample reports.
    """
    from policycheck.interfaces.demo import output_folder, run_demo

    sys.exit(
        run_demo(output_folder(out_dir, refresh_sample), seed=seed, policy=policy, progress="plain" if quiet else True)
    )
