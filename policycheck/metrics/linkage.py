"""Linkage family: a maximum-knowledge attacker narrowing a secret across M synthetic sets (paper 000).

The attacker holds the original data and every released set. He ignores one
secret attribute of the original, reverse-maps each synthetic set, links
every original record to each set by ranks of the other attributes, and
reads the secret values the linked synthetic records carry (secs. 3-4). The
rules bound how often that pins a real person's value to a narrow range
(``linkage_range_narrowing``), reveals it exactly
(``linkage_exact_disclosure``), or, in the releaser's favour, misleads the
attacker in every set (``linkage_consistently_misled``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, TYPE_CHECKING

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.registry import Params, intermediate, metric
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    from policycheck.methods.linkage.attack import LinkageAttack, run_attack
    from policycheck.methods.linkage.rank_linkage import mid_ranks
    from policycheck.methods.linkage.reverse_mapping import attribute_order
    from policycheck.stats import clopper_pearson

FAMILY = "linkage"
REFERENCE = (
    "Ruiz, Muralidhar, Domingo-Ferrer: On the privacy guarantees of synthetic data: a reassessment "
    "from the maximum-knowledge attacker perspective (PSD 2018), secs. 3.1, 3.2 and 4"
)
#: Most-narrowed records listed in the report.
TOP_RECORDS = 10
#: Tied ranks listed per set and record before the list is cut short.
TOP_RANKS = 10


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


class ListedRecordsParams(LinkageParams):
    """Parameters of a metric that lists the most exposed real people in the report."""

    show_values: bool = Field(
        False,
        description="Show the secret ranks and values identified for real people in the report (off by default).",
    )


class RangeNarrowingParams(ListedRecordsParams):
    fraction: float = Field(
        0.1,
        gt=0.0,
        le=1.0,
        description=(
            "A record counts as narrowed when its identified range holds the true value and is at most this "
            "fraction of the secret's range in the original."
        ),
    )


class ExactDisclosureParams(ListedRecordsParams):
    k: int = Field(
        1,
        ge=1,
        description="A record counts as disclosed when at least k of the released sets reveal its true value.",
    )


class MisledParams(LinkageParams):
    pass


def _linkage_need(params: LinkageParams, release: Release) -> list[Need]:
    return [
        Need.of(
            "linkage_attack",
            secret=params.secret,
            attributes=tuple(params.attributes) if params.attributes is not None else None,
            criterion=params.criterion,
            orders=tuple(sorted((c, tuple(v)) for c, v in params.orders.items())),
        )
    ]


@intermediate(
    name="linkage_attack",
    description=(
        "Multiple reverse mapping and multiple rank-based record linkage of every original record against every "
        "synthetic set, on the attacker's attributes, with the secret values identified (paper 000, secs. 3-4)."
    ),
    inputs={"original", "synthetic"},
)
def linkage_attack(
    ctx: EvaluationContext,
    secret: str | None,
    attributes: tuple[str, ...] | None,
    criterion: str,
    orders: tuple[tuple[str, tuple[str, ...]], ...],
) -> LinkageAttack:
    """Mount the attribute-disclosure attack of paper 000 (sec. 4) on one secret.

    The secret defaults to the policy's only secret, the attributes to its
    quasi-identifiers without the secret. Each set is pre-sampled with
    ``ctx.rng("linkage", "presample", m)`` and linked as one executor item.
    """
    from policycheck.methods.linkage.attack import run_attack
    from policycheck.methods.linkage.reverse_mapping import attribute_order
    release = ctx.release
    secret = _resolve_secret(ctx, secret)
    attributes = _resolve_attributes(ctx, secret, attributes)
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
    if release.original.frame[secret].isna().any():
        raise EvaluationError(f"secret column {secret!r} has missing values in the original, so a range cannot hold them.")
    ranked = {}
    for col in (*attributes, secret):
        ranked[col] = attribute_order(
            col, release.column_types[col], release.original.frame[col], release.orders.get(col), policy_orders.get(col)
        )
        if col in policy_orders:
            _check_order_covers(release, col, policy_orders[col])
    rngs = [ctx.rng("linkage", "presample", m) for m in range(len(release.synthetic))]
    label = f"linkage ({criterion}) on {secret}"
    return run_attack(
        release,
        secret,
        attributes,
        criterion,
        ranked,
        rngs,
        executor=ctx.executor,
        progress=lambda done, total: ctx.progress(label, done, total),
    )


def _resolve_secret(ctx: EvaluationContext, secret: str | None) -> str:
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


def _resolve_attributes(ctx: EvaluationContext, secret: str, attributes: tuple[str, ...] | None) -> tuple[str, ...]:
    if attributes is not None:
        if secret in attributes:
            raise EvaluationError(
                f"params.attributes includes the secret {secret!r}; the attacker links while ignoring it, so remove it."
            )
        return tuple(attributes)
    # NOTE: the default drops the secret: the scenario of sec. 4 ignores it.
    chosen = tuple(c for c in ctx.attacker.quasi_identifiers if c != secret)
    if not chosen:
        raise EvaluationError(
            "the policy declares no quasi-identifiers besides the secret, so the attacker has nothing to link on; "
            "declare them or give params.attributes."
        )
    return chosen


def _check_order_covers(release: Release, col: str, order: list[str]) -> None:
    known = set(map(str, order))
    for dataset in (release.original, *release.synthetic):
        unknown = sorted({str(v) for v in dataset.frame[col].dropna()} - known)
        if unknown:
            raise EvaluationError(
                f"params.orders[{col!r}] lacks categories found in {dataset.name}: {unknown[:5]}; list every category."
            )


# ---------------------------------------------------------------- reporting helpers


def _share(flags: np.ndarray, confidence: float) -> tuple[float, tuple[float, float], int]:
    import numpy as np
    from policycheck.stats import clopper_pearson
    count = int(np.count_nonzero(flags))
    return count / flags.size, clopper_pearson(count, flags.size, confidence), count


def _set_names(ctx: EvaluationContext) -> list[str]:
    return [d.name for d in ctx.release.synthetic]


def _attack_details(ctx: EvaluationContext, attack: LinkageAttack) -> dict[str, Any]:
    """Evidence shared by the three metrics: who links on what, and what pre-sampling did."""
    orders = {col: {"kind": order.kind, "ranked_by": order.source} for col, order in attack.orders.items()}
    return {
        "secret": attack.secret,
        "attributes": list(attack.attributes),
        "criterion": attack.criterion,
        "sets": len(attack.sets),
        "single_set": len(attack.sets) == 1,
        "records": int(attack.disclosure.true.size),
        "ranking": orders,
        "presampling": [
            {"set": name, **record.to_dict(), "seed": ctx.seed, "rng_key": ["linkage", "presample", m]}
            for m, (name, record) in enumerate(zip(_set_names(ctx), attack.presampling))
        ],
        "tie_breaking": (
            "Reverse mapping ranks equal synthetic values in row order; linkage compares mid-ranks in the "
            "original, so equal values are at distance 0, and keeps every tied closest record."
        ),
    }


def _notes(attack: LinkageAttack) -> tuple[str, ...]:
    notes = []
    if len(attack.sets) == 1:
        notes.append(
            "Only one synthetic set was released, so the attacker links once; releasing more sets from the same "
            "data can narrow ranges further."
        )
    resized = [r for r in attack.presampling if r.action != "unchanged"]
    if resized:
        notes.append(
            f"{len(resized)} synthetic set(s) differ in size from the original and were randomly "
            f"{'/'.join(sorted({r.action for r in resized}))} to its size before reverse mapping."
        )
    nominal: dict[str, list[str]] = {}
    for col in attack.attributes:
        if attack.orders[col].kind == "nominal":
            nominal.setdefault(attack.orders[col].source, []).append(col)
    for source, cols in nominal.items():
        notes.append(
            f"Categorical attribute(s) {', '.join(cols)} have no natural order and are ranked by {source}: equal "
            "categories always match exactly, while the distance between different ones depends on that order."
        )
    return tuple(notes)


def _risk_by_sets(attack: LinkageAttack, flags_for, start: int = 1) -> dict[str, Any]:
    """The value with the first ``m`` sets, ``m = start..M``: how risk changes as more sets are released (sec. 3.2)."""
    import numpy as np
    m_total = len(attack.sets)
    by_m = [{"sets": m, "value": float(np.mean(flags_for(m)))} for m in range(start, m_total + 1)]
    return {"by_number_of_sets": by_m}


def _risk_chart(title: str, y_label: str, by_m: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "kind": "line",
        "title": title,
        "x_label": "number of released synthetic sets used by the attacker (first m)",
        "y_label": y_label,
        "series": [{"name": "linkage attack", "x": [r["sets"] for r in by_m], "y": [r["value"] for r in by_m]}],
    }


def _single_set(attack: LinkageAttack, ctx: EvaluationContext, flags_of_set) -> list[dict[str, Any]]:
    import numpy as np
    return [
        {"set": name, "value": float(np.mean(flags_of_set(m)))} for m, name in enumerate(_set_names(ctx))
    ]


def _record_view(attack: LinkageAttack, i: int, show_values: bool, ctx: EvaluationContext) -> dict[str, Any]:
    """One real person's outcome: row number (1 = first data row) always; secret ranks and values only if the policy allows.

    Ranks are mid-ranks in the original, so equal values show equal ranks.
    """
    import numpy as np
    from policycheck.methods.linkage.rank_linkage import mid_ranks
    d = attack.disclosure
    width = float(d.width()[i])
    exact = d.exact_by_set()[i]
    view: dict[str, Any] = {
        "row": i + 1,
        "width": width,
        "holds_true_value": bool(d.holds_true()[i]),
        "exact_in_sets": [name for name, hit in zip(_set_names(ctx), exact) if hit],
        "linked_records": [int(s.linkage.n_candidates_of(i)) for s in attack.sets],
    }
    if show_values:
        order = attack.orders[attack.secret]
        ranks, values = [], []
        for s in attack.sets:
            # Distinct values identified in this set, with their mid-ranks in the original.
            found = np.unique(attack.sorted_secret[s.secret_ranks[s.linkage.candidates(i)] - 1])
            shown = found[:TOP_RANKS]
            more = [f"... {found.size - TOP_RANKS} more"] if found.size > TOP_RANKS else []
            ranks.append([_number(r) for r in mid_ranks(attack.sorted_secret, shown)] + more)
            values.append([_decode(order, v) for v in shown] + more)
        low, high = d.identified_range()
        view.update(
            true_rank=_number(mid_ranks(attack.sorted_secret, d.true[i : i + 1])[0]),
            true_value=_decode(order, d.true[i]),
            ranks_identified=ranks,
            values_identified=values,
            identified_range=[_decode(order, low[i]), _decode(order, high[i])],
        )
    return view


def _number(value: float) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() else value


def _decode(order, code: float) -> Any:
    """A secret code as the report shows it: the number, or the category label."""
    return _number(code) if order.labels is None else order.labels[int(code)]


def _top_records(attack: LinkageAttack, flags: np.ndarray, show_values: bool, ctx: EvaluationContext) -> list[dict]:
    """The flagged records with the narrowest identified ranges, by row number among equals."""
    import numpy as np
    rows = np.flatnonzero(flags)
    widths = attack.disclosure.width()[rows]
    chosen = rows[np.lexsort((rows, widths))][:TOP_RECORDS]
    return [_record_view(attack, int(i), show_values, ctx) for i in chosen]


def _attack_of(needs: Mapping[Need, Any]) -> LinkageAttack:
    (attack,) = needs.values()
    return attack


# ---------------------------------------------------------------- metrics

# The family's metrics differ only in name, params, meaning and remedy.
linkage_metric = partial(
    metric,
    family=FAMILY,
    knowledge={Knowledge.ORIGINAL, Knowledge.SYNTHETIC},
    inputs={"original", "synthetic"},
    value_range=(0.0, 1.0),
    column_params=("secret", "attributes"),
    needs=_linkage_need,
    references=(REFERENCE,),
)


@linkage_metric(
    name="linkage_range_narrowing",
    params=RangeNarrowingParams,
    meaning=(
        "Share of real people whose secret value an attacker holding the original data and all released sets "
        "can pin to a correct range no wider than the given fraction of that attribute's range."
    ),
    remedy=(
        "Release fewer synthetic sets, or regenerate them with a synthesizer that keeps fewer record-level "
        "links between the linkage attributes and the secret (e.g. stronger differential privacy)."
    ),
)
def linkage_range_narrowing(ctx: EvaluationContext, params: RangeNarrowingParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Share of original records whose secret is narrowed to a correct, narrow range across all released sets."""
    import numpy as np
    attack = _attack_of(needs)
    d = attack.disclosure
    flags = d.narrowed(params.fraction)
    value, interval, count = _share(flags, params.confidence)
    by_sets = _risk_by_sets(attack, lambda m: d.narrowed(params.fraction, m))
    single = _single_set(attack, ctx, lambda m: d.only_set(m).narrowed(params.fraction))
    widths = d.width()
    holds = d.holds_true()
    edges = np.unique(np.round(np.concatenate([np.linspace(0.0, 1.0, 21), [params.fraction]]), 10))
    details = {
        **_attack_details(ctx, attack),
        "fraction": params.fraction,
        "narrowed": count,
        "holds_true_value": int(np.count_nonzero(holds)),
        "median_width": float(np.median(widths)),
        "per_set": single,
        **by_sets,
        "most_narrowed": _top_records(attack, flags, params.show_values, ctx),
    }
    charts = (
        {
            "kind": "histogram",
            "title": f"Width of the range identified for {attack.secret}, as a fraction of its range",
            "x_label": f"identified range width / range of {attack.secret} in the original",
            "series": [
                {"name": "range holds the true value", "edges": edges.tolist(),
                 "counts": np.histogram(widths[holds], edges)[0].tolist()},
                {"name": "range misses the true value", "edges": edges.tolist(),
                 "counts": np.histogram(widths[~holds], edges)[0].tolist()},
            ],
            "reference_lines": [{"axis": "x", "value": params.fraction, "label": "narrow (policy fraction)"}],
        },
        _risk_chart(f"Range narrowing of {attack.secret} against the number of sets", "share of records narrowed",
                    by_sets["by_number_of_sets"]),
    )
    return MetricResult(value, interval, params.confidence, details, charts, _notes(attack))


