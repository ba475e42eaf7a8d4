"""A declared differentially private mechanism: what a release (or a ledger entry) states it ran.

The keys a manifest's ``synthesizer:`` block or a ledger entry may carry, and
the model that checks they describe one mechanism. Composing declared
mechanisms is :mod:`policycheck.methods.dp.composition`'s work; this module
only validates declarations, so reading a manifest needs no DP library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

MechanismKind = Literal["pure", "approximate", "laplace", "gaussian", "subsampled_gaussian", "zcdp"]

#: Keys of a manifest ``synthesizer:`` block (or its ``params``) that describe the DP mechanism.
MECHANISM_KEYS = ("mechanism", "epsilon", "delta", "rho", "noise_multiplier", "sampling_probability", "steps")


class Mechanism(BaseModel):
    """One declared differentially private mechanism run on the original."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mechanism: MechanismKind | None = Field(
        None, description="Kind of mechanism; inferred from epsilon/delta when omitted."
    )
    epsilon: float | None = Field(None, gt=0, description="Declared epsilon of one run.")
    delta: float | None = Field(None, ge=0, lt=1, description="Declared delta of one run (0 for pure DP).")
    rho: float | None = Field(None, gt=0, description="zCDP parameter rho of one run.")
    noise_multiplier: float | None = Field(
        None, gt=0, description="Gaussian noise standard deviation divided by the sensitivity."
    )
    sampling_probability: float | None = Field(
        None, gt=0, le=1, description="Poisson sampling probability per step (DP-SGD)."
    )
    steps: int = Field(1, ge=1, description="How many times the mechanism ran on the original.")

    @model_validator(mode="after")
    def _complete(self) -> Mechanism:
        kind = self.mechanism
        if kind is None:
            if self.epsilon is None:
                raise ValueError("give a mechanism, or at least an epsilon")
            kind = "approximate" if (self.delta or 0) > 0 else "pure"
            object.__setattr__(self, "mechanism", kind)
        needs = {
            "pure": ("epsilon",),
            "approximate": ("epsilon", "delta"),
            "laplace": ("epsilon",),
            "zcdp": ("rho",),
            "subsampled_gaussian": ("noise_multiplier", "sampling_probability"),
        }.get(kind, ())
        missing = [key for key in needs if getattr(self, key) is None]
        if kind == "gaussian" and self.rho is None and self.noise_multiplier is None:
            missing = ["rho or noise_multiplier"]
        if missing:
            raise ValueError(f"mechanism {kind!r} needs {', '.join(missing)}")
        if kind == "pure" and (self.delta or 0) > 0:
            raise ValueError("a pure mechanism has delta 0; use 'approximate' for a positive delta")
        return self

    @property
    def sigma(self) -> float | None:
        """Gaussian noise multiplier; ``rho``-zCDP Gaussian has sigma = 1 / sqrt(2 rho)."""
        if self.noise_multiplier is not None:
            return self.noise_multiplier
        return None if self.rho is None else 1.0 / math.sqrt(2.0 * self.rho)

    @property
    def declared_pair(self) -> tuple[float, float] | None:
        """(epsilon, delta) of all ``steps`` runs by basic composition, if declared."""
        if self.epsilon is None:
            return None
        return (self.epsilon * self.steps, (self.delta or 0.0) * self.steps)

    def describe(self) -> str:
        keys = [f"{k}={getattr(self, k):g}" for k in MECHANISM_KEYS[1:-1] if getattr(self, k) is not None]
        steps = f" x {self.steps}" if self.steps > 1 else ""
        return f"{self.mechanism}({', '.join(keys)}){steps}"


class InvalidMechanism(ValueError):
    """A declaration no mechanism fits; ``key`` is the offending key, None when the combination is at fault."""

    def __init__(self, key: str | None, cause: str) -> None:
        super().__init__(f"invalid DP mechanism: {key + ': ' if key else ''}{cause}")
        self.key = key


def declared_mechanism(fields: Mapping[str, Any]) -> Mechanism | None:
    """The mechanism a synthesizer declaration states, or None when it claims no differential privacy.

    ``fields`` are the keys of a manifest's ``synthesizer:`` block; those not
    in :data:`MECHANISM_KEYS` are ignored. No mechanism key, or a delta
    alone, claims no DP. Raises :class:`InvalidMechanism` (a ValueError)
    naming the first offending key.
    """
    claimed = {k: v for k, v in fields.items() if k in MECHANISM_KEYS}
    if not claimed or claimed.keys() <= {"delta"}:
        return None
    try:
        return Mechanism.model_validate(claimed)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or None
        raise InvalidMechanism(key, first["msg"].removeprefix("Value error, ")) from None
