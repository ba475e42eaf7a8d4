"""The Article 29 Working Party's three criteria: singling out, linkability, inference.

Opinion 05/2014 on anonymisation asks of anonymised data that no one can be
singled out, that records about a person cannot be linked, and that nothing
about a person can be inferred. anonymeter (Giomi et al., "A Unified
Framework for Quantifying Privacy Risk in Synthetic Data", PETS 2023;
assessed by the French CNIL) measures each as an attack on the original
records, beside a random-guess baseline and the same attack on holdout
records (the control). The rule's value is the residual risk
``(main - control) / (1 - control)`` with anonymeter's Wilson-score interval
(:mod:`policycheck.methods.wp29.rates`); without a holdout it is the main
attack's success rate, as in anonymeter.

With several synthetic sets each set's interval is at the Bonferroni level
(the worst of k is reported); the value is the worst set's.
Missing values: a predicate's "is missing" term matches them, other terms
fail on them ("!=" passes, as in pandas); in distances two missing values
match and a missing value against a present one is a full mismatch; a
missing secret is guessed right only by a missing guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator

from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.registry import Convention, Method, Params, imported_where_used, metric
from policycheck.release.model import ColumnType, Dataset, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.wp29.rates import AttackCounts, Risk, SuccessRate

REFERENCES = (
    "Article 29 Data Protection Working Party, Opinion 05/2014 on Anonymisation Techniques (WP216), sec. 2.2.",
    "M. Giomi, F. Boenisch, C. Wehmeyer, B. Tasnádi: A Unified Framework for Quantifying Privacy Risk in "
    "Synthetic Data, PETS 2023 (anonymeter 1.1).",
    "CNIL, opinion on anonymeter (2023).",
)

CONTROL_LABEL = "the same attack on holdout records the synthesizer never saw (control)"


class SinglingOutParams(Params):
    mode: Literal["univariate", "multivariate"] = Field(
        "multivariate",
        description="univariate: one column's rare or extreme value per predicate; multivariate: n_cols columns of a "
        "synthetic record.",
    )
    n_attacks: int = Field(500, ge=1, le=100_000, description="Singling-out predicates to make.")
    n_cols: int = Field(3, ge=1, le=50, description="Columns per multivariate predicate.")
    columns: list[str] | None = Field(None, description="Columns the predicates may use; all columns when omitted.")
    max_attempts: int = Field(
        100_000,
        ge=1,
        description="Most multivariate predicates tried before giving up (anonymeter's default is 10^7; fewer "
        "predicates than requested are reported in the notes).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Wilson-score interval.")


class LinkabilityParams(Params):
    aux_columns: tuple[list[str], list[str]] | None = Field(
        None,
        description="The two column sets the attacker's two data sets hold, e.g. [[age, sex], [occupation, income]]; "
        "the attacker's quasi-identifiers split in two halves, in order, when omitted.",
    )
    n_neighbors: int = Field(1, ge=1, le=1000, description="Closest synthetic records compared per half.")
    n_attacks: int = Field(500, ge=1, le=1_000_000, description="Original (and holdout) records attacked.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Wilson-score interval.")

    @field_validator("aux_columns")
    @classmethod
    def _non_empty(cls, value: tuple[list[str], list[str]] | None) -> tuple[list[str], list[str]] | None:
        if value is not None and (not value[0] or not value[1]):
            raise ValueError("each of the two auxiliary column sets needs at least one column")
        return value


class InferenceParams(Params):
    secret: str | None = Field(None, description="The column guessed; the attacker's first secret when omitted.")
    aux_columns: list[str] | None = Field(
        None, description="Columns the attacker knows; the attacker's quasi-identifiers when omitted."
    )
    n_attacks: int = Field(500, ge=1, le=1_000_000, description="Original (and holdout) records attacked.")
    tolerance: float = Field(
        0.05, ge=0, le=1, description="A numeric guess within tolerance · |secret| of the secret is right."
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Wilson-score interval.")


wp29_metric = partial(
    metric,
    family="wp29",
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    value_range=(0.0, 1.0),
    references=REFERENCES,
)


# The methods section (registry.Method); where we differ from anonymeter 1.1 (docs/peer-measures.md).
ANONYMETER = "anonymeter 1.1"
SEEDED_TARGETS = Convention(
    topic="seeding",
    peer=ANONYMETER,
    theirs="linkability and inference targets drawn with DataFrame.sample() unseeded: reruns differ",
    ours="every draw from the run's seed: same inputs and seed, same numbers",
)
ANONYMETER_DISTANCE = Convention(
    topic="distance",
    peer=ANONYMETER,
    theirs="sum over columns, ranges over the synthetic set and the targets, two missing values a mismatch",
    ours="Gower: mean over columns, ranges over every set, two missing values match; exact search",
)
SINGLING_OUT_METHOD = Method(
    definition="(main - control) / (1 - control) of the Article 29 WP singling-out attack: predicates written "
    "from the synthetic data that isolate exactly one original record, the holdout as control; Wilson score.",
    source="Giomi et al. 2023, sec. 3.1 (anonymeter)",
    conventions=(
        Convention(
            topic="denominator",
            peer=ANONYMETER,
            theirs="rates divided by n_attacks even when fewer predicates were made",
            ours="divided by the predicates made (equal when all are made)",
        ),
    ),
)
LINKABILITY_METHOD = Method(
    definition="(main - control) / (1 - control): targets whose two halves (aux_columns) share one of their "
    "n_neighbors closest synthetic records.",
    source="Giomi et al. 2023, sec. 3.2 (anonymeter)",
    conventions=(
        ANONYMETER_DISTANCE,
        Convention(
            topic="ties",
            peer=ANONYMETER,
            theirs="equal distances in argsort order",
            ours="equal distances in a seeded random order, independent per half",
        ),
        SEEDED_TARGETS,
    ),
)
INFERENCE_METHOD = Method(
    definition="(main - control) / (1 - control): the secret guessed from the closest synthetic record on "
    "aux_columns; a numeric guess is right within tolerance x |secret|.",
    source="Giomi et al. 2023, sec. 3.3 (anonymeter)",
    conventions=(
        Convention(
            topic="numeric tolerance",
            peer=ANONYMETER,
            theirs="|g - s| / (g + 1e-12) <= 0.05: relative to the guess, and any negative guess passes",
            ours="|g - s| <= tolerance x |s|, the paper's relative difference",
            effect="inference_risk/numeric-tolerance",
        ),
        ANONYMETER_DISTANCE,
        SEEDED_TARGETS,
    ),
)


@wp29_metric(
    name="singling_out_risk",
    method=SINGLING_OUT_METHOD,
    params=SinglingOutParams,
    knowledge={Knowledge.SYNTHETIC},
    column_params=("columns",),
    meaning=(
        'How often a statement written from the synthetic data alone ("the only person aged 84 with a doctorate '
        'in this county") picks out exactly one real person of the original data, beyond how often it does so '
        "for people who were not in the data. 0 means no more than chance; 1 means every such statement does."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not reproduce rare combinations (more noise, a differential "
        "privacy budget, coarser rare categories or top-coded extremes)."
    ),
)
def singling_out_risk(ctx: EvaluationContext, params: SinglingOutParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Singling-out risk (anonymeter): predicates from the synthetic data that isolate one original record, beyond the control."""
    from policycheck.methods.wp29.singling_out import singling_out

    release = ctx.release
    columns = params.columns or release.columns
    numeric = [release.column_types[c] is ColumnType.NUMERIC for c in columns]
    control = release.holdout.frame if release.holdout is not None else None

    def run(i: int) -> tuple[AttackCounts, dict[str, Any], list[str]]:
        syn = release.synthetic[i]
        outcome = singling_out(
            release.original.frame,
            syn.frame,
            control,
            columns,
            numeric,
            params.mode,
            params.n_attacks,
            params.n_cols,
            params.max_attempts,
            ctx.rng("singling_out_risk", params.mode, i),
            ctx.executor,
        )
        notes = []
        if outcome.counts.n_attacks == 0:
            raise EvaluationError(
                f"No {params.mode} predicate singles out a record of {syn.name} in {outcome.attempts} attempts, so "
                "no singling-out attack could be made."
            )
        if outcome.counts.n_attacks < params.n_attacks:
            notes.append(
                f"Only {outcome.counts.n_attacks} of the {params.n_attacks} requested {params.mode} predicates single "
                f"out a record of {syn.name} ({outcome.attempts} attempts); the rates divide by the predicates made "
                "(anonymeter divides by the number requested, which understates the risk)."
            )
        if outcome.control_correction is not None:
            notes.append(
                f"The holdout and the original differ in size; the control count was scaled by "
                f"{outcome.control_correction:.4g} (anonymeter's fitted size correction)."
            )
        extra = {
            "mode": params.mode,
            "attempts": outcome.attempts,
            "predicates_requested": params.n_attacks,
            "example_predicates_singling_out": outcome.singled_out_originals[:10],
        }
        return outcome.counts, extra, notes

    return _risk_of_worst_set(ctx, params.confidence, run, "singling out")


