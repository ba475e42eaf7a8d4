"""The no-box density attack on a released set: ``density_membership_risk`` (DOMIAS, van Breugel et al. 2023).

When the synthesizer cannot be re-run, the membership game cannot be
played; the density attack still reads local overfitting off the released
set: each training and holdout record is scored by
``p_synthetic(x) / p_holdout(x)`` (:mod:`policycheck.methods.density_attack`),
and the rule's value is ``2 AUC - 1`` of that score at telling training from
holdout records, over all of them and over the most isolated tenth (where
overfitting shows first), the worse of the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.registry import Convention, Method, Params, metric
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

REFERENCES = (
    "van Breugel, Sun, Qian, van der Schaar. Membership inference attacks against synthetic data through overfitting "
    "detection (DOMIAS). AISTATS 2023.",
    "Carlini et al. Membership inference attacks from first principles. IEEE S&P 2022.",
)

DENSITY_METHOD = Method(
    definition="2 AUC - 1 of DOMIAS's score p_synthetic(x) / (p_holdout(x) + 1e-10) at telling training from holdout "
    "records (holdout densities leave the record itself out), over all records and over the most isolated tenth "
    "(mean Gower distance to the 5 nearest real records), the worse; stratified bootstrap intervals at the Bonferroni "
    "level over the two and the synthetic sets.",
    source="van Breugel et al. 2023 (DOMIAS, eq. 2); the isolated tenth after Meeus et al. 2023",
    conventions=(
        Convention(
            topic="reference set",
            peer="DOMIAS 0.0.5 (domias.evaluator.evaluate_performance)",
            theirs="a reference set apart from the scored non-members; with the reference set equal to the "
            "non-members, each non-member's reference density counts its own kernel",
            ours="the holdout is reference and non-members at once, each holdout record's reference density leaving "
            "it out (leave-one-out), so no record is scored against itself",
        ),
    ),
)


class DensityParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns the densities use; all columns of the release when omitted."
    )
    density: Literal["gower", "kde"] = Field(
        "gower",
        description="'gower': a kernel exp(-p D) on the Gower distance (mixed data); 'kde': scipy's "
        "gaussian_kde, DOMIAS's kde estimator (numeric columns without missing values only).",
    )
    isolated_share: float = Field(
        0.1,
        gt=0,
        le=1,
        description="Share of the records, most isolated first, of the second AUC (0.1: the most isolated decile).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the intervals.")
    bootstrap_resamples: int = Field(200, ge=20, le=10_000, description="Bootstrap resamples behind each interval.")


def _features(params: DensityParams, release: Release) -> list[str]:
    if params.columns:
        wanted = set(params.columns)
        return [c for c in release.columns if c in wanted]
    return release.columns


def check_density_params(params: DensityParams, release: Release, attacker: Any) -> list[tuple[tuple[str, ...], str]]:
    """Before running: a holdout; for ``kde``, numeric columns only."""
    problems: list[tuple[tuple[str, ...], str]] = []
    if release.holdout is None:
        problems.append(
            (
                ("density",),
                "the density attack needs a holdout set: it is both the reference density and the non-members",
            )
        )
    if params.density == "kde":
        other = [c for c in _features(params, release) if release.column_types[c] is not ColumnType.NUMERIC]
        if other:
            problems.append(
                (
                    ("density",),
                    f"density 'kde' takes numeric columns only, and {', '.join(other)} "
                    "are not; use density 'gower' or restrict columns",
                )
            )
    return problems


def _two_auc(scores: np.ndarray, members: np.ndarray, subset: np.ndarray) -> tuple[float, float]:
    from policycheck.core import stats

    s, m = scores, members
    whole = stats.roc_auc(s[m], s[~m])
    part = stats.roc_auc(s[subset & m], s[subset & ~m])
    return whole, part


def measure_set(ctx: EvaluationContext, params: DensityParams, index: int, level: float, prepared: dict) -> dict:
    """One synthetic set: scores, both AUCs with stratified bootstrap intervals, TPR at low FPR."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.density_attack import density_ratio
    from policycheck.methods.membership_game.rates import FPR_LEVELS, tpr_at_fpr

    queries, holdout, self_rows = prepared["queries"], prepared["holdout"], prepared["self_rows"]
    synthetic = prepared["synthetic"][index]
    scores = density_ratio(queries, synthetic, holdout, params.density, prepared["kinds"], self_rows)
    members = prepared["members"]
    isolated = prepared["isolated"]
    whole, part = _two_auc(scores, members, isolated)
    rng = ctx.rng("density_membership_risk", "bootstrap", index)
    member_rows, other_rows = np.flatnonzero(members), np.flatnonzero(~members)
    draws = []
    for _ in range(params.bootstrap_resamples):
        rows = np.concatenate([rng.choice(member_rows, member_rows.size), rng.choice(other_rows, other_rows.size)])
        draws.append(_two_auc(scores[rows], members[rows], isolated[rows]))
    draws = np.array(draws, dtype=float)
    each = stats.bonferroni(level, 2)
    alpha = 1 - each

    def interval(column: int) -> tuple[float, float]:
        values = draws[:, column][np.isfinite(draws[:, column])]
        if not values.size:
            return (-1.0, 1.0)
        lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
        return (2 * float(lo) - 1, 2 * float(hi) - 1)

    fpr, tpr = stats.roc_curve(scores[members], scores[~members])
    values = {"all records": 2 * whole - 1, "most isolated": 2 * part - 1 if np.isfinite(part) else float("nan")}
    worst = max((k for k in values if np.isfinite(values[k])), key=lambda k: values[k])
    return {
        "synthetic": ctx.release.synthetic[index].name,
        "value": values[worst],
        "worst_subset": worst,
        "auc": whole,
        "advantage_all": 2 * whole - 1,
        "interval_all": list(interval(0)),
        "auc_isolated": part if np.isfinite(part) else None,
        "advantage_isolated": values["most isolated"] if np.isfinite(part) else None,
        "interval_isolated": list(interval(1)),
        "isolated_records": {"training": int((isolated & members).sum()), "holdout": int((isolated & ~members).sum())},
        "tpr_at_fpr": {f"{k:g}": v for k, v in tpr_at_fpr(fpr, tpr, FPR_LEVELS).items()},
        "roc": (fpr, tpr),
    }


