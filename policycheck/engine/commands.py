"""Which rules of a plan would run a synthesizer command the release declares.

The attack games re-run the release's synthesizer (``synthesizer: release``):
a Python entry point given through the API, a built-in (``builtin:``), or a
manifest's ``command:``, a program run once per round. A command is the one
thing a check can run that nobody typed: ``check`` runs it only with
``--run-synthesizer`` and ``verify`` only with a manifest the auditor names,
and both ask this module which rules would run one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policycheck.engine.compiler import Plan
from policycheck.release.model import Release


@dataclass(frozen=True)
class CommandUse:
    """A rule that would run the command a synthetic set declares."""

    rule_id: str
    set_name: str
    command: str


def needs_command(params: Any, release: Release | None = None) -> bool:
    """Whether a rule re-runs the synthesizer the release declares by a command (the attack games).

    A release whose sets name a built-in synthesizer (``builtin:``) and no
    command runs only policycheck's own code: such a rule needs no command.
    Without a release, any rule with ``synthesizer: release`` may.
    """
    if getattr(params, "synthesizer", None) != "release":
        return False
    if getattr(params, "test", "game") == "distance":  # dp_epsilon_excess_membership without the game
        return False
    if release is not None and not declared_commands(release):
        return not any(d.synthesizer is not None and d.synthesizer.params.get("builtin") for d in release.synthetic)
    return True


def declared_commands(release: Release) -> list[tuple[str, str]]:
    """(set name, command) of every synthetic set that declares a synthesizer command."""
    return [(d.name, d.synthesizer.command) for d in release.synthetic if d.synthesizer and d.synthesizer.command]


def commands_to_run(plan: Plan, release: Release) -> list[CommandUse]:
    """Each rule of ``plan`` that would run a command ``release`` declares, with the first such command."""
    declared = declared_commands(release)
    if not declared:
        return []
    name, command = declared[0]
    return [CommandUse(e.rule.id, name, command) for e in plan.evaluations if needs_command(e.params, release)]
