"""``policycheck validate``: check policy files (and, given a release, the columns they name) without computing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from policycheck.core.errors import EXIT_INVALID, InvalidInput, Problem, display_path
from policycheck.core.plural import count_of
from policycheck.interfaces.cli.common import echo, guard, print_problems
from policycheck.interfaces.cli.release_options import ReleaseArgs, release_options

if TYPE_CHECKING:
    from policycheck.policy.load import LoadedPolicy
    from policycheck.release.model import Release


@click.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@release_options
@guard
def validate(files: tuple[Path, ...], release: ReleaseArgs) -> None:
    """Check policy FILES (paths or globs); with a release, also that the columns they name exist.

    Without FILES, the `policies` of [tool.policycheck] in pyproject.toml.
    """
    from policycheck.io.config import expand_policies, load_settings
    from policycheck.policy.load import load_policy, validate_for_release

    paths = expand_policies(list(files) or load_settings({})["policies"])
    if not paths:
        raise click.UsageError("no policy: give FILES, or `policies` in [tool.policycheck] of pyproject.toml")

    release.check_usage(required=False)
    problems: list[Problem] = []
    alone: list[tuple[Path, LoadedPolicy]] = []
    for path in paths:
        try:
            alone.append((path, load_policy(path)))
        except InvalidInput as exc:
            problems.extend(exc.problems)
    if problems and release.given:
        refuse(problems)  # the policies alone first: a broken one is said before any data is read, as `check` does
    data = release.load(required=False)
    for path, loaded in alone:
        if data is not None:
            try:
                loaded = validate_for_release(loaded, data)
            except InvalidInput as exc:
                problems.extend(exc.problems)
                continue
        rules = count_of(len(loaded.rules), "rule")
        echo(f"{display_path(path)}: ok ({rules}, attacker model {loaded.policy.attacker.model})")
        from policycheck.interfaces.starter import placeholder_notes

        for note in placeholder_notes(loaded):
            echo(str(note), err=True)
        for gap in untested_by(loaded, data):
            echo(f"{display_path(path)}: note: not tested: {gap}", err=True)
        if data is not None:
            from policycheck.engine.resolution import unresolved_levels

            # NOTE: a level below what the sample can resolve is valid, so it is a note (exit 0), said
            # before anything is computed (issue 28).
            for _, where in unresolved_levels(loaded, data):
                echo(str(where), err=True)
    if problems:
        refuse(problems)


def refuse(problems: list[Problem]) -> NoReturn:
    """Print every problem (and their count when several), then exit 2."""
    print_problems(problems)
    if len(problems) > 1:
        echo(f"{len(problems)} problems found", err=True)
    sys.exit(EXIT_INVALID)


def untested_by(loaded: LoadedPolicy, data: Release | None) -> list[str]:
    """What the policy leaves untested (:func:`policycheck.report.decision.untested`), from its compiled plan.

    The same sentences a report of it will carry, said before any data is
    read; the release, when given, adds its declared epsilons.
    """
    from policycheck.engine.compiler import compile_plan
    from policycheck.report.decision import untested

    plan = compile_plan(loaded, data, resolution=False, estimates=False)
    rules = [
        {
            "id": e.rule.id,
            "metric": e.spec.name,
            "family": e.spec.family,
            "release_level_membership": e.spec.release_level_membership,
            "needs": [n.label for n in e.needs],
        }
        for e in plan.evaluations
    ]
    sets = data.synthetic if data is not None else ()
    datasets = [
        {
            "role": "synthetic",
            "name": s.name,
            "synthesizer": {"epsilon": s.synthesizer.epsilon} if s.synthesizer else None,
        }
        for s in sets
    ]
    return untested(
        {"policy": {"attacker_model": loaded.policy.attacker.model}, "rules": rules, "release": {"datasets": datasets}}
    )