@linkage_metric(
    name="linkage_exact_disclosure",
    params=ExactDisclosureParams,
    meaning=(
        "Share of real people whose exact secret value is revealed, without ambiguity, by at least k of the "
        "released synthetic sets to an attacker holding the original data and all sets."
    ),
    remedy=(
        "Regenerate the sets with a synthesizer that copies fewer original records (e.g. with differential "
        "privacy), or release fewer sets."
    ),
)
def linkage_exact_disclosure(ctx: EvaluationContext, params: ExactDisclosureParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Share of original records whose true secret is identified exactly in at least k of the M sets."""
    import numpy as np
    attack = _attack_of(needs)
    d = attack.disclosure
    if params.k > d.n_sets:
        raise EvaluationError(
            f"params.k = {params.k} exceeds the number of released synthetic sets ({d.n_sets}); lower k."
        )
    flags = d.exactly_disclosed(params.k)
    value, interval, count = _share(flags, params.confidence)
    by_sets = _risk_by_sets(attack, lambda m: d.exactly_disclosed(params.k, m), start=params.k)
    exact = d.exact_by_set()
    details = {
        **_attack_details(ctx, attack),
        "k": params.k,
        "disclosed": count,
        "per_set": _single_set(attack, ctx, lambda m: exact[:, m]),
        "sets_disclosing": np.bincount(exact.sum(axis=1), minlength=d.n_sets + 1).tolist(),
        **by_sets,
        "most_narrowed": _top_records(attack, flags, params.show_values, ctx),
    }
    charts = (
        _risk_chart(f"Exact disclosure of {attack.secret} against the number of sets",
                    f"share of records revealed by >= {params.k} set(s)", by_sets["by_number_of_sets"]),
    )
    return MetricResult(value, interval, params.confidence, details, charts, _notes(attack))


@linkage_metric(
    name="linkage_consistently_misled",
    params=MisledParams,
    meaning=(
        "Share of real people for whom every released set points the attacker to the same wrong side of their "
        "true secret value; higher is safer (use fail_below)."
    ),
    remedy=(
        "A low share means the sets agree with the truth too often: regenerate them with a synthesizer that "
        "keeps fewer record-level links, or release fewer sets."
    ),
)
def linkage_consistently_misled(ctx: EvaluationContext, params: MisledParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Share of original records for which all M sets place the secret on the same wrong side of the truth."""
    attack = _attack_of(needs)
    d = attack.disclosure
    flags = d.consistently_misled()
    value, interval, count = _share(flags, params.confidence)
    by_sets = _risk_by_sets(attack, lambda m: d.consistently_misled(m))
    details = {
        **_attack_details(ctx, attack),
        "misled": count,
        "per_set": _single_set(attack, ctx, lambda m: d.only_set(m).consistently_misled()),
        **by_sets,
    }
    charts = (
        _risk_chart(f"Records consistently misled about {attack.secret} against the number of sets",
                    "share of records misled by every set", by_sets["by_number_of_sets"]),
    )
    return MetricResult(value, interval, params.confidence, details, charts, _notes(attack))


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    'LinkageAttack': ('policycheck.methods.linkage.attack', 'LinkageAttack'),
    'attribute_order': ('policycheck.methods.linkage.reverse_mapping', 'attribute_order'),
    'clopper_pearson': ('policycheck.stats', 'clopper_pearson'),
    'mid_ranks': ('policycheck.methods.linkage.rank_linkage', 'mid_ranks'),
    'run_attack': ('policycheck.methods.linkage.attack', 'run_attack'),
}


def __getattr__(name: str) -> Any:
    if name in _IMPORTED_WHERE_USED:
        import importlib

        module, attribute = _IMPORTED_WHERE_USED[name]
        found = importlib.import_module(module)
        return found if attribute is None else getattr(found, attribute)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
