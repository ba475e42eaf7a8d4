"""``linkage_exact_disclosure``: the share of real people whose exact secret at least k released sets reveal.

Paper 000, sec. 4: a set discloses a record's secret exactly when every
synthetic record linked to it carries the true value (Table 3: record 18 in
set 1, record 2 in set 3); the attacker then learns it without ambiguity.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.core.plural import count_of
from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.linkage.baseline import against_baseline, marginal_and_counts
from policycheck.metrics.linkage.charts import risk_chart
from policycheck.metrics.linkage.common import LINKAGE_BASELINE, LINKAGE_MAPPING, LINKAGE_SOURCE, linkage_metric
from policycheck.metrics.linkage.evidence import LinkageDetails, RecordView, risk_by_sets, single_set, top_records
from policycheck.metrics.linkage.mappings import MappingOutcome, worse_mapping
from policycheck.metrics.linkage.params import ListedRecordsParams
from policycheck.metrics.registry import Method

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.linkage.attack import LinkageAttack

METHOD = Method(
    definition="Share of original records whose exact secret at least `k` of the M linked sets reveal without "
    "ambiguity, minus the baseline; the worse mapping.",
    source=LINKAGE_SOURCE,
    conventions=(LINKAGE_BASELINE, LINKAGE_MAPPING),
)


class ExactDisclosureParams(ListedRecordsParams):
    k: int = Field(
        1,
        ge=1,
        description="A record counts as disclosed when at least k of the released sets reveal its true value.",
    )


class ExactDisclosureDetails(LinkageDetails):
    k: int = detail("Sets that must reveal the value", unit="sets")
    disclosed: int = detail("Records disclosed", unit="records")
    sum_of_squared_shares: float = detail(
        "Sum of squared shares of the secret's values",
        format="share",
        help="Exact disclosure by chance with one set and one linked record.",
    )
    sets_disclosing: list[int] = detail(
        "Records by number of sets revealing them", help="Entry j counts the records exactly j sets reveal."
    )
    most_narrowed: list[RecordView] = detail("Records disclosed, narrowest range first")


@linkage_metric(
    name="linkage_exact_disclosure",
    method=METHOD,
    params=ExactDisclosureParams,
    details=ExactDisclosureDetails,
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
    ``baseline: none``; the worse of the mappings
    (:func:`policycheck.metrics.linkage.mappings.worse_mapping`).
    """
    return worse_mapping(ctx, params, needs, disclosure_under_one_mapping, ExactDisclosureDetails)


def disclosure_under_one_mapping(
    ctx: EvaluationContext, params: ExactDisclosureParams, attack: LinkageAttack, control: LinkageAttack | None
) -> MappingOutcome:
    """Exact disclosure (sec. 4) under one mapping, against chance (:func:`chance.exact_by_set`) and the control."""
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    if params.k > d.n_sets:
        raise EvaluationError(
            f"params.k = {params.k} exceeds the number of released synthetic sets ({d.n_sets}); lower k."
        )
    flags = d.exactly_disclosed(params.k)
    marginal, true, candidates = marginal_and_counts(attack)
    chance_rate = float(np.mean(chance.at_least(chance.exact_by_set(marginal, true, candidates), params.k)))
    compared = against_baseline(params, attack, control, lambda x: x.exactly_disclosed(params.k), chance_rate)
    by_sets = risk_by_sets(attack, lambda m: d.exactly_disclosed(params.k, m), start=params.k)
    exact = d.exact_by_set()
    evidence = {
        "k": params.k,
        "disclosed": int(np.count_nonzero(flags & d.known)),
        "sum_of_squared_shares": marginal.sum_of_squares,
        "per_set": single_set(attack, ctx, lambda m: exact[:, m]),
        "sets_disclosing": np.bincount(exact[d.known].sum(axis=1), minlength=d.n_sets + 1).tolist(),
        "by_number_of_sets": by_sets,
        "most_narrowed": top_records(attack, flags, params.show_values, ctx),
    }
    chart = risk_chart(
        f"Exact disclosure of {attack.secret} against the number of sets",
        f"share of records revealed by >= {count_of(params.k, 'set')}",
        by_sets,
        compared,
    )
    return MappingOutcome(attack, compared, evidence, (chart,))
