"""What the marginal utility metrics share: the reference, the params, registration defaults, the columns' check."""

from __future__ import annotations

from functools import partial

from pydantic import Field

from policycheck.metrics.base import AttackerView
from policycheck.metrics.registry import Params, metric
from policycheck.release.model import Release

REFERENCE = (
    "Annamalai, Gadotti, Rocher. A Linear Reconstruction Approach for Attribute Inference "
    "Attacks against Synthetic Data. USENIX Security 2024 (paper 001), sec. 5.3."
)


class MarginalParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns whose triples are measured; default: every column of the release."
    )
    n_triples: int | None = Field(
        None, ge=1, description="A seeded random sample of this many column triples; null measures every triple."
    )
    numeric_bins: int = Field(
        10, ge=2, le=100, description="Quantile bins of each numeric column (bins of the original)."
    )
    min_count: int = Field(10, ge=0, description="MRE only: cells whose original count is at most this are left out.")
    confidence: float = Field(
        0.95,
        gt=0,
        lt=1,
        description="Confidence of the bootstrap interval over triples (only when triples are sampled).",
    )


def analysed_columns(params: MarginalParams, release: Release) -> list[str]:
    """The distinct columns whose triples are measured, in the order named."""
    return list(dict.fromkeys(params.columns or release.columns))


def check_triples(
    params: MarginalParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: three distinct analysed columns to form triples from (sec. 5.3 measures 3-way marginals)."""
    cols = analysed_columns(params, release)
    if len(cols) >= 3:
        return []
    if params.columns:
        return [(("columns",), f"3-way marginals need three distinct columns; param columns names {len(cols)}")]
    return [((), f"3-way marginals need three analysed columns; the release has {len(cols)}")]


# The two marginal metrics read the same comparison (marginal_errors) and differ in what they report.
marginal_metric = partial(
    metric,
    family="utility",
    params=MarginalParams,
    knowledge=set(),
    inputs={"original", "synthetic"},
    column_params=("columns",),
    references=(REFERENCE,),
)
