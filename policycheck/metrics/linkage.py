"""Linkage family: a maximum-knowledge attacker narrowing a secret across M synthetic sets (paper 000).

The attacker holds the original data and every released set. He ignores one
secret attribute of the original, reverse-maps each synthetic set, links
every original record to each set by ranks of the other attributes, and
reads the secret values the linked synthetic records carry (secs. 3-4). By
default he also runs the same linkage on the values as released, which a
release of original records in changed proportions (a bootstrap) does not
shift, and each rule reports the worse of the two
(:mod:`..methods.linkage.attack`). The
rules bound how often that pins a real person's value to a narrow range
(``linkage_range_narrowing``), reveals it exactly
(``linkage_exact_disclosure``), or, in the releaser's favour, misleads the
attacker in every set (``linkage_consistently_misled``).

Baselines. Part of any such rate is chance: a secret that is 45 % zeros is
"disclosed" for about a fifth of the people by a release that keeps no link at
all (sum of p^2). Each rule therefore reports two baselines of what the
attacker gets without the release's individual information: chance (the
secret independent of the linkage attributes, :mod:`..methods.linkage.chance`)
and, with a holdout, the same attack run on the holdout records, which the
synthesizer never saw. The baseline is the better of the two for the
attacker (the larger disclosure rate, the smaller misled rate), and the value
a threshold compares is the excess ``raw - baseline`` unless the rule's
params say ``baseline: none`` (the raw rate), ``chance`` or ``holdout``.

Missing values. Records whose secret is missing have nothing to disclose and
are left out of every denominator (the report says how many); a linked
synthetic record with a missing secret identifies nothing; a missing
linkage attribute ranks above every value, tied with the other missing ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.methods import cost_model
from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.registry import Convention, Method, Params, imported_where_used, intermediate, metric
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.linkage import chance
    from policycheck.methods.linkage.attack import LinkageAttack
    from policycheck.methods.linkage.range_narrowing import AttributeDisclosure

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
    mappings: list[Literal["reverse", "released"]] = Field(
        default_factory=lambda: ["reverse", "released"],
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


def check_secret_orderable(params: LinkageParams, release: Release, attacker) -> list[tuple[tuple[str, ...], str]]:
    """Before running: the secret resolves to one column, and a categorical secret has an order (as the attack demands)."""
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


def _attack_need(params: LinkageParams, records: str, mapping: str) -> Need:
    return Need.of(
        "linkage_attack",
        secret=params.secret,
        attributes=tuple(dict.fromkeys(params.attributes)) if params.attributes is not None else None,
        criterion=params.criterion,
        orders=tuple(sorted((c, tuple(v)) for c, v in params.orders.items())),
        records=records,
        mapping=mapping,
    )


def _linkage_need(params: LinkageParams, release: Release) -> list[Need]:
    """Per mapping: the attack on the original records, and on the holdout ones when the baseline may use them."""
    needs = []
    for mapping in dict.fromkeys(params.mappings):
        needs.append(_attack_need(params, "original", mapping))
        if params.baseline in ("auto", "holdout") and release.holdout is not None:
            needs.append(_attack_need(params, "holdout", mapping))
    return needs


# The methods section (registry.Method). No peer implements paper 000; where we differ is the baseline.
LINKAGE_BASELINE = Convention(
    topic="baseline",
    peer="paper 000, sec. 4 (Tables 3-4)",
    theirs="the raw share of original records the attack discloses",
    ours="minus what chance or the same attack on holdout records gives (baseline: auto; none gives the raw share)",
    effect="linkage_range_narrowing/baseline",
)
LINKAGE_MAPPING = Convention(
    topic="mapping",
    peer="paper 000, sec. 3.1",
    theirs="the attacker reverse-maps every set before linking",
    ours="the worse of reverse mapping and linking on the values as released (mappings: [reverse] for the paper's)",
    effect="linkage_range_narrowing/mapping",
)
LINKAGE_SOURCE = "paper 000, sec. 3.1 (reverse mapping), sec. 3.2 (rank-based linkage), sec. 4"
RANGE_NARROWING_METHOD = Method(
    definition="Share of original records whose secret the maximum-knowledge attacker (reverse mapping or the values "
    "as released, rank-based linkage of every set) pins to a range that holds the true value and is at most "
    "`fraction` of the secret's range, minus the baseline; the worse mapping.",
    source=LINKAGE_SOURCE,
    conventions=(LINKAGE_BASELINE, LINKAGE_MAPPING),
)
EXACT_DISCLOSURE_METHOD = Method(
    definition="Share of original records whose exact secret at least `k` of the M linked sets reveal without "
    "ambiguity, minus the baseline; the worse mapping.",
    source=LINKAGE_SOURCE,
    conventions=(LINKAGE_BASELINE, LINKAGE_MAPPING),
)
MISLED_METHOD = Method(
    definition="Share of original records every linked set misleads to the same side of the true secret, minus "
    "the baseline; higher is safer; the worse mapping.",
    source=LINKAGE_SOURCE,
    conventions=(LINKAGE_BASELINE, LINKAGE_MAPPING),
)


@intermediate(
    name="linkage_attack",
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
            _check_order_covers(release, col, policy_orders[col], attacked)
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
    chosen = tuple(dict.fromkeys(c for c in ctx.attacker.quasi_identifiers if c != secret))
    if not chosen:
        raise EvaluationError(
            "the policy declares no quasi-identifiers besides the secret, so the attacker has nothing to link on; "
            "declare them or give params.attributes."
        )
    return chosen


def _check_order_covers(release: Release, col: str, order: list[str], attacked=None) -> None:
    known = set(map(str, order))
    extra = [attacked] if attacked is not None and attacked is not release.original else []
    for dataset in (release.original, *extra, *release.synthetic):
        unknown = sorted({str(v) for v in dataset.frame[col].dropna()} - known)
        if unknown:
            raise EvaluationError(
                f"params.orders[{col!r}] lacks categories found in {dataset.name}: {unknown[:5]}; list every category."
            )


# ---------------------------------------------------------------- reporting helpers


def _rate(flags: np.ndarray, known: np.ndarray) -> float:
    """Share of the records with a known secret that are flagged."""
    import numpy as np

    return float(np.count_nonzero(flags & known) / max(np.count_nonzero(known), 1))


@dataclass(frozen=True)
class Compared:
    """A rule's rate set against its baseline: what the threshold compares, and the evidence."""

    value: float
    interval: tuple[float, float]
    raw: float | None
    baseline: float
    label: str
    details: dict[str, Any]
    sample_size: int