@wp29_metric(
    name="linkability_risk",
    method=LINKABILITY_METHOD,
    params=LinkabilityParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("aux_columns",),
    meaning=(
        "How often an attacker holding two data sets about the same people (with different columns) can join a "
        "person's two records through the synthetic data, beyond how often it can for people who were not in the "
        "data. 0 means no better than for outsiders; 1 means every person is linked."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not reproduce individual combinations of the two column sets "
        "(more noise, a differential privacy budget), or release fewer of the linking columns."
    ),
)
def linkability_risk(ctx: EvaluationContext, params: LinkabilityParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Linkability risk (anonymeter): two halves of a record joined through their nearest synthetic records, beyond the control."""
    from policycheck.methods.gower import fit_gower
    from policycheck.methods.wp29.linkability import linkability

    release = ctx.release
    if params.aux_columns is not None:
        halves = [list(params.aux_columns[0]), list(params.aux_columns[1])]
    else:
        qis = list(ctx.attacker.quasi_identifiers)
        if len(qis) < 2:
            raise EvaluationError(
                "linkability_risk needs two auxiliary column sets: give params.aux_columns or at least two "
                "quasi-identifiers to split in halves."
            )
        halves = [qis[: len(qis) // 2], qis[len(qis) // 2 :]]
    encodings = tuple(fit_gower(_frames(release), release.column_types, release.orders, cols) for cols in halves)

    def encoded(frame) -> tuple[np.ndarray, np.ndarray]:
        return tuple(e.encode(frame) for e in encodings)  # type: ignore[return-value]

    original = encoded(release.original.frame)
    control = encoded(release.holdout.frame) if release.holdout is not None else None

    def run(i: int) -> tuple[AttackCounts, dict[str, Any], list[str]]:
        outcome = linkability(
            original,
            control,
            encoded(release.synthetic[i].frame),
            encodings,  # type: ignore[arg-type]
            params.n_attacks,
            params.n_neighbors,
            ctx.rng("linkability_risk", i),
            ctx.executor,
        )
        notes = _fewer_attacks_note(outcome.counts.n_attacks, params.n_attacks)
        extra = {
            "aux_columns": halves,
            "n_neighbors": params.n_neighbors,
            "gower": encodings[0].describe()["convention"],
        }
        return outcome.counts, extra, notes

    return _risk_of_worst_set(ctx, params.confidence, run, "linkability")


@wp29_metric(
    name="inference_risk",
    method=INFERENCE_METHOD,
    params=InferenceParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("secret", "aux_columns"),
    meaning=(
        "How often an attacker who knows some of a person's columns guesses the secret column right from the "
        "closest synthetic record, beyond how often it does so for people who were not in the data. 0 means the "
        "synthetic data tells no more about members than about anyone; 1 means every member's secret is revealed."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not tie the secret to individual combinations of the known "
        "columns (more noise, a differential privacy budget), or coarsen the secret."
    ),
)
def inference_risk(ctx: EvaluationContext, params: InferenceParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Inference risk (anonymeter): the secret guessed from the nearest synthetic record, beyond the control."""
    import numpy as np

    from policycheck.methods.gower import fit_gower
    from policycheck.methods.wp29.inference import inference

    release = ctx.release
    secret = params.secret or (ctx.attacker.secrets[0] if ctx.attacker.secrets else None)
    if secret is None:
        raise EvaluationError("inference_risk needs a secret: give params.secret or the attacker's secrets.")
    aux = [c for c in (params.aux_columns or ctx.attacker.quasi_identifiers) if c != secret]
    if not aux:
        raise EvaluationError("inference_risk needs auxiliary columns: give params.aux_columns or quasi-identifiers.")
    encoding = fit_gower(_frames(release), release.column_types, release.orders, aux)
    numeric = release.column_types[secret] is ColumnType.NUMERIC

    def secret_of(frame) -> np.ndarray:
        return (
            frame[secret].to_numpy(dtype=np.float64, na_value=np.nan)
            if numeric
            else frame[secret].to_numpy(dtype=object)
        )

    holdout = release.holdout

    def run(i: int) -> tuple[AttackCounts, dict[str, Any], list[str]]:
        syn = release.synthetic[i].frame
        outcome = inference(
            encoding.encode(release.original.frame),
            secret_of(release.original.frame),
            encoding.encode(holdout.frame) if holdout is not None else None,
            secret_of(holdout.frame) if holdout is not None else None,
            encoding.encode(syn),
            secret_of(syn),
            encoding.kinds,
            numeric,
            params.tolerance,
            params.n_attacks,
            ctx.rng("inference_risk", secret, i),
            ctx.executor,
        )
        extra = {
            "secret": secret,
            "aux_columns": aux,
            "success_test": f"|guess - secret| <= {params.tolerance} * |secret|" if numeric else "guess == secret",
            "gower": encoding.describe()["convention"],
        }
        return outcome.counts, extra, _fewer_attacks_note(outcome.counts.n_attacks, params.n_attacks)

    return _risk_of_worst_set(ctx, params.confidence, run, "inference")


def _risk_of_worst_set(
    ctx: EvaluationContext,
    confidence: float,
    run: Callable[[int], tuple[AttackCounts, dict[str, Any], list[str]]],
    criterion: str,
) -> MetricResult:
    """Run the attacks per synthetic set; report the worst set's risk, with anonymeter's rates and notes beside it."""

    def measure(
        i: int, dataset: Dataset, level: float
    ) -> tuple[Risk, dict[str, SuccessRate | None], AttackCounts, dict[str, Any], list[str]]:
        counts, extra, notes = run(i)
        rates = counts.rates(level)
        risk = counts.risk(level)
        entry = {
            "synthetic": dataset.name,
            "risk": risk.value,
            "interval": list(risk.interval),
            "attacks": counts.n_attacks,
            "main_successes": counts.n_success,
            "main_rate": rates["main"].value,
            "baseline_successes": counts.n_baseline,
            "baseline_attacks": counts.n_baseline_attacks,
            "baseline_rate": rates["baseline"].value,
            "control_successes": counts.n_control,
            "control_rate": None if rates["control"] is None else rates["control"].value,
            **extra,
        }
        if rates["baseline"].value >= rates["main"].value:
            notes.append(
                f"On {dataset.name} the {criterion} attack does no better than random guessing "
                f"({rates['main'].value:.3f} against {rates['baseline'].value:.3f}); anonymeter warns that such a "
                "result cannot be trusted as a measure of the attack's strength."
            )
        return risk, rates, counts, entry, notes

    sets = worst_of_sets(ctx, confidence, measure, lambda r: r[0].value)
    level, results = sets.level, sets.per_set
    risk, rates, counts, entry, notes = sets.worst
    has_control = rates["control"] is not None
    if not has_control:
        notes = [
            *notes,
            "The release has no holdout, so there is no control attack: the value is the main attack's success rate, "
            "which includes what an attacker gets for anyone (compare it with the random-guess baseline).",
        ]
    baseline = rates["control"] if has_control else rates["baseline"]
    chart = {
        "kind": "bar",
        "title": f"{criterion.capitalize()} attack success by attacker",
        "x_label": "synthetic set",
        "y_label": "success rate (Wilson estimate)",
        "series": [
            {
                "name": "main (original records)",
                "x": [r[3]["synthetic"] for r in results],
                "y": [r[3]["main_rate"] for r in results],
            },
            {
                "name": "random guess",
                "x": [r[3]["synthetic"] for r in results],
                "y": [r[3]["baseline_rate"] for r in results],
            },
        ]
        + (
            [
                {
                    "name": "control (holdout)",
                    "x": [r[3]["synthetic"] for r in results],
                    "y": [r[3]["control_rate"] for r in results],
                }
            ]
            if has_control
            else []
        ),
    }
    return MetricResult(
        value=risk.value,
        interval=risk.interval,
        confidence=level,
        details={
            "worst_set": entry["synthetic"],
            "risk_formula": "(main - control) / (1 - control)" if has_control else "main attack success rate",
            "interval_method": "Wilson score per rate, error propagated to the residual risk (anonymeter 1.1)",
            "per_set": [r[3] for r in results],
        },
        charts=(chart,),
        notes=tuple(dict.fromkeys(notes)),
        baseline=baseline.value,
        raw=rates["main"].value,
        baseline_label=CONTROL_LABEL if has_control else "a random-guess attacker (anonymeter's baseline)",
        sample_size=counts.n_attacks,
    )


def _frames(release: Release) -> list:
    frames = [release.original.frame, *(d.frame for d in release.synthetic)]
    if release.holdout is not None:
        frames.append(release.holdout.frame)
    return frames


def _fewer_attacks_note(made: int, requested: int) -> list[str]:
    if made < requested:
        return [
            f"Only {made} records could be attacked (fewer original or holdout records than the {requested} requested)."
        ]
    return []


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    "AttackCounts": ("policycheck.methods.wp29.rates", "AttackCounts"),
    "bonferroni": ("policycheck.core.stats", "bonferroni"),
    "fit_gower": ("policycheck.methods.gower", "fit_gower"),
    "inference": ("policycheck.methods.wp29.inference", "inference"),
    "linkability": ("policycheck.methods.wp29.linkability", "linkability"),
    "singling_out": ("policycheck.methods.wp29.singling_out", "singling_out"),
}


__getattr__ = imported_where_used(__name__, _IMPORTED_WHERE_USED)
