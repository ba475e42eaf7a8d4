"""Pydantic models of the policy language.

These models are the single source of the language: validation uses them,
``policycheck schema`` publishes them as JSON Schema, and docs/policy-language.md's
field reference is written from their descriptions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

AttackerModel = Literal["no-box", "partially-informed", "maximum-knowledge"]
Severity = Literal["blocking", "advisory"]
Compare = Literal["interval", "estimate", "lower", "upper"]
OnInconclusive = Literal["fail", "warn"]

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


class Strict(BaseModel):
    """Unknown keys are errors; numbers must be finite."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Metadata(Strict):
    """Who owns the policy and what it is for."""

    id: str = Field(pattern=ID_PATTERN, description="Stable identifier of the policy, e.g. `adult-public-release`.")
    title: str = Field(min_length=1, description="Human-readable title shown at the top of reports.")
    version: str = Field(min_length=1, description="Version of this policy (a string: quote numbers, e.g. '1.10').")
    owner: str = Field(min_length=1, description="Person or team accountable for the policy.")
    description: str | None = Field(default=None, description="What the release is, who receives it, and why.")


class Attacker(Strict):
    """The attacker model: what the adversary is assumed to know."""

    model: AttackerModel = Field(
        description=(
            "no-box: sees only the released synthetic data (and the record of any target it tests); "
            "partially-informed: also knows the quasi-identifiers of every original record (paper 001); "
            "maximum-knowledge: knows the original data and every released set (paper 000)."
        )
    )
    quasi_identifiers: list[str] = Field(
        default_factory=list,
        description="Columns an attacker can learn elsewhere about a person (age, sex, ...).",
    )
    secrets: list[str] = Field(default_factory=list, description="Sensitive columns the release must not disclose.")

    @model_validator(mode="after")
    def _disjoint(self) -> Attacker:
        both = sorted(set(self.quasi_identifiers) & set(self.secrets))
        if both:
            raise ValueError(f"columns {both} are listed both as quasi-identifiers and as secrets")
        return self


class Threshold(Strict):
    """When a rule fails or warns.

    Give exactly one of ``fail_above`` / ``fail_below``; a warn level, if
    any, goes the same way and is stricter than the fail level. The rule
    fails when the compared value is strictly beyond the fail level.
    """

    fail_above: float | None = Field(default=None, description="Fail when the value is greater than this.")
    warn_above: float | None = Field(default=None, description="Warn when the value is greater than this.")
    fail_below: float | None = Field(default=None, description="Fail when the value is less than this.")
    warn_below: float | None = Field(default=None, description="Warn when the value is less than this.")
    compare: Compare = Field(
        default="interval",
        description=(
            "How the levels decide. `interval` (default): on the confidence interval of the estimate: fail when "
            "its near end (the lower end for fail_above) is beyond the fail level, pass when its far end is within "
            "every level, warn when its far end is within the fail level but beyond the warn level, inconclusive "
            "when the interval contains the fail level (the sample cannot tell). `estimate`: the point estimate "
            "alone. `upper` / `lower`: the estimate and that interval end; both beyond the fail level fails, exactly "
            "one is inconclusive, neither passes or warns (warn judged on the bound). A value without an interval "
            "(an exact one) is judged as it is."
        ),
    )

    @model_validator(mode="after")
    def _one_direction(self) -> Threshold:
        if (self.fail_above is None) == (self.fail_below is None):
            raise ValueError("give exactly one of fail_above or fail_below")
        if self.fail_above is not None:
            if self.warn_below is not None:
                raise ValueError("warn_below does not go with fail_above: use warn_above")
            if self.warn_above is not None and self.warn_above >= self.fail_above:
                raise ValueError(f"warn_above ({self.warn_above}) must be less than fail_above ({self.fail_above})")
        else:
            if self.warn_above is not None:
                raise ValueError("warn_above does not go with fail_below: use warn_below")
            if self.warn_below is not None and self.fail_below is not None and self.warn_below <= self.fail_below:
                raise ValueError(f"warn_below ({self.warn_below}) must be greater than fail_below ({self.fail_below})")
        return self

    @property
    def direction(self) -> Literal["above", "below"]:
        return "above" if self.fail_above is not None else "below"

    @property
    def fail(self) -> float:
        return self.fail_above if self.fail_above is not None else self.fail_below  # type: ignore[return-value]

    @property
    def warn(self) -> float | None:
        return self.warn_above if self.direction == "above" else self.warn_below

    def levels(self) -> list[tuple[str, float]]:
        return [(k, v) for k, v in self.model_dump(exclude={"compare"}).items() if v is not None]


class Rule(Strict):
    """One requirement the release must meet."""

    id: str = Field(pattern=ID_PATTERN, description="Stable identifier, unique in the policy.")
    metric: str = Field(description="Metric from the registry (`policycheck metrics` lists them).")
    params: dict[str, Any] = Field(default_factory=dict, description="Parameters of the metric.")
    threshold: Threshold
    severity: Severity = Field(
        default="blocking",
        description="blocking: a failure fails the release; advisory: a failure is reported as a warning.",
    )
    on_inconclusive: OnInconclusive | None = Field(
        default=None,
        description="What an inconclusive verdict of this rule does to the release, if blocking: fail, or warn. "
        "Default: the policy's on_inconclusive.",
    )
    rationale: str | None = Field(default=None, description="Why the rule exists (shown in reports).")
    enabled: StrictBool = Field(default=True, description="false turns off a rule inherited through extends.")


class Waiver(Strict):
    """A signed-off exception: a failing rule is reported as waived until ``expires``."""

    rule: str = Field(description="Id of the waived rule.")
    reason: str = Field(min_length=1, description="Why the failure is accepted.")
    approved_by: str = Field(min_length=1, description="Who approved the exception.")
    expires: dt.date = Field(description="Last day the waiver applies (YYYY-MM-DD); expired waivers are errors.")
    ticket: str | None = Field(default=None, description="Tracking reference, e.g. a ticket id.")


class Policy(Strict):
    """A release policy: the attacker model, the rules, and their waivers."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        title="policycheck release policy",
        json_schema_extra={
            "examples": [
                {
                    "metadata": {"id": "example", "title": "Example", "version": "1", "owner": "privacy team"},
                    "attacker": {"model": "no-box"},
                    "rules": [{"id": "mi", "metric": "mi_risk", "threshold": {"fail_above": 0.2}}],
                }
            ]
        },
    )

    extends: str | list[str] | None = Field(
        default=None,
        description=(
            "A baseline policy file, or a list of them, relative to this file: loaded first, this file merged "
            "over them (rules by id)."
        ),
    )
    metadata: Metadata
    attacker: Attacker
    seed: int | None = Field(
        default=None, ge=0, description="Seed of every random choice (the CLI's --seed overrides it)."
    )
    confidence: float = Field(
        default=0.95, gt=0, lt=1, description="Confidence level of the intervals reported with estimates."
    )
    on_inconclusive: OnInconclusive = Field(
        default="warn",
        description="What an inconclusive blocking rule (the sample shows its value neither beyond nor within the "
        "fail level) does to the release: fail it (exit 1), or warn (exit 0; 1 with --fail-on-warn).",
    )
    rules: list[Rule] = Field(min_length=1, description="The requirements.")
    waivers: list[Waiver] = Field(default_factory=list, description="Approved exceptions with expiry dates.")
