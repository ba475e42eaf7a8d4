"""TCAP: the targeted correct attribution probability (Taub et al. 2018), with a marginal-guess baseline."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.metrics.synthpop.common import disclosure_per_set, synthpop_metric
from policycheck.release.model import Dataset

TCAP_METHOD = Method(
    definition="TCAP: over original records whose key determines the target and occurs in the synthetic data, the "
    "mean share of synthetic records with the key carrying the target; marginal-guess baseline.",
    source="Taub et al. 2018, sec. 3",
    conventions=(
        Convention(
            topic="definition",
            peer="synthpop 1.9",
            theirs="its TCAP column is DiSCO / iS, a different number",
            ours="Taub et al.'s; synthpop's in the details",
        ),
    ),
)


class KeysTargetParams(Params):
    keys: list[str] | None = Field(
        None, description="Quasi-identifying key columns; the attacker's quasi-identifiers when omitted."
    )
    target: str | None = Field(None, description="The target column; the attacker's first secret when omitted.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the interval.")


class TcapOfSet(Details):
    """TCAP of one synthetic set; undefined (None) when no record qualifies."""

    synthetic: str = detail("Synthetic set")
    tcap: float | None = detail("TCAP", format="share")
    interval: tuple[float, float] | None = detail("Bootstrap interval of TCAP", format="data", default=None)
    baseline: float | None = detail(
        "Marginal-guess baseline", format="share", help="The mean share of each record's target value.", default=None
    )
    records: int = detail("Original records TCAP averages over", unit="records")
    synthpop_TCAP_column: float | None = detail("synthpop 1.9's TCAP column: DiSCO / iS", format="share", default=None)


class TcapDetails(Details):
    worst_set: str = detail("Worst synthetic set")
    keys: list[str] = detail("Key columns", format="data")
    target: str = detail("Target column")
    definition: str = detail(
        "Definition",
        default="mean of p_s(t|k) over original records with p_d(t|k) = 1 whose key occurs in the synthetic data",
    )
    per_set: list[TcapOfSet] = detail("Per synthetic set", format="data")


@partial(synthpop_metric, value_range=(0.0, 1.0))(
    name="tcap",
    method=TCAP_METHOD,
    params=KeysTargetParams,
    details=TcapDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("keys", "target"),
    meaning=(
        "For the people whose key values determine the target in the original data, how often, on average, the "
        "synthetic records with the same key carry that person's target value (targeted correct attribution "
        "probability). The baseline is what guessing from the target's overall distribution gets."
    ),
    remedy="Regenerate with a synthesizer that keeps less of the link between the keys and the target.",
)
def tcap(ctx: EvaluationContext, params: KeysTargetParams, needs: Mapping[Need, Any]) -> MetricResult:
    """TCAP (Taub et al. 2018): mean p_s(t|k) over original records with p_d(t|k) = 1 and their key in the synthetic data."""  # noqa: E501 - the summary
    from policycheck.core import stats

    keys, target, results = disclosure_per_set(ctx, params.keys, params.target)

    def attribution(i: int, dataset: Dataset, level: float) -> TcapOfSet:
        c = results[i].counts
        if c.tcap_records == 0:
            return TcapOfSet(synthetic=dataset.name, tcap=None, records=0)
        values = results[i].tcap_per_record
        interval = stats.bootstrap_interval(
            lambda idx: float(values[idx].mean()), values.size, ctx.rng("tcap", i), 200, level
        )
        return TcapOfSet(
            synthetic=dataset.name,
            tcap=c.tcap,
            interval=interval,
            baseline=c.tcap_baseline,
            records=c.tcap_records,
            synthpop_TCAP_column=c.shares()["synthpop_TCAP"],
        )

    sets = worst_of_sets(ctx, params.confidence, attribution, lambda s: s.tcap)
    worst = sets.worst
    if worst is None or worst.tcap is None or worst.interval is None:
        raise EvaluationError(
            "TCAP is undefined: no original record whose keys determine the target has its key in the synthetic data."
        )
    return MetricResult(
        value=worst.tcap,
        interval=worst.interval,
        confidence=sets.level,
        details=TcapDetails(worst_set=worst.synthetic, keys=keys, target=target, per_set=sets.per_set),
        baseline=worst.baseline,
        raw=worst.tcap,
        baseline_label=(
            "the share of each record's target value in the original: a guess from the target's distribution"
        ),
        sample_size=worst.records,
    )
