"""synthpop's disclosure measures: replicated uniques (repU), DiSCO and TCAP.

The measures UK statistical offices use for synthetic data (Raab, Nowok and
Dibben 2024, synthpop's ``disclosure()``; Taub et al. 2018), defined in
:mod:`policycheck.methods.synthpop_disclosure`. ``repU`` and ``DiSCO`` are
shares of the original records with a Clopper-Pearson interval. Both
include chance: an independent synthesizer still replicates some uniques and
discloses some targets. So by default the rule's value is the excess over
the same measure computed with the holdout records in the original's place
(synthpop's raw share is the report's ``raw``; params ``baseline: none``
bounds the raw share). Every other
measure of synthpop's table (UiO, UiS, UiOiS, DiO, iS, DiS, DiSDiO and
synthpop's own TCAP column) is in the report's details beside them. With
several synthetic sets each interval is at the Bonferroni level and the
value is the worst set's. Missing key or target values are a category of
their own, as in synthpop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.registry import Convention, Method, Params, metric
from policycheck.release.model import Dataset

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.synthpop_disclosure import Disclosure


REFERENCES = (
    "G. M. Raab, B. Nowok, C. Dibben: Practical privacy metrics for synthetic data, arXiv:2406.16826 (2024); "
    "synthpop 1.9 disclosure().",
    "J. Taub, M. Elliot, M. Pampaka, D. Smith: Differential correct attribution probability for synthetic data: "
    "an exploration, Privacy in Statistical Databases 2018.",
)


class KeysTargetParams(Params):
    keys: list[str] | None = Field(
        None, description="Quasi-identifying key columns; the attacker's quasi-identifiers when omitted."
    )
    target: str | None = Field(None, description="The target column; the attacker's first secret when omitted.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the interval.")


class KeysParams(Params):
    keys: list[str] | None = Field(
        None, description="Quasi-identifying key columns; the attacker's quasi-identifiers when omitted."
    )
    baseline: Literal["holdout", "none"] = Field(
        "holdout",
        description="holdout: the value is the excess over the same measure with the holdout records in the "
        "original's place (what the synthetic data matches by chance); none: synthpop's raw share.",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Clopper-Pearson interval.")


class DiscoParams(KeysParams):
    target: str | None = Field(None, description="The target column; the attacker's first secret when omitted.")


synthpop_metric = partial(
    metric,
    family="synthpop",
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    value_range=(-1.0, 1.0),
    references=REFERENCES,
)


def _run(
    ctx: EvaluationContext, keys: list[str] | None, target: str | None, real: Any = None
) -> tuple[list[str], str, list[Disclosure]]:
    from policycheck.methods.synthpop_disclosure import disclosure

    keys = list(keys or ctx.attacker.quasi_identifiers)
    if not keys:
        raise EvaluationError(
            "synthpop's measures need key columns: give params.keys or the attacker's quasi-identifiers."
        )
    if target is None:
        if ctx.attacker.secrets:
            target = ctx.attacker.secrets[0]
        else:
            # Identity disclosure needs no target; any non-key column serves the shared computation.
            target = next((c for c in ctx.release.columns if c not in keys), keys[0])
    keys = [k for k in keys if k != target]
    real = ctx.release.original.frame if real is None else real
    results = [disclosure(real, d.frame, keys, target) for d in ctx.release.synthetic]
    return keys, target, results


def _share_result(
    ctx: EvaluationContext,
    params: KeysParams,
    keys: list[str],
    target: str,
    results: list[Disclosure],
    measure: str,
    details: dict[str, Any],
) -> MetricResult:
    """The worst set's share, as the excess over the holdout's share unless ``baseline: none``."""
    from policycheck.core import stats

    holdout = ctx.release.holdout
    controls: list[Disclosure | None] = [None] * len(results)
    if params.baseline == "holdout" and holdout is not None:
        _, _, controls = _run(ctx, keys, target, holdout.frame)  # type: ignore[assignment]

    def share(i: int, dataset: Dataset, level: float) -> dict[str, Any]:
        c, control = results[i].counts, controls[i]
        k = getattr(c, measure)
        raw_interval = stats.clopper_pearson(k, c.n_original, level)
        entry = {
            "synthetic": dataset.name,
            measure: k / c.n_original,
            "raw_interval": list(raw_interval),
            "records": k,
            "denominator": c.n_original,
            "all_measures": c.shares(),
        }
        if control is None:
            entry["value"], entry["interval"] = entry[measure], list(raw_interval)
        else:
            kc, nc = getattr(control.counts, measure), control.counts.n_original
            base_interval = stats.clopper_pearson(kc, nc, level)
            entry["holdout_" + measure] = kc / nc
            entry["value"] = k / c.n_original - kc / nc
            # The difference of the two exact intervals' ends: conservative.
            entry["interval"] = [raw_interval[0] - base_interval[1], raw_interval[1] - base_interval[0]]
        return entry

    sets = worst_of_sets(ctx, params.confidence, share, lambda p: p["value"])
    level, per_set, chosen = sets.level, sets.per_set, sets.worst
    has_control = "holdout_" + measure in chosen
    notes: tuple[str, ...] = ()
    if params.baseline == "holdout" and holdout is None:
        notes = ("The release has no holdout, so the value is synthpop's raw share, chance matches included.",)
    return MetricResult(
        value=chosen["value"],
        interval=tuple(chosen["interval"]),
        confidence=level,
        details={"worst_set": chosen["synthetic"], **details, "per_set": per_set},
        notes=notes,
        baseline=chosen["holdout_" + measure] if has_control else None,
        raw=chosen[measure],
        baseline_label=(
            f"synthpop's {measure} with the holdout records in the original's place: what the synthetic data matches "
            "for people it never saw"
            if has_control
            else None
        ),
        sample_size=chosen["denominator"],
    )


# The methods section (registry.Method).
SYNTHPOP_BASELINE = Convention(
    topic="chance",
    peer="synthpop 1.9 disclosure()",
    theirs="the raw share of the original records",
    ours="minus the same measure with the holdout records in the original's place (baseline: none, the raw share)",
)
REPU_METHOD = Method(
    definition="repU: share of original records unique on the keys whose key is unique in the synthetic data too, "
    "minus the holdout's repU.",
    source="Raab, Nowok, Dibben 2024, sec. 3.1 (synthpop)",
    conventions=(dataclasses.replace(SYNTHPOP_BASELINE, effect="replicated_uniques/holdout-baseline"),),
)
DISCO_METHOD = Method(
    definition="DiSCO: share of original records whose key the synthetic data ties to one target value, the right "
    "one, minus the holdout's DiSCO.",
    source="Raab, Nowok, Dibben 2024, sec. 3.2 (synthpop)",
    conventions=(dataclasses.replace(SYNTHPOP_BASELINE, effect="disco/holdout-baseline"),),
)
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


@synthpop_metric(
    name="replicated_uniques",
    method=REPU_METHOD,
    params=KeysParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("keys",),
    meaning=(
        "The share of original records that are the only one with their combination of key values and whose "
        "combination is also unique in the synthetic data (repU). Such a synthetic record looks like a real, "
        "identifiable person; UiO beside it is the share unique in the original, the most repU can be."
    ),
    remedy="Regenerate with a synthesizer that does not reproduce rare key combinations, or coarsen the keys.",
)
def replicated_uniques(ctx: EvaluationContext, params: KeysParams, needs: Mapping[Need, Any]) -> MetricResult:
    """repU: share of original records unique on the keys whose key is unique in the synthetic data too."""
    keys, target, results = _run(ctx, params.keys, None)
    c = results[0].counts
    details = {
        "keys": keys,
        "definition": "#{original records with d(k) = 1 and s(k) = 1} / N_original (synthpop's repU / 100)",
        "unique_in_original_UiO": c.UiO / c.n_original,
    }
    return _share_result(ctx, params, keys, target, results, "repU", details)


@synthpop_metric(
    name="disco",
    method=DISCO_METHOD,
    params=DiscoParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("keys", "target"),
    meaning=(
        "The share of original records whose key values, looked up in the synthetic data, point to a single "
        "target value that is the person's true one (DiSCO: disclosive in synthetic, correct in original). DiO "
        "beside it is the share the original data itself discloses, iS the share whose key occurs in the "
        "synthetic data at all."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not tie the target to key combinations shared by few people, "
        "or coarsen the keys or the target."
    ),
)
def disco(ctx: EvaluationContext, params: DiscoParams, needs: Mapping[Need, Any]) -> MetricResult:
    """DiSCO: share of original records the synthetic data discloses correctly (p_s(t|k) = 1)."""
    keys, target, results = _run(ctx, params.keys, params.target)
    c = results[0].counts
    details = {
        "keys": keys,
        "target": target,
        "definition": "#{original records with p_s(t|k) = 1} / N_original (synthpop's DiSCO / 100)",
        "disclosive_in_original_DiO": c.DiO / c.n_original,
        "key_in_synthetic_iS": c.iS / c.n_original,
    }
    return _share_result(ctx, params, keys, target, results, "DiSCO", details)


@partial(synthpop_metric, value_range=(0.0, 1.0))(
    name="tcap",
    method=TCAP_METHOD,
    params=KeysTargetParams,
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
    """TCAP (Taub et al. 2018): mean p_s(t|k) over original records with p_d(t|k) = 1 and their key in the synthetic data."""
    from policycheck.core import stats

    keys, target, results = _run(ctx, params.keys, params.target)

    def attribution(i: int, dataset: Dataset, level: float) -> dict[str, Any]:
        c = results[i].counts
        if c.tcap_records == 0:
            return {"synthetic": dataset.name, "tcap": None, "records": 0}
        values = results[i].tcap_per_record
        interval = stats.bootstrap_interval(
            lambda idx: float(values[idx].mean()), values.size, ctx.rng("tcap", i), 200, level
        )
        return {
            "synthetic": dataset.name,
            "tcap": c.tcap,
            "interval": list(interval),
            "baseline": c.tcap_baseline,
            "records": c.tcap_records,
            "synthpop_TCAP_column": c.shares()["synthpop_TCAP"],
        }

    sets = worst_of_sets(ctx, params.confidence, attribution, lambda p: p["tcap"])
    level, per_set, chosen = sets.level, sets.per_set, sets.worst
    if chosen is None:
        raise EvaluationError(
            "TCAP is undefined: no original record whose keys determine the target has its key in the synthetic data."
        )
    return MetricResult(
        value=chosen["tcap"],
        interval=tuple(chosen["interval"]),
        confidence=level,
        details={
            "worst_set": chosen["synthetic"],
            "keys": keys,
            "target": target,
            "definition": "mean of p_s(t|k) over original records with p_d(t|k) = 1 whose key occurs in the synthetic data",
            "per_set": per_set,
        },
        baseline=chosen["baseline"],
        raw=chosen["tcap"],
        baseline_label="the share of each record's target value in the original: a guess from the target's distribution",
        sample_size=chosen["records"],
    )
