"""A release policy for the Python API: load and validate it, with every problem located."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from policycheck.core.errors import InvalidInput, Problem

if TYPE_CHECKING:
    from policycheck.interfaces.api.release import Release
    from policycheck.policy.load import LoadedPolicy


class PolicyError(InvalidInput):
    """A policy file is invalid; ``.problems`` lists every problem with its ``file:line:col``."""


class Policy:
    """A validated release policy (see :func:`load_policy`)."""

    def __init__(self, loaded: LoadedPolicy) -> None:
        self._loaded = loaded

    @property
    def path(self) -> Path:
        return self._loaded.path

    @property
    def id(self) -> str:
        return self._loaded.policy.metadata.id

    @property
    def rules(self) -> list[str]:
        """Ids of the enabled rules, in policy order."""
        return [rule.id for rule in self._loaded.rules]

    @property
    def attacker_model(self) -> str:
        return self._loaded.policy.attacker.model

    def __repr__(self) -> str:
        return f"<Policy {self.id!r} from {self.path}: {len(self.rules)} rules, attacker model {self.attacker_model}>"


def load_policy(path: str | Path, release: Release | None = None) -> Policy:
    """Load and validate the policy at ``path`` (with its ``extends``).

    With a ``release``, also check that the columns the policy names exist.
    Raises :class:`PolicyError` listing every problem.
    """
    from policycheck.policy.load import load_policy as _load

    try:
        return Policy(_load(Path(path), release._release if release is not None else None))
    except PolicyError:
        raise
    except InvalidInput as exc:
        raise PolicyError(exc.problems) from None


def validate(path: str | Path, release: Release | None = None) -> list[Problem]:
    """Every problem of the policy at ``path`` (empty when it is valid); never raises for a bad policy."""
    try:
        load_policy(path, release)
    except PolicyError as exc:
        return list(exc.problems)
    return []
