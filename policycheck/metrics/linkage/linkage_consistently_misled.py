"""``linkage_consistently_misled``: the share of real people every released set misleads to one wrong side.

Paper 000, sec. 4: "having multiple sets consistently orientates the
partial-knowledge attacker in the wrong direction" (Table 3: records 1, 7, 15,
17). Higher is safer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.linkage.baseline import against_baseline, marginal_and_counts
from policycheck.metrics.linkage.charts import risk_chart
from policycheck.metrics.linkage.common import LINKAGE_BASELINE, LINKAGE_MAPPING, LINKAGE_SOURCE, linkage_metric
from policycheck.metrics.linkage.evidence import LinkageDetails, risk_by_sets, single_set
from policycheck.metrics.linkage.mappings import MappingOutcome, worse_mapping
from policycheck.metrics.linkage.params import LinkageParams
from policycheck.metrics.registry import Method

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.linkage.attack import LinkageAttack

METHOD = Method(
    definition="Share of original records every linked set misleads to the same side of the true secret, minus "
    "the baseline; higher is safer; the worse mapping.",
    source=LINKAGE_SOURCE,
    conventions=(LINKAGE_BASELINE, LINKAGE_MAPPING),
)


class MisledParams(LinkageParams):
    pass


class MisledDetails(LinkageDetails):
    misled: int = detail("Records misled by every set", unit="records")


@linkage_metric(
    name="linkage_consistently_misled",
    method=METHOD,
    params=MisledParams,
    details=MisledDetails,
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
    than chance. The smaller of the mappings
    (:func:`policycheck.metrics.linkage.mappings.worse_mapping`).
    """
    return worse_mapping(ctx, params, needs, misled_under_one_mapping, MisledDetails, higher_is_riskier=False)


def misled_under_one_mapping(
    ctx: EvaluationContext, params: MisledParams, attack: LinkageAttack, control: LinkageAttack | None
) -> MappingOutcome:
    """Consistent misleading (sec. 4) under one mapping, against chance (:func:`chance.misled`) and the control."""
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    flags = d.consistently_misled()
    marginal, true, candidates = marginal_and_counts(attack)
    chance_rate = float(np.mean(chance.misled(marginal, true, candidates.sum(axis=1))))
    compared = against_baseline(
        params, attack, control, lambda x: x.consistently_misled(), chance_rate, higher_is_riskier=False
    )
    by_sets = risk_by_sets(attack, lambda m: d.consistently_misled(m))
    evidence = {
        "misled": int(np.count_nonzero(flags)),
        "per_set": single_set(attack, ctx, lambda m: d.only_set(m).consistently_misled()),
        "by_number_of_sets": by_sets,
    }
    chart = risk_chart(
        f"Records consistently misled about {attack.secret} against the number of sets",
        "share of records misled by every set",
        by_sets,
        compared,
    )
    return MappingOutcome(attack, compared, evidence, (chart,))
