"""Which columns a reconstruction attack works from: the attacker's quasi-identifiers, the secret's domain."""

from __future__ import annotations

from typing import Any

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext
from policycheck.release.model import ColumnType, Release


def resolve_columns(ctx: EvaluationContext, secret: str, quasi_identifiers: tuple[str, ...] | None) -> tuple[str, ...]:
    """The attacker's quasi-identifiers: the param, else the policy's, else every other column.

    Raises EvaluationError when the secret is not one of the policy's declared
    secrets, or when no quasi-identifier remains.
    """
    columns = ctx.release.columns
    if secret not in columns:
        raise EvaluationError(f"secret column {secret!r} is not in the release")
    if ctx.attacker.secrets and secret not in ctx.attacker.secrets:
        raise EvaluationError(
            f"secret {secret!r} is not among the policy's declared secrets ({', '.join(ctx.attacker.secrets)})"
        )
    qis = quasi_identifiers or ctx.attacker.quasi_identifiers or tuple(c for c in columns if c != secret)
    # A column listed twice is one piece of knowledge (and one column of the queries).
    qis = tuple(dict.fromkeys(c for c in qis if c != secret))
    if not qis:
        raise EvaluationError(f"the attack on secret {secret!r} has no quasi-identifier to work from")
    return qis


def secret_classes(release: Release, secret: str) -> tuple[Any, ...]:
    """The secret's domain: values seen in the original or any synthetic set (known to the attacker)."""
    import pandas as pd

    values = pd.concat([release.original.frame[secret]] + [s.frame[secret] for s in release.synthetic]).dropna()
    return tuple(sorted(pd.unique(values), key=str))


def numeric_columns(release: Release) -> tuple[str, ...]:
    return tuple(c for c, t in release.column_types.items() if t is ColumnType.NUMERIC)


def plain(value: Any) -> Any:
    """Numpy scalars to Python (details must be JSON)."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    return value
