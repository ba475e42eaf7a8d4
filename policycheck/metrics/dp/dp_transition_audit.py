"""The shared intermediate ``dp_transition_audit``: a synthesizer's transition matrix and its audit (paper 004).

``Pr[m | n]``, the probability that the synthesizer outputs ``m`` from the
confidential table ``n`` (sec. 3), from a built-in family (Multinomial-Dirichlet,
sec. 4.1; the Laplace sanitizer, sec. 4.2) or a matrix file; its audit gives
the epsilon (eq. 3) and the delta of (epsilon, delta)-probabilistic DP at a
target epsilon, which ``dp_transition_epsilon`` and ``dp_transition_delta``
report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from policycheck.core.errors import EvaluationError
from policycheck.methods.dp import matrix_audit, matrix_families, transition_matrix
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.metrics.details import Details, detail
from policycheck.metrics.dp.common import REFERENCE, json_number
from policycheck.metrics.registry import Params, intermediate

#: References of both transition-matrix rules.
TRANSITION_REFERENCES = (
    REFERENCE,
    "Machanavajjhala, Kifer, Abowd, Gehrke, Vilhuber. Privacy: theory meets practice on the map. ICDE 2008.",
)
#: Offending cells listed in the details.
LISTED_CELLS = 50


class TransitionParams(Params):
    family: Literal["multinomial_dirichlet", "laplace", "matrix"] = Field(
        description="Where Pr[m | n] comes from: the Multinomial-Dirichlet synthesizer (sec. 4.1), the Laplace "
        "sanitizer (sec. 4.2) or a matrix file."
    )
    n: int | None = Field(None, ge=1, le=10_000, description="Records in the confidential table (built-in families).")
    k: int = Field(2, ge=2, le=64, description="Cells of the table (built-in families; alpha's length wins).")
    alpha: float | list[float] | None = Field(
        None, description="Dirichlet prior sample size per cell (one number for every cell, or one per cell); > 0."
    )
    m: int | None = Field(None, ge=1, description="Records in the synthetic table (Multinomial-Dirichlet; default n).")
    draw: Literal["posterior_mean", "posterior_sample"] = Field(
        "posterior_mean",
        description="Multinomial-Dirichlet: 'posterior_mean' samples from Multinomial(m, (n + alpha)/(n + alpha_0)) "
        "(the paper's Fig. 1); 'posterior_sample' first draws the cell probabilities from Dirichlet(alpha + n) "
        "(eq. 1).",
    )
    epsilon: float | None = Field(None, gt=0, description="The Laplace sanitizer's epsilon (sets its noise scale).")
    scale: float | None = Field(None, gt=0, description="The Laplace sanitizer's noise scale, instead of epsilon.")
    known_total: bool = Field(
        True, description="Laplace sanitizer: the total n is public, so one cell is not released (as in Fig. 3)."
    )
    matrix: str | None = Field(
        None,
        description="Matrix file (CSV or NPY, path relative to the policy): rows are confidential tables, "
        "columns are outputs; CSV's first column 'n' holds each row's counts ('0 5').",
    )
    cell_probabilities: list[float] | None = Field(
        None,
        description="Cell probabilities pi of the table distribution n ~ Multinomial(n, pi) that delta is computed "
        "under; default alpha / alpha_0 for Multinomial-Dirichlet, uniform otherwise.",
    )
    table_distribution: Literal["multinomial", "uniform"] = Field(
        "multinomial", description="How likely each confidential table is when computing delta."
    )
    target_epsilon: float | None = Field(
        None, gt=0, description="Epsilon to test: outputs whose log ratio exceeds it are marked as offending."
    )
    max_matrix_cells: int = Field(
        transition_matrix.MAX_MATRIX_CELLS, ge=1, description="Largest matrix (tables x outputs) audited exactly."
    )

    @model_validator(mode="after")
    def _family_needs(self) -> TransitionParams:
        need = {"multinomial_dirichlet": ("n", "alpha"), "laplace": ("n",), "matrix": ("matrix",)}[self.family]
        missing = [name for name in need if getattr(self, name) is None]
        if missing:
            raise ValueError(f"family {self.family!r} needs param {', '.join(missing)}")
        if self.family == "laplace" and (self.epsilon is None) == (self.scale is None):
            raise ValueError("family 'laplace' needs exactly one of epsilon or scale")
        if isinstance(self.alpha, list) and (len(self.alpha) < 2 or min(self.alpha) <= 0):
            raise ValueError("alpha must list at least two positive numbers")
        if isinstance(self.alpha, float | int) and self.alpha <= 0:
            raise ValueError("alpha must be positive")
        return self


class NeighbourPair(Details):
    """The cell of the largest ratio: one output under two neighbouring tables."""

    n1: str = detail("Table")
    n2: str = detail("Neighbouring table")
    output: str = detail("Output")
    pr_m_given_n1: float = detail("Pr[output | table]", format="share")
    pr_m_given_n2: float = detail("Pr[output | neighbour]", format="share")


class OffendingCell(Details):
    """An output some neighbouring table makes more than e^epsilon times as likely."""

    n1: str = detail("Table")
    n2: str = detail("Neighbouring table")
    output: str = detail("Output")
    log_ratio: float | None = detail("|log ratio|", help="None when infinite.")


class TransitionAuditDetails(Details):
    """The audit as both transition-matrix rules report it."""

    synthesizer: str = detail("Synthesizer")
    tables: int = detail("Confidential tables", unit="tables")
    outputs: int = detail("Outputs", unit="outputs")
    neighbour_pairs: int = detail("Neighbouring pairs", unit="pairs")
    epsilon: float | None = detail("Epsilon", help="None when infinite.")
    infinite: bool = detail("Infinite epsilon")
    worst: NeighbourPair | None = detail("Largest ratio")
    target_epsilon: float | None = detail("Target epsilon")
    offending_cells: int = detail("Offending cells", unit="cells")
    offending: list[OffendingCell] = detail("Offending cells (first 50)")
    delta_unusual_output: float | None = detail("Delta: an unusual output", format="share")
    delta_any_offending: float | None = detail("Delta: any offending cell", format="share")


def audit_need(params: TransitionParams) -> Need:
    """The ``dp_transition_audit`` Need of ``params``; equal settings share one audit."""
    alpha: float | tuple[float, ...] | None = (
        tuple(float(a) for a in params.alpha) if isinstance(params.alpha, list) else params.alpha
    )
    return Need.of(
        "dp_transition_audit",
        family=params.family,
        n=params.n,
        k=params.k,
        alpha=alpha,
        m=params.m,
        draw=params.draw,
        epsilon=params.epsilon,
        scale=params.scale,
        known_total=params.known_total,
        matrix=params.matrix,
        cell_probabilities=tuple(params.cell_probabilities) if params.cell_probabilities else None,
        table_distribution=params.table_distribution,
        target_epsilon=params.target_epsilon,
        max_matrix_cells=params.max_matrix_cells,
    )


@intermediate(
    name="dp_transition_audit",
    description="A synthesizer's transition matrix Pr[m | n] and its differential-privacy audit (paper 004, sec. 3).",
)
def dp_transition_audit(
    ctx: EvaluationContext,
    *,
    family: str,
    n: int | None,
    k: int = 2,
    alpha: float | tuple[float, ...] | None = None,
    m: int | None = None,
    draw: str = "posterior_mean",
    epsilon: float | None = None,
    scale: float | None = None,
    known_total: bool = True,
    matrix: str | None = None,
    cell_probabilities: tuple[float, ...] | None = None,
    table_distribution: str = "multinomial",
    target_epsilon: float | None = None,
    max_matrix_cells: int = transition_matrix.MAX_MATRIX_CELLS,
) -> tuple[transition_matrix.TransitionMatrix, matrix_audit.Audit]:
    """Build the matrix of ``family`` and audit it at ``target_epsilon`` (paper 004, sec. 3-4)."""
    import numpy as np

    pi = list(cell_probabilities) if cell_probabilities else None
    try:
        if family == "multinomial_dirichlet":
            assert n is not None and alpha is not None  # TransitionParams requires both for this family
            prior = list(alpha) if isinstance(alpha, tuple) else [float(alpha)] * k
            mat = matrix_families.multinomial_dirichlet(n, prior, m, draw, max_matrix_cells)
            pi = pi or (np.asarray(prior) / np.sum(prior)).tolist()
        elif family == "laplace":
            assert n is not None  # TransitionParams requires it for this family
            mat = matrix_families.laplace_sanitizer(n, k, epsilon, scale, known_total, max_matrix_cells)
        else:
            assert matrix is not None  # TransitionParams requires it for this family
            path = (Path(ctx.base_dir) / matrix).resolve()
            mat = transition_matrix.load_matrix(path, n, k if n is not None else None)
            rows, outputs = mat.probabilities.shape
            transition_matrix.guard_size(rows, outputs, max_matrix_cells, f"matrix file {path}")
        if table_distribution == "uniform":
            weights = np.full(len(mat.tables), 1.0 / len(mat.tables))
        else:
            weights = matrix_audit.multinomial_table_weights(mat.tables, pi)
        result = matrix_audit.audit(
            mat,
            target_epsilon,
            weights,
            ctx.executor,
            progress=lambda d, t: ctx.progress("transition-matrix audit", d, t),
        )
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    return mat, result


def audit_details(mat: transition_matrix.TransitionMatrix, aud: matrix_audit.Audit) -> TransitionAuditDetails:
    """The audit's figures as both rules report them."""
    import math

    labels = mat.table_labels()
    worst = None
    if aud.worst is not None:
        a, b, c = aud.worst
        worst = NeighbourPair(
            n1=labels[a],
            n2=labels[b],
            output=mat.output_labels[c],
            pr_m_given_n1=float(mat.probabilities[a, c]),
            pr_m_given_n2=float(mat.probabilities[b, c]),
        )
    return TransitionAuditDetails(
        synthesizer=mat.description,
        tables=int(len(mat.tables)),
        outputs=int(mat.probabilities.shape[1]),
        neighbour_pairs=int(aud.first.size),
        epsilon=json_number(aud.epsilon),
        infinite=not math.isfinite(aud.epsilon),
        worst=worst,
        target_epsilon=aud.target_epsilon,
        offending_cells=aud.offending_count,
        offending=[
            OffendingCell(
                n1=labels[o.first],
                n2=labels[o.second],
                output=mat.output_labels[o.output],
                log_ratio=json_number(o.log_ratio),
            )
            for o in aud.offending[:LISTED_CELLS]
        ],
        delta_unusual_output=aud.delta,
        delta_any_offending=aud.delta_any_offending,
    )
