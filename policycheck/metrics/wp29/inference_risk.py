"""``inference_risk``: a person's secret guessed from the closest synthetic record on what the attacker knows.

Giomi et al. 2023, sec. 3.3: the attacker knows a target's auxiliary columns
and guesses its secret as that of the closest synthetic record; the rate of
right guesses, against the same attack on holdout records, is the inference
risk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.metrics.wp29.common import (
    ANONYMETER,
    ANONYMETER_DISTANCE,
    SEEDED_TARGETS,
    fewer_attacks_note,
    frames,
    wp29_metric,
)
from policycheck.metrics.wp29.residual_risk import SetRisk, Wp29Details, risk_of_worst_set
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from policycheck.methods.wp29.rates import AttackCounts

METHOD = Method(
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


class InferenceSet(SetRisk):
    secret: str = detail("Secret guessed")
    aux_columns: list[str] = detail("Columns the attacker knows")
    success_test: str = detail("A guess is right when")
    gower: str = detail("Distance")


class InferenceDetails(Wp29Details):
    per_set: list[InferenceSet] = detail("Each synthetic set")


def check_secret_given(
    params: InferenceParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: a secret to guess and columns to guess it from, from the params or the attacker model."""
    secret = params.secret or (attacker.secrets[0] if attacker.secrets else None)
    if secret is None:
        return [(("secret",), "inference_risk needs a secret: give params.secret or the attacker's secrets")]
    if not [c for c in (params.aux_columns or attacker.quasi_identifiers) if c != secret]:
        return [
            (
                ("aux_columns",),
                "inference_risk needs auxiliary columns: give params.aux_columns or the attacker's quasi_identifiers",
            )
        ]
    return []


@wp29_metric(
    name="inference_risk",
    check=check_secret_given,
    method=METHOD,
    params=InferenceParams,
    details=InferenceDetails,
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
    encoding = fit_gower(frames(release), release.column_types, release.orders, aux)
    numeric = release.column_types[secret] is ColumnType.NUMERIC

    def secret_of(frame: pd.DataFrame) -> np.ndarray:
        values: np.ndarray = (
            frame[secret].to_numpy(dtype=np.float64, na_value=np.nan)
            if numeric
            else frame[secret].to_numpy(dtype=object)
        )
        return values

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
        return outcome.counts, extra, fewer_attacks_note(outcome.counts.n_attacks, params.n_attacks)

    return risk_of_worst_set(ctx, params.confidence, run, "inference", InferenceSet, InferenceDetails)
