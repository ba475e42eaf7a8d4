"""The shared intermediate: the maximum-knowledge attacker's linkage attack on one secret (paper 000, secs. 3-4).

Every linkage rule reads the same attack: :func:`linkage_needs` asks for it on
the original records and, when the rule's baseline may use it, on the holdout
records (the control), once per mapping; rules with equal settings share one
computation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import EvaluationError
from policycheck.methods import cost_model
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.metrics.linkage.params import LinkageParams
from policycheck.metrics.registry import intermediate
from policycheck.release.model import ColumnType, Dataset, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.linkage.attack import LinkageAttack

INTERMEDIATE = "linkage_attack"


def attack_need(params: LinkageParams, records: str, mapping: str) -> Need:
    """The Need of the attack a rule with ``params`` reads, on ``records`` ("original" or "holdout")."""
    return Need.of(
        INTERMEDIATE,
        secret=params.secret,
        attributes=tuple(dict.fromkeys(params.attributes)) if params.attributes is not None else None,
        criterion=params.criterion,
        orders=tuple(sorted((c, tuple(v)) for c, v in params.orders.items())),
        records=records,
        mapping=mapping,
    )


def linkage_needs(params: LinkageParams, release: Release) -> list[Need]:
    """Per mapping: the attack on the original records, and on the holdout ones when the baseline may use them."""
    needs = []
    for mapping in dict.fromkeys(params.mappings):
        needs.append(attack_need(params, "original", mapping))
        if params.baseline in ("auto", "holdout") and release.holdout is not None:
            needs.append(attack_need(params, "holdout", mapping))
    return needs


def attacks_by_mapping(needs: Mapping[Need, Any]) -> dict[str, dict[str, LinkageAttack]]:
    """Per mapping, in the order asked: the attacks that ran, by record set ("original", and "holdout" if it ran)."""
    runs: dict[str, dict[str, LinkageAttack]] = {}
    for need, attack in needs.items():
        runs.setdefault(need.kwargs.get("mapping", "reverse"), {})[need.kwargs.get("records", "original")] = attack
    return runs


@intermediate(
    name=INTERMEDIATE,
    description=(
        "Multiple reverse mapping (or the values as released) and multiple rank-based record linkage of every "
        "original record against every synthetic set, on the attacker's attributes, with the secret values "
        "identified (paper 000, secs. 3-4); or the same attack on the holdout records, as a control."
    ),
    inputs={"original", "holdout", "synthetic"},
    estimate=cost_model.linkage_attack,
)
def linkage_attack(
    ctx: EvaluationContext,
    secret: str | None,
    attributes: tuple[str, ...] | None,
    criterion: str,
    orders: tuple[tuple[str, tuple[str, ...]], ...],
    records: str = "original",
    mapping: str = "reverse",
) -> LinkageAttack:
    """Mount the attribute-disclosure attack of paper 000 (sec. 4) on one secret.

    The secret defaults to the policy's only secret, the attributes to its
    quasi-identifiers without the secret. Each set is pre-sampled with
    ``ctx.rng("linkage", "presample", m)`` (``ctx.rng("linkage", "presample",
    "holdout", m)`` for the control on the holdout records) and linked as one
    executor item. Categories are ranked as in the original for both. Both
    mappings pre-sample the same records, so they differ only in how the sets are read.
    """
    import numpy as np

    from policycheck.methods.linkage.attack import run_attack
    from policycheck.methods.linkage.reverse_mapping import attribute_order

    release = ctx.release
    secret = resolve_secret(ctx, secret)
    attributes = resolve_attributes(ctx, secret, attributes)
    policy_orders = dict(orders)
    for col in (secret, *attributes, *policy_orders):
        if col not in release.column_types:
            raise EvaluationError(f"linkage names column {col!r}, which the release does not have.")
    if not release.synthetic:
        raise EvaluationError("linkage needs at least one synthetic set, and the release has none.")
    secret_type = release.column_types[secret]
    if secret_type is ColumnType.CATEGORICAL and secret not in policy_orders:
        raise EvaluationError(
            f"secret column {secret!r} is categorical without an order, so no range of its values can be "
            f"narrowed; give its categories lowest first in params.orders, or choose a numeric or ordinal secret."
        )
    if release.original.frame[secret].isna().all():
        raise EvaluationError(
            f"secret column {secret!r} is missing in every original record, so there is no value to disclose; "
            "choose a secret column with values."
        )
    attacked = release.original if records == "original" else release.holdout
    if attacked is None:
        raise EvaluationError(f"linkage on {records} records needs a holdout set, and the release has none.")
    ranked = {}
    for col in (*attributes, secret):
        ranked[col] = attribute_order(
            col, release.column_types[col], release.original.frame[col], release.orders.get(col), policy_orders.get(col)
        )
        if col in policy_orders:
            check_order_covers(release, col, policy_orders[col], attacked)
    key = ("linkage", "presample") if records == "original" else ("linkage", "presample", "holdout")
    rngs = [ctx.rng(*key, m) for m in range(len(release.synthetic))]
    label = f"linkage ({criterion}, {mapping}) on {secret}" + ("" if records == "original" else " (holdout control)")
    span = None
    if records != "original":
        # Widths of the control are measured against the same range as the original's.
        known = ranked[secret].codes(release.original.frame[secret])
        span = float(np.nanmax(known) - np.nanmin(known))
    return run_attack(
        release,
        secret,
        attributes,
        criterion,
        ranked,
        rngs,
        executor=ctx.executor,
        progress=lambda done, total: ctx.progress(label, done, total),
        records=records,
        span=span,
        mapping=mapping,
    )


def resolve_secret(ctx: EvaluationContext, secret: str | None) -> str:
    """The param, else the policy's only declared secret."""
    if secret is not None:
        return secret
    secrets = ctx.attacker.secrets
    if len(secrets) != 1:
        declared = ", ".join(secrets) if secrets else "none"
        raise EvaluationError(
            f"params.secret is not given and the policy declares {len(secrets)} secrets ({declared}); "
            f"name the one column this rule protects in params.secret."
        )
    return secrets[0]


def resolve_attributes(ctx: EvaluationContext, secret: str, attributes: tuple[str, ...] | None) -> tuple[str, ...]:
    """The param (which must not hold the secret), else the policy's quasi-identifiers without the secret."""
    if attributes is not None:
        if secret in attributes:
            raise EvaluationError(
                f"params.attributes includes the secret {secret!r}; the attacker links while ignoring it, so remove it."
            )
        return tuple(attributes)
    # NOTE: the default drops the secret: the scenario of sec. 4 ignores it.
    chosen = tuple(dict.fromkeys(c for c in ctx.attacker.quasi_identifiers if c != secret))
    if not chosen:
        raise EvaluationError(
            "the policy declares no quasi-identifiers besides the secret, so the attacker has nothing to link on; "
            "declare them or give params.attributes."
        )
    return chosen


def check_order_covers(release: Release, col: str, order: Sequence[str], attacked: Dataset | None = None) -> None:
    """A policy's category order must list every category of the sets the attack reads."""
    known = set(map(str, order))
    extra = [attacked] if attacked is not None and attacked is not release.original else []
    for dataset in (release.original, *extra, *release.synthetic):
        unknown = sorted({str(v) for v in dataset.frame[col].dropna()} - known)
        if unknown:
            raise EvaluationError(
                f"params.orders[{col!r}] lacks categories found in {dataset.name}: {unknown[:5]}; list every category."
            )
