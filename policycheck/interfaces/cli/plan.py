"""``policycheck plan``: what checking a policy would compute, and (given a release) its time and memory."""

from __future__ import annotations

import json
from pathlib import Path

import click

from policycheck.interfaces.cli.common import echo, guard
from policycheck.interfaces.cli.release_options import ReleaseArgs, release_options


@click.command()
@click.argument("policy", type=click.Path(path_type=Path))
@release_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option(
    "--workers", type=click.IntRange(min=1), help="Workers the time estimates assume (default: the cores available)."
)
@guard
def plan(policy: Path, release: ReleaseArgs, as_json: bool, workers: int | None) -> None:
    """Show what checking POLICY would compute, with which attacker knowledge, and (given a release) its estimated
    time and memory per step."""
    from policycheck.engine.compiler import compile_plan
    from policycheck.execution.executor import available_cores
    from policycheck.policy.load import load_policy, validate_for_release

    release.check_usage(required=False)
    loaded = load_policy(policy)  # the policy alone first: a broken one is exit 2 before any data is read
    data = release.load(required=False)
    if data is not None:
        loaded = validate_for_release(loaded, data)
    compiled = compile_plan(loaded, data, workers or available_cores())
    echo(json.dumps(compiled.to_dict(), indent=2) if as_json else compiled.describe(), lines=True)
    if data is not None and not as_json:
        from policycheck.engine.commands import commands_to_run

        for use in commands_to_run(compiled, data):
            echo()
            echo(
                f"note: rule {use.rule_id} runs the command synthetic set {use.set_name!r} declares, "
                f"{use.command!r}: `check` runs it only with --run-synthesizer"
            )
