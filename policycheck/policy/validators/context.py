"""What every semantic validator of a policy reads: the merged document, the release, and one rule resolved.

A validator is one function from this context (and, for a rule's checks, one
:class:`ResolvedRule`) to the problems it finds, each placed at the node of
the policy it concerns (``file:line:col``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from policycheck.core.errors import Problem
from policycheck.core.suggest import suggest
from policycheck.io.yaml_types import PathKey
from policycheck.metrics.base import AttackerView
from policycheck.metrics.registry import MetricSpec
from policycheck.policy.model import Attacker, AttackerModel, Rule
from policycheck.policy.source import Source
from policycheck.release.model import Release

#: The attacker model's name as the Attacker model validates it.
_ATTACKER_MODEL: TypeAdapter[AttackerModel] = TypeAdapter(AttackerModel)

#: Column roles dropped from the frames at load: a policy naming one is told so, not "not in the release".
UNANALYSED = ("id", "ignore")


@dataclass(frozen=True)
class PolicyContext:
    """A policy document after ``extends``, the release it will run on (if any) and the day it is checked."""

    source: Source
    #: The policy file as the user names it, for problems without a position.
    name: str
    release: Release | None
    today: dt.date

    def problem(self, path: PathKey, message: str) -> Problem:
        """``message`` placed at the node ``path`` of the policy (or the nearest node above it that has a place)."""
        return self.source.problem(path, message, self.name)

    @property
    def data(self) -> dict[str, Any]:
        return self.source.data

    @property
    def attacker(self) -> Attacker | None:
        """The attacker model, when it is valid (an invalid one is a structural problem, reported once there)."""
        with contextlib.suppress(ValidationError):
            return Attacker.model_validate(self.data.get("attacker"))
        return None

    @property
    def attacker_model(self) -> str | None:
        """The attacker model's name when it is valid, even if the attacker's other fields are not (a column
        listed as both quasi-identifier and secret): what the rules' knowledge is checked against."""
        raw = self.data.get("attacker")
        if not isinstance(raw, dict):
            return None
        with contextlib.suppress(ValidationError):
            model: str = _ATTACKER_MODEL.validate_python(raw.get("model"))
            return model
        return None

    def items(self, key: str) -> list[tuple[int, Any]]:
        """(index, raw item) of the list at top-level ``key`` (none when it is missing or not a list)."""
        raw = self.data.get(key)
        return list(enumerate(raw)) if isinstance(raw, list) else []

    def rules(self) -> list[tuple[int, Rule]]:
        """(index, rule) of every rule that validates (the others are structural problems)."""
        found = []
        for i, raw in self.items("rules"):
            with contextlib.suppress(ValidationError):
                found.append((i, Rule.model_validate(raw)))
        return found

    def missing_column(self, column: str) -> str | None:
        """Why ``column`` cannot be used with the release (None when it can, or when there is no release)."""
        if self.release is None:
            return None
        role = self.release.roles.get(column)
        if role in UNANALYSED:
            return (
                f"column {column!r} is declared type {role}: {role} columns enter no attack, query or distance; "
                "choose an analysed column"
            )
        if column not in self.release.columns:
            return f"column {column!r} is not in the release{suggest(column, self.release.columns)}"
        return None


@dataclass(frozen=True)
class ResolvedRule:
    """An enabled rule whose metric exists and whose params validate: what the rule checks read."""

    index: int
    rule: Rule
    spec: MetricSpec
    params: BaseModel

    def at(self, *path: str | int) -> PathKey:
        """The policy path of a node of this rule."""
        return ("rules", self.index, *path)


def attacker_view(attacker: Attacker) -> AttackerView:
    return AttackerView(attacker.model, tuple(attacker.quasi_identifiers), tuple(attacker.secrets))


def column_names(value: Any) -> Sequence[Any]:
    """The column names a param holds: one, a list, or lists of them (linkability's two auxiliary sets)."""
    names = value if isinstance(value, (list, tuple)) else [value]
    return [c for item in names for c in (item if isinstance(item, (list, tuple)) else [item])]