def _prepare(ctx: EvaluationContext, params: DensityParams) -> dict:
    """Encoded training, holdout and synthetic records; who is a member; who is in the isolated share."""
    import numpy as np

    from policycheck.methods.gower import fit_gower
    from policycheck.methods.membership_game.targets import vulnerability_scores

    release = ctx.release
    features = _features(params, release)
    frames = [release.original.frame, release.holdout.frame, *(d.frame for d in release.synthetic)]
    enc = fit_gower(frames, release.column_types, release.orders, features)
    train, hold = enc.encode(release.original.frame), enc.encode(release.holdout.frame)
    real = np.vstack([train, hold])
    isolation = vulnerability_scores(real, enc.kinds, ctx.executor)
    count = max(1, int(np.ceil(params.isolated_share * len(real))))
    isolated = np.zeros(len(real), bool)
    isolated[np.argsort(-isolation, kind="stable")[:count]] = True
    if params.density == "kde":

        def raw(frame):
            values = frame[features].to_numpy(dtype=float)
            if np.isnan(values).any():
                raise EvaluationError("density 'kde' cannot take missing values; use density 'gower'")
            return values

        queries = np.vstack([raw(release.original.frame), raw(release.holdout.frame)])
        holdout, synthetic = raw(release.holdout.frame), [raw(d.frame) for d in release.synthetic]
    else:
        queries, holdout, synthetic = real, hold, [enc.encode(d.frame) for d in release.synthetic]
    self_rows = np.concatenate([np.full(len(train), -1), np.arange(len(hold))])
    members = np.concatenate([np.ones(len(train), bool), np.zeros(len(hold), bool)])
    return {
        "queries": queries,
        "holdout": holdout,
        "synthetic": synthetic,
        "kinds": enc.kinds,
        "self_rows": self_rows,
        "members": members,
        "isolated": isolated,
        "isolated_count": count,
    }