CHANCE_WORDS = "chance: the secret independent of the linkage attributes, drawn from its marginal in the original"


def _against_baseline(
    params: LinkageParams,
    attack: LinkageAttack,
    control: LinkageAttack | None,
    flags_of: Callable[[AttributeDisclosure], np.ndarray],
    chance_rate: float,
    higher_is_riskier: bool = True,
) -> Compared:
    """Compare the attack's rate with chance and with the same attack on holdout records.

    The baseline is the better of the two for the attacker (the larger rate
    when a higher rate is riskier, the smaller when it is safer) and the value
    is ``raw - baseline``. Its interval: with one baseline, Clopper-Pearson of
    the raw rate minus chance (chance is computed from the whole original, and
    treated as known), or Newcombe's interval of the difference with the
    holdout rate; with both, each at the Bonferroni level for 2 and the
    interval of the smaller (larger) difference. ``baseline: none`` compares
    the raw rate, with its Clopper-Pearson interval. Every interval counts
    effective records: records linked to the same synthetic records share one
    identified range, so they are one cluster
    (:attr:`LinkageAttack.linked_set_clusters`, Kish's design effect).
    """
    import numpy as np

    from policycheck.core import stats

    known = attack.disclosure.known
    n = int(np.count_nonzero(known))
    flags = flags_of(attack.disclosure) & known
    count = int(np.count_nonzero(flags))
    raw = count / n
    effective = stats.effective_trials(flags[known], np.ones(n), attack.linked_set_clusters[known])
    holdout = None
    if control is not None and control.disclosure.known.any():
        c_known = control.disclosure.known
        c_flags = flags_of(control.disclosure) & c_known
        c_n = int(np.count_nonzero(c_known))
        c_effective = stats.effective_trials(c_flags[c_known], np.ones(c_n), control.linked_set_clusters[c_known])
        holdout = (int(np.count_nonzero(c_flags)), c_n, c_effective)
    if params.baseline == "holdout" and holdout is None:
        raise EvaluationError(
            "params.baseline is 'holdout', but the release has no holdout records with a value of the secret; "
            "add a holdout set or use baseline 'chance'."
        )
    holdout_words = (
        None
        if holdout is None
        else (f"the same attack on the {holdout[1]} holdout records, which the synthesizer never saw")
    )
    options: dict[str, tuple[float, str]] = {"chance": (chance_rate, CHANCE_WORDS)}
    if holdout is not None:
        options["holdout"] = (holdout[0] / holdout[1], holdout_words)
    used = [params.baseline] if params.baseline in ("chance", "holdout") else list(options)
    better = max if higher_is_riskier else min
    best = better(used, key=lambda name: options[name][0])
    baseline, label = options[best]
    details: dict[str, Any] = {
        "mode": params.baseline,
        "chance": chance_rate,
        "holdout": None if holdout is None else holdout[0] / holdout[1],
        "holdout_records": None if holdout is None else holdout[1],
        "used": best,
        "raw": raw,
        "records": n,
        "effective_records": effective,
        "holdout_effective_records": None if holdout is None else holdout[2],
        "rule": (
            "value = raw rate - baseline; the baseline is the "
            + ("larger" if higher_is_riskier else "smaller")
            + " of "
            + " and ".join(used)
            + ", the better for the attacker"
        ),
    }
    if params.baseline == "none":
        details["rule"] = "value = raw rate (baseline: none); the baseline is reported, not subtracted"
        interval = stats.clopper_pearson_share(raw, effective, params.confidence)
        return Compared(raw, interval, None, baseline, label, details, n)
    level = stats.bonferroni(params.confidence, len(used))
    intervals = []
    for name in used:
        if name == "chance":
            lo, hi = stats.clopper_pearson_share(raw, effective, level)
            intervals.append((lo - chance_rate, hi - chance_rate))
        else:
            # Newcombe's interval over effective sizes: the Wilson score formula takes fractional counts.
            share = holdout[0] / holdout[1]
            intervals.append(
                stats.newcombe_difference(raw * effective, effective, share * holdout[2], holdout[2], level)
            )
    details["level"] = level
    worst = "min" if higher_is_riskier else "max"
    return Compared(raw - baseline, stats.worst_interval(intervals, worst), raw, baseline, label, details, n)


