"""What every reconstruction rule's params say: the secret, the attacker's columns and the attacks' knobs."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field, field_validator

from policycheck.methods.reconstruction.attacks import AttackConfig
from policycheck.metrics.base import AttackerView
from policycheck.metrics.registry import Params
from policycheck.release.model import Release

#: The attacks as policies name them (policycheck.methods.reconstruction.attacks.ATTACKS).
AttackName = Literal["lp", "dcr", "ml", "exact"]


class AttackParams(Params):
    """Params every reconstruction metric shares."""

    secret: str = Field(description="The secret column the attacker tries to reconstruct.")
    quasi_identifiers: list[str] | None = Field(
        None,
        description="Columns the attacker knows for every original record; default: the policy's "
        "quasi-identifiers, or every other column when the policy declares none (as in the paper).",
    )
    query_orders: list[int] = Field(
        [3],
        min_length=1,
        description="Orders k of the LP attack's queries (k-1 quasi-identifiers and the secret); "
        "3 is the paper's attack.",
    )
    n_queries: int | None = Field(
        None, ge=1, description="Query budget of the LP attack: a seeded uniform sample of the queries; null for all."
    )
    numeric_bins: int = Field(
        5, ge=2, le=100, description="Quantile bins of each numeric quasi-identifier in the LP attack's queries."
    )
    scaling: Literal["conditional", "marginal"] = Field(
        "conditional",
        description="How the LP attack answers queries from the synthetic data: 'conditional' (the paper's "
        "extension: synthetic share within the cell times the cell's original count) or 'marginal' (count times n/m).",
    )
    time_limit: float = Field(300.0, gt=0, description="Seconds the LP solver may spend on one solve.")
    n_estimators: int = Field(100, ge=1, le=2000, description="Trees of the random forest of the 'ml' attack.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the intervals.")

    @field_validator("query_orders")
    @classmethod
    def _orders_at_least_two(cls, value: list[int]) -> list[int]:
        if any(k < 2 for k in value):
            raise ValueError("every query order must be at least 2 (the secret and one quasi-identifier)")
        return sorted(set(value))


#: Every attack, the default of a rule that runs several.
ALL_ATTACKS: list[AttackName] = list(get_args(AttackName))


def attack_config(params: AttackParams) -> AttackConfig:
    """The attacks' knobs the params set."""
    return AttackConfig(
        query_orders=tuple(params.query_orders),
        n_queries=params.n_queries,
        numeric_bins=params.numeric_bins,
        scaling=params.scaling,
        time_limit=params.time_limit,
        n_estimators=params.n_estimators,
    )


def config_items(config: AttackConfig) -> dict[str, Any]:
    """The knobs as a Need's params (a run's key: equal knobs share one run)."""
    return {
        "query_orders": config.query_orders,
        "n_queries": config.n_queries,
        "numeric_bins": config.numeric_bins,
        "scaling": config.scaling,
        "time_limit": config.time_limit,
        "n_estimators": config.n_estimators,
    }


def check_secret_declared(
    params: AttackParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the attacked secret must be one the policy declares (as the attacks demand)."""
    if attacker.secrets and params.secret not in attacker.secrets:
        return [
            (
                ("secret",),
                f"secret {params.secret!r} is not among the policy's declared secrets "
                f"({', '.join(attacker.secrets)}): declare it under attacker.secrets or attack one of them",
            )
        ]
    return []