@metric(
    name="density_membership_risk",
    method=DENSITY_METHOD,
    family="membership",
    params=DensityParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS},
    inputs={"original", "holdout", "synthetic"},
    value_range=(-1.0, 1.0),
    column_params=("columns",),
    check=check_density_params,
    meaning="How well the ratio of the synthetic data's density to the real population's density at a record tells "
    "people who were in the training data from people who were not (DOMIAS): 2 AUC - 1, 0 a blind guess, 1 always "
    "right; the worse of all records and the most isolated tenth, where a synthesizer overfits first.",
    remedy="Regenerate with a synthesizer that overfits less (more noise, a differential-privacy budget, fewer "
    "epochs), and check the isolated records the game names; release fewer synthetic records.",
    references=REFERENCES,
)
def density_membership_risk(ctx: EvaluationContext, params: DensityParams, needs: Mapping[Need, Any]) -> MetricResult:
    """2 AUC - 1 of the DOMIAS density ratio at telling training from holdout records (van Breugel et al. 2023)."""
    from policycheck.core import stats

    if ctx.release.holdout is None:
        raise EvaluationError("density_membership_risk needs a holdout set")
    prepared = _prepare(ctx, params)
    sets = worst_of_sets(
        ctx, params.confidence, lambda i, ds, level: measure_set(ctx, params, i, level, prepared), lambda m: m["value"]
    )
    worst = sets.worst
    per_set = [{k: v for k, v in m.items() if k != "roc"} for m in sets.per_set]
    interval = stats.worst_interval(
        [
            tuple(m["interval_all"] if m["worst_subset"] == "all records" else m["interval_isolated"])
            for m in sets.per_set
        ]
    )
    fpr, tpr = worst["roc"]
    floor = 1.0 / (2 * max(int((~prepared["members"]).sum()), 1))
    chart = {
        "kind": "line",
        "title": f"Density attack on {worst['synthetic']}: ROC on log-log axes (AUC {worst['auc']:.3f})",
        "x_label": "false positive rate (holdout records guessed members)",
        "y_label": "true positive rate (training records guessed members)",
        "x_scale": "log",
        "y_scale": "log",
        "x_domain": [floor, 1.0],
        "y_domain": [floor, 1.0],
        "series": [
            {
                "name": "density ratio",
                "x": [max(float(v), floor) for v in fpr],
                "y": [max(float(v), floor) for v in tpr],
            },
            {"name": "chance", "x": [floor, 1.0], "y": [floor, 1.0]},
        ],
    }
    notes = [
        f"Worst: {worst['worst_subset']} of {worst['synthetic']}: 2 AUC - 1 = {worst['value']:.3f} "
        f"({prepared['isolated_count']} most isolated records of {len(prepared['members'])} make the isolated "
        "share). No shadow model and no re-run: a synthesizer whose leak does not show as local overfitting "
        "(one it spreads over many records) passes this attack; the membership game tests the synthesizer."
    ]
    return MetricResult(
        value=worst["value"],
        interval=interval,
        confidence=params.confidence,
        details={
            "density": params.density,
            "per_set": per_set,
            "worst_set": worst["synthetic"],
            "bonferroni": {
                "alternatives": 2 * len(per_set),
                "level": stats.bonferroni(params.confidence, 2 * len(per_set)),
            },
        },
        charts=(chart,),
        notes=tuple(notes),
        baseline=0.0,
        baseline_label="a blind guess (AUC 0.5)",
        sample_size=len(prepared["members"]),
    )