def _marginal_and_counts(attack: LinkageAttack) -> tuple[chance.SecretMarginal, np.ndarray, np.ndarray]:
    """The marginal chance draws from, and the known records' true codes and candidates per set.

    Reverse-mapped secrets are the original's values, so chance draws from the
    original's marginal; secrets read as released draw from the released
    secrets' own marginal, pooled over the sets (a release that puts every
    record at the most common value reveals it to that value's share of people
    by chance, not to the original's sum of squares).
    """
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    known = d.known
    if attack.mapping == "released":
        marginal = chance.SecretMarginal.of(np.concatenate([s.secret for s in attack.sets]), also=d.true)
    else:
        marginal = chance.SecretMarginal.of(d.true)
    return marginal, d.true[known], attack.candidates_by_set()[known]


def _result(
    compared: Compared, details: dict[str, Any], charts: tuple, attack: LinkageAttack, params: LinkageParams
) -> MetricResult:
    return MetricResult(
        value=compared.value,
        interval=compared.interval,
        confidence=params.confidence,
        details={**details, "baseline": compared.details},
        charts=charts,
        notes=_notes(attack),
        baseline=compared.baseline,
        raw=compared.raw,
        baseline_label=compared.label,
        sample_size=compared.sample_size,
    )


def _set_names(ctx: EvaluationContext) -> list[str]:
    return [d.name for d in ctx.release.synthetic]


def _attack_details(ctx: EvaluationContext, attack: LinkageAttack) -> dict[str, Any]:
    """Evidence shared by the three metrics: who links on what, and what pre-sampling did."""
    import numpy as np

    orders = {col: {"kind": order.kind, "ranked_by": order.source} for col, order in attack.orders.items()}
    return {
        "secret": attack.secret,
        "attributes": list(attack.attributes),
        "criterion": attack.criterion,
        "mapping": attack.mapping,
        "sets": len(attack.sets),
        "single_set": len(attack.sets) == 1,
        "records": int(np.count_nonzero(attack.disclosure.known)),
        "records_without_secret": int(np.count_nonzero(~attack.disclosure.known)),
        "missing_values": (
            "records whose secret is missing are left out of every rate; a linked synthetic record with a missing "
            "secret identifies nothing; a missing linkage attribute ranks above every value"
        ),
        "ranking": orders,
        "presampling": [
            {"set": name, **record.to_dict(), "seed": ctx.seed, "rng_key": ["linkage", "presample", m]}
            for m, (name, record) in enumerate(zip(_set_names(ctx), attack.presampling, strict=False))
        ],
        "tie_breaking": (
            "Reverse mapping ranks equal synthetic values in row order; linkage compares mid-ranks in the "
            "original (a value as released is placed at its mid-rank there), so equal values are at distance 0, "
            "and keeps every tied closest record."
        ),
    }


