"""What every linkage rule's params say: the attacker's secret and attributes, the mappings, the baseline."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from policycheck.metrics.base import AttackerView
from policycheck.metrics.registry import Params
from policycheck.release.model import ColumnType, Release

#: How the attacker may read each released set: reverse-mapped (paper 000, sec. 3.1) or as released.
MAPPINGS: tuple[Literal["reverse", "released"], ...] = ("reverse", "released")


class LinkageParams(Params):
    """What the attacker links on and which secret he tries to learn."""

    secret: str | None = Field(
        None,
        description=(
            "Column the attacker tries to learn; he ignores it in the original while linking. It must be "
            "numeric, ordinal, or categorical with an order in `orders`. Default: the policy's only declared secret."
        ),
    )
    attributes: list[str] | None = Field(
        None,
        min_length=1,
        description="Columns the attacker links on. Default: the policy's quasi-identifiers, without the secret.",
    )
    criterion: Literal["sum", "max", "min"] = Field(
        "sum",
        description=(
            "How rank differences over the attributes are combined into one linkage distance: their sum "
            "(suits noise-like synthesizers), their maximum (suits swapping-like ones) or their minimum (links "
            "to every record sharing the closest rank on any one attribute, so it rarely narrows anything)."
        ),
    )
    orders: dict[str, list[str]] = Field(
        default_factory=dict,
        description=(
            "Category orders, lowest first, by column. Needed for a categorical secret; for a categorical "
            "linkage attribute it replaces the default order (frequency in the original)."
        ),
    )
    confidence: float = Field(
        0.95, gt=0, lt=1, description="Confidence level of the Clopper-Pearson interval (default: the policy's)."
    )
    mappings: list[Literal["reverse", "released"]] = Field(
        default_factory=lambda: list(MAPPINGS),
        min_length=1,
        description=(
            "How the attacker reads each released set before linking: 'reverse' maps the value of rank k to the "
            "original value of rank k (paper 000, sec. 3.1; undoes permuting and perturbing), 'released' links on "
            "the values as released (not shifted when original records are released in changed proportions, as in "
            "a bootstrap). The value is the worse of the listed ones, each interval at the Bonferroni level."
        ),
    )
    baseline: Literal["auto", "chance", "holdout", "none"] = Field(
        "auto",
        description=(
            "What the compared value is measured against: 'auto' (default) the better of chance and the same "
            "attack on holdout records (chance alone without a holdout), 'chance', 'holdout', or 'none' to bound "
            "the raw rate. The value is the rate minus the baseline."
        ),
    )


class ListedRecordsParams(LinkageParams):
    """Parameters of a metric that lists the most exposed real people in the report."""

    show_values: bool = Field(
        False,
        description="Show the secret ranks and values identified for real people in the report (off by default).",
    )


def check_secret_orderable(
    params: LinkageParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the secret resolves to one column, and a categorical secret has an order."""
    secret = params.secret
    if secret is None:
        if len(attacker.secrets) != 1:
            return [
                (
                    ("secret",),
                    f"params.secret is not given and the policy declares {len(attacker.secrets)} "
                    f"secrets; name the one column this rule protects in params.secret",
                )
            ]
        secret = attacker.secrets[0]
    if release.column_types.get(secret) is ColumnType.CATEGORICAL and secret not in params.orders:
        return [
            (
                ("secret",),
                f"secret column {secret!r} is categorical without an order, so no range of its values "
                f"can be narrowed; give its categories lowest first in params.orders, or choose a "
                f"numeric or ordinal secret",
            )
        ]
    return []