def _notes(attack: LinkageAttack) -> tuple[str, ...]:
    import numpy as np

    notes = []
    missing = int(np.count_nonzero(~attack.disclosure.known))
    if missing:
        notes.append(f"{missing} original records have no value of {attack.secret!r}; they are left out of every rate.")
    if len(attack.sets) == 1:
        notes.append(
            "Only one synthetic set was released, so the attacker links once; releasing more sets from the same "
            "data can narrow ranges further."
        )
    resized = [r for r in attack.presampling if r.action != "unchanged"]
    if resized:
        notes.append(
            f"{len(resized)} synthetic set(s) differ in size from the original and were randomly "
            f"{'/'.join(sorted({r.action for r in resized}))} to its size before linkage."
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
    m_total = len(attack.sets)
    known = attack.disclosure.known
    by_m = [{"sets": m, "value": _rate(flags_for(m), known)} for m in range(start, m_total + 1)]
    return {"by_number_of_sets": by_m}


def _risk_chart(title: str, y_label: str, by_m: list[dict[str, Any]], compared: Compared) -> dict[str, Any]:
    return {
        "kind": "line",
        "title": title,
        "x_label": "number of released synthetic sets used by the attacker (first m)",
        "y_label": y_label,
        "series": [{"name": "linkage attack", "x": [r["sets"] for r in by_m], "y": [r["value"] for r in by_m]}],
        "reference_lines": [
            {"axis": "y", "value": compared.baseline, "label": f"baseline ({compared.details['used']})"}
        ],
    }


def _single_set(attack: LinkageAttack, ctx: EvaluationContext, flags_of_set) -> list[dict[str, Any]]:
    return [
        {"set": name, "value": _rate(flags_of_set(m), attack.disclosure.known)}
        for m, name in enumerate(_set_names(ctx))
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
        "exact_in_sets": [name for name, hit in zip(_set_names(ctx), exact, strict=False) if hit],
        "linked_records": [int(s.linkage.n_candidates_of(i)) for s in attack.sets],
    }
    if show_values:
        order = attack.orders[attack.secret]
        ranks, values = [], []
        for s in attack.sets:
            # Distinct values identified in this set, with their mid-ranks in the original.
            found = np.unique(s.secret[s.linkage.candidates(i)])
            found = found[~np.isnan(found)]
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


def _attacks_by_mapping(needs: Mapping[Need, Any]) -> dict[str, tuple[LinkageAttack, LinkageAttack | None]]:
    """Per mapping, in the order asked: the attack on the original records, and its holdout control if it ran."""
    runs: dict[str, dict[str, LinkageAttack]] = {}
    for need, attack in needs.items():
        runs.setdefault(need.kwargs.get("mapping", "reverse"), {})[need.kwargs.get("records", "original")] = attack
    return {mapping: (by["original"], by.get("holdout")) for mapping, by in runs.items()}


def _worse_mapping(
    ctx: EvaluationContext,
    params: LinkageParams,
    needs: Mapping[Need, Any],
    one: Callable[[EvaluationContext, LinkageParams, LinkageAttack, LinkageAttack | None], MetricResult],
    higher_is_riskier: bool = True,
) -> MetricResult:
    """The rule's result under the mapping worse for the releaser, its interval accounting for the choice.

    Each mapping is evaluated with its intervals at the Bonferroni level for
    the number of mappings, so the interval of the worse value
    (:func:`policycheck.core.stats.worst_interval`) holds at the rule's confidence
    whichever mapping turns out worse. The evidence shown is the worse
    mapping's; every mapping's value is in ``details["mappings"]``.
    """
    import dataclasses

    from policycheck.core import stats

    runs = _attacks_by_mapping(needs)
    level = stats.bonferroni(params.confidence, len(runs))
    each = params.model_copy(update={"confidence": level})
    results = {mapping: one(ctx, each, attack, control) for mapping, (attack, control) in runs.items()}
    pick = max if higher_is_riskier else min
    worse = pick(results, key=lambda mapping: results[mapping].value)  # the first listed among equals
    chosen = results[worse]
    details = {
        **chosen.details,
        "mappings": {
            mapping: {"value": r.value, "interval": list(r.interval), "raw": r.raw, "baseline": r.baseline}
            for mapping, r in results.items()
        },
        "mapping_rule": (
            f"the {'larger' if higher_is_riskier else 'smaller'} value of the {len(results)} mapping(s), each "
            f"interval at the Bonferroni level {level:.4g}"
        ),
    }
    interval = stats.worst_interval([r.interval for r in results.values()], "max" if higher_is_riskier else "min")
    return dataclasses.replace(chosen, interval=interval, confidence=params.confidence, details=details)


# ---------------------------------------------------------------- metrics

# The family's metrics differ only in name, params, meaning and remedy.
linkage_metric = partial(
    metric,
    family=FAMILY,
    knowledge={Knowledge.ORIGINAL, Knowledge.SYNTHETIC},
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    # The value is an excess over a baseline by default, so it may be negative.
    value_range=(-1.0, 1.0),
    column_params=("secret", "attributes"),
    needs=_linkage_need,
    check=check_secret_orderable,
    references=(REFERENCE,),
)


@linkage_metric(
    name="linkage_range_narrowing",
    method=RANGE_NARROWING_METHOD,
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
def linkage_range_narrowing(
    ctx: EvaluationContext, params: RangeNarrowingParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Share of original records whose secret is narrowed to a correct, narrow range across all released sets.

    The value is that share minus its baseline (chance, or the same attack on
    holdout records; see :func:`_against_baseline`) unless ``baseline: none``;
    the worse of the mappings (:func:`_worse_mapping`).
    """
    return _worse_mapping(ctx, params, needs, _range_narrowing)


def _range_narrowing(
    ctx: EvaluationContext, params: RangeNarrowingParams, attack: LinkageAttack, control: LinkageAttack | None
) -> MetricResult:
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    flags = d.narrowed(params.fraction)
    marginal, true, candidates = _marginal_and_counts(attack)
    chance_rate = float(np.mean(chance.narrowed(marginal, true, candidates.sum(axis=1), params.fraction, d.span)))
    compared = _against_baseline(params, attack, control, lambda x: x.narrowed(params.fraction), chance_rate)
    by_sets = _risk_by_sets(attack, lambda m: d.narrowed(params.fraction, m))
    single = _single_set(attack, ctx, lambda m: d.only_set(m).narrowed(params.fraction))
    known = d.known
    widths = d.width()
    holds = d.holds_true() & known
    shown = known & ~np.isnan(widths)
    edges = np.unique(np.round(np.concatenate([np.linspace(0.0, 1.0, 21), [params.fraction]]), 10))
    details = {
        **_attack_details(ctx, attack),
        "fraction": params.fraction,
        "narrowed": int(np.count_nonzero(flags & known)),
        "holds_true_value": int(np.count_nonzero(holds)),
        "median_width": float(np.median(widths[shown])) if shown.any() else None,
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
                {
                    "name": "range holds the true value",
                    "edges": edges.tolist(),
                    "counts": np.histogram(widths[holds & shown], edges)[0].tolist(),
                },
                {
                    "name": "range misses the true value",
                    "edges": edges.tolist(),
                    "counts": np.histogram(widths[~holds & shown], edges)[0].tolist(),
                },
            ],
            "reference_lines": [{"axis": "x", "value": params.fraction, "label": "narrow (policy fraction)"}],
        },
        _risk_chart(
            f"Range narrowing of {attack.secret} against the number of sets",
            "share of records narrowed",
            by_sets["by_number_of_sets"],
            compared,
        ),
    )
    return _result(compared, details, charts, attack, params)


@linkage_metric(
    name="linkage_exact_disclosure",
    method=EXACT_DISCLOSURE_METHOD,
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
def linkage_exact_disclosure(
    ctx: EvaluationContext, params: ExactDisclosureParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Share of original records whose true secret is identified exactly in at least k of the M sets.

    The value is that share minus its baseline (chance: sum of p^2 with one
    set and one linked record; or the same attack on holdout records) unless
    ``baseline: none``; the worse of the mappings (:func:`_worse_mapping`).
    """
    return _worse_mapping(ctx, params, needs, _exact_disclosure)


def _exact_disclosure(
    ctx: EvaluationContext, params: ExactDisclosureParams, attack: LinkageAttack, control: LinkageAttack | None
) -> MetricResult:
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    if params.k > d.n_sets:
        raise EvaluationError(
            f"params.k = {params.k} exceeds the number of released synthetic sets ({d.n_sets}); lower k."
        )
    flags = d.exactly_disclosed(params.k)
    marginal, true, candidates = _marginal_and_counts(attack)
    chance_rate = float(np.mean(chance.at_least(chance.exact_by_set(marginal, true, candidates), params.k)))
    compared = _against_baseline(params, attack, control, lambda x: x.exactly_disclosed(params.k), chance_rate)
    by_sets = _risk_by_sets(attack, lambda m: d.exactly_disclosed(params.k, m), start=params.k)
    exact = d.exact_by_set()
    details = {
        **_attack_details(ctx, attack),
        "k": params.k,
        "disclosed": int(np.count_nonzero(flags & d.known)),
        "sum_of_squared_shares": marginal.sum_of_squares,
        "per_set": _single_set(attack, ctx, lambda m: exact[:, m]),
        "sets_disclosing": np.bincount(exact[d.known].sum(axis=1), minlength=d.n_sets + 1).tolist(),
        **by_sets,
        "most_narrowed": _top_records(attack, flags, params.show_values, ctx),
    }
    charts = (
        _risk_chart(
            f"Exact disclosure of {attack.secret} against the number of sets",
            f"share of records revealed by >= {params.k} set(s)",
            by_sets["by_number_of_sets"],
            compared,
        ),
    )
    return _result(compared, details, charts, attack, params)


@linkage_metric(
    name="linkage_consistently_misled",
    method=MISLED_METHOD,
    params=MisledParams,
    fail_direction="below",
    meaning=(
        "Share of real people for whom every released set points the attacker to the same wrong side of their "
        "true secret value; higher is safer (use fail_below)."
    ),
    remedy=(
        "A low share means the sets agree with the truth too often: regenerate them with a synthesizer that "
        "keeps fewer record-level links, or release fewer sets."
    ),
)
def linkage_consistently_misled(
    ctx: EvaluationContext, params: MisledParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Share of original records for which all M sets place the secret on the same wrong side of the truth.

    Higher is safer. The value is that share minus its baseline (the smaller
    of chance and the same attack on holdout records: how rarely an attacker
    without the release's individual information is misled) unless
    ``baseline: none``; a value below 0 means the release misleads less
    than chance. The smaller of the mappings (:func:`_worse_mapping`).
    """
    return _worse_mapping(ctx, params, needs, _consistently_misled, higher_is_riskier=False)


def _consistently_misled(
    ctx: EvaluationContext, params: MisledParams, attack: LinkageAttack, control: LinkageAttack | None
) -> MetricResult:
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    flags = d.consistently_misled()
    marginal, true, candidates = _marginal_and_counts(attack)
    chance_rate = float(np.mean(chance.misled(marginal, true, candidates.sum(axis=1))))
    compared = _against_baseline(
        params, attack, control, lambda x: x.consistently_misled(), chance_rate, higher_is_riskier=False
    )
    by_sets = _risk_by_sets(attack, lambda m: d.consistently_misled(m))
    details = {
        **_attack_details(ctx, attack),
        "misled": int(np.count_nonzero(flags)),
        "per_set": _single_set(attack, ctx, lambda m: d.only_set(m).consistently_misled()),
        **by_sets,
    }
    charts = (
        _risk_chart(
            f"Records consistently misled about {attack.secret} against the number of sets",
            "share of records misled by every set",
            by_sets["by_number_of_sets"],
            compared,
        ),
    )
    return _result(compared, details, charts, attack, params)


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    "AttributeDisclosure": ("policycheck.methods.linkage.range_narrowing", "AttributeDisclosure"),
    "LinkageAttack": ("policycheck.methods.linkage.attack", "LinkageAttack"),
    "attribute_order": ("policycheck.methods.linkage.reverse_mapping", "attribute_order"),
    "chance": ("policycheck.methods.linkage.chance", None),
    "mid_ranks": ("policycheck.methods.linkage.rank_linkage", "mid_ranks"),
    "run_attack": ("policycheck.methods.linkage.attack", "run_attack"),
    "stats": ("policycheck.core.stats", None),
}


__getattr__ = imported_where_used(__name__, _IMPORTED_WHERE_USED)
