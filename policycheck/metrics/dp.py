"""Differential-privacy family: declared budgets, transition-matrix audits and measured lower bounds (paper 004).

``dp_total_epsilon``
    The total epsilon, at the policy's delta, of every synthetic set of this
    release plus the earlier releases of the same original listed in the
    ledger, by basic, advanced, Renyi and PLD composition.
``dp_transition_epsilon`` / ``dp_transition_delta``
    The audit of a synthesizer's transition matrix ``Pr[m | n]`` (sec. 3-4):
    its epsilon (eq. 3) and the delta of (epsilon, delta)-probabilistic DP at a
    target epsilon. Built-in Multinomial-Dirichlet and Laplace families, or a
    matrix file; no data needed.
``dp_epsilon_excess_membership`` / ``dp_epsilon_excess_attribute``
    How far a measured lower bound on epsilon (from the membership test on
    distances to closest record, or from the attribute inference game)
    exceeds the epsilon the release claims: above 0, the DP claim is
    contradicted by measurement.

What a manifest may declare about each synthetic set's mechanism
(``synthesizer: {name, epsilon, delta, ...}``; other keys land in
``SynthesizerInfo.params``): ``mechanism`` (pure, approximate, laplace,
gaussian, subsampled_gaussian, zcdp), ``rho``, ``noise_multiplier``,
``sampling_probability``, ``steps``; see
:mod:`policycheck.methods.dp.composition`. A set that declares none of them
and no epsilon is not differentially private: its budget is infinite.

Shared intermediate: ``dp_transition_audit`` (one transition matrix and its audit).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from policycheck.methods.dp import transition_matrix
from policycheck.metrics.base import (
    EvaluationContext,
    EvaluationError,
    Knowledge,
    MetricResult,
    Need,
)
from policycheck.metrics.membership import dcr_needs, dcrs_in_set_order
from policycheck.metrics.membership_game import MembershipGameParams, check_game_params, release_synthesizer
from policycheck.metrics.membership_game import game_need as membership_game_need
from policycheck.metrics.reconstruction import GameParams, check_secret_declared, game_need
from policycheck.metrics.registry import Method, Params, imported_where_used, intermediate, metric
from policycheck.release.claims import Claim
from policycheck.release.model import Dataset, Release, SynthesizerInfo

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.dp import lower_bound
    from policycheck.methods.dp.ledger import Ledger
    from policycheck.release.mechanism import Mechanism

REFERENCE = "Abowd, Vilhuber. How protective are synthetic data? Privacy in Statistical Databases 2008 (paper 004)."
COMPOSITION_REFERENCES = (
    "Kairouz, Oh, Viswanath. The composition theorem for differential privacy. IEEE Trans. Inf. Theory 2017.",
    "Google dp_accounting library (RDP and PLD accountants), https://github.com/google/differential-privacy.",
)
AUDIT_REFERENCES = (
    "Jagielski, Ullman, Oprea. Auditing differentially private machine learning. NeurIPS 2020.",
    "Steinke, Nasr, Jagielski. Privacy auditing with one (1) training run. NeurIPS 2023.",
)
#: What a pass of a measured lower bound means: never that the claim holds.
NOT_REFUTED = "Not refuted by this test (a test cannot verify a DP claim)."
#: Why a rule on a measured-epsilon excess decides on its value, not on its interval.
EXCESS_IS_BOUND = (
    "Decided on the value (compare: estimate): it is already a lower confidence bound on epsilon minus the claim, "
    "so it says only what the test shows; its interval's upper end bounds this attack, not the mechanism, and no "
    "sample can show that a DP claim holds."
)
#: Largest heatmap drawn: neighbour pairs (rows) and outputs (columns).
HEATMAP_ROWS = 40
HEATMAP_COLUMNS = 40
#: Offending cells listed in the details.
LISTED_CELLS = 50


def _num(value: float | None) -> float | None:
    """A JSON-safe float: None for missing, nan and infinite values."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------- declared budgets


def declared_mechanism(info: SynthesizerInfo | None, where: str) -> Mechanism | None:
    """The DP mechanism a synthetic set's manifest declares, or None when it claims no DP.

    Raises EvaluationError naming ``where`` when the declaration is invalid.
    """
    from policycheck.release import mechanism

    if info is None:
        return None
    fields = dict(info.params)
    if info.epsilon is not None:
        fields["epsilon"] = info.epsilon
    if info.delta is not None:
        fields["delta"] = info.delta
    try:
        return mechanism.declared_mechanism(fields)
    except mechanism.InvalidMechanism as exc:
        raise EvaluationError(f"{where} declares an {exc}") from None


class TotalEpsilonParams(Params):
    delta: float = Field(ge=0, lt=1, description="Total delta the policy allows across every counted release.")
    ledger: str | None = Field(
        None,
        description="Ledger file of earlier releases of the same original (path relative to the policy file); "
        "omit to count this release only.",
    )
    accountant: Literal["best", "basic", "advanced", "rdp", "pld"] = Field(
        "best",
        description="Composition used for the value: 'best' is the smallest epsilon of every accountant that "
        "applies (each is a valid upper bound); basic, advanced (Kairouz-Oh-Viswanath), rdp (Renyi) and pld "
        "(privacy loss distributions) use dp_accounting where the accounting is not a closed formula.",
    )


def claim_id(set_index: int) -> Claim:
    """Id of the epsilon a release's synthetic set claims, shared by the rules that test and count it."""
    return Claim.of_synthetic_set(set_index)


def _contributions(ctx: EvaluationContext, params: TotalEpsilonParams) -> tuple[list[dict[str, Any]], list[str]]:
    """Every counted mechanism, this release's sets first, then the ledger's releases."""
    from policycheck.methods.dp.ledger import LedgerError, load_ledger

    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for i, ds in enumerate(ctx.release.synthetic):
        mech = declared_mechanism(ds.synthesizer, f"synthetic set {ds.name!r}")
        rows.append(
            {
                "source": "this release",
                "release": ctx.release.id,
                "set": ds.name,
                "mechanism": mech,
                "claim": claim_id(i),
            }
        )
    if params.ledger:
        path = (Path(ctx.base_dir) / params.ledger).resolve()
        try:
            ledger = load_ledger(path)
        except LedgerError as exc:
            raise EvaluationError(str(exc)) from None
        mismatch = original_mismatch(ledger, path, ctx.release)
        if mismatch:
            raise EvaluationError(mismatch)
        for entry in ledger.releases:
            if entry.id == ctx.release.id:
                notes.append(f"The ledger already lists release {entry.id!r}; it was counted once, as this release.")
                continue
            for j, mech in enumerate(entry.mechanisms, start=1):
                rows.append(
                    {
                        "source": "ledger",
                        "release": entry.id,
                        "set": f"{entry.id}[{j}]",
                        "mechanism": mech,
                        "released_on": entry.released_on.isoformat() if entry.released_on else None,
                        "claim": Claim.of_ledger(entry.id, j),
                    }
                )
    return rows, notes


# The methods section (registry.Method).
TOTAL_EPSILON_METHOD = Method(
    definition="Total epsilon at the given delta of this release's sets and the ledger's earlier releases, by "
    "basic, advanced, RDP or PLD composition (dp_accounting); best takes the tightest.",
    source="Kairouz, Oh, Viswanath 2017 (composition); Google dp_accounting (RDP, PLD)",
)
TRANSITION_EPSILON_METHOD = Method(
    definition="Epsilon of a synthesizer's transition matrix Pr[m | n]: the largest |log| ratio of the "
    "probabilities of one output under neighbouring tables.",
    source="paper 004, sec. 3-4",
)
TRANSITION_DELTA_METHOD = Method(
    definition="Delta of (epsilon, delta)-probabilistic DP: the probability mass of the outputs whose log ratio "
    "under some neighbouring table exceeds the target epsilon.",
    source="paper 004, sec. 4",
)
EXCESS_MEMBERSHIP_METHOD = Method(
    definition="Lower bound on epsilon measured by a membership test (threshold chosen on one seeded half of the "
    "records, Clopper-Pearson bounds on the other) minus the declared epsilon; > 0 refutes the claim. With test: "
    "game, the test is the membership game's: target, attack and threshold chosen on its training rounds, the "
    "bound on its test rounds.",
    source="Jagielski, Ullman, Oprea 2020; Steinke, Nasr, Jagielski 2023 (privacy auditing); Annamalai, Ganev, "
    "De Cristofaro 2024 (auditing DP synthesizers with the membership game)",
)
EXCESS_ATTRIBUTE_METHOD = Method(
    definition="The same lower bound on epsilon from the attribute-inference game, minus the declared epsilon.",
    source="paper 001, sec. 4.1 (the game); Jagielski, Ullman, Oprea 2020 (the bound)",
)


def _release_mechanisms(release: Release) -> list[Mechanism]:
    """The mechanisms this release's sets declare (sets claiming no DP left out).

    An invalid declaration is refused when the manifest is read; one in a
    Release built in code is left to the evaluator, which names it.
    """
    declared = []
    for ds in release.synthetic:
        try:
            mech = declared_mechanism(ds.synthesizer, f"synthetic set {ds.name!r}")
        except EvaluationError:
            continue
        if mech is not None:
            declared.append(mech)
    return declared


def _other_accountants(accountant: str) -> str:
    from policycheck.methods.dp import composition

    return ", ".join(repr(a) for a in ("best", *composition.ACCOUNTANTS) if a != accountant)


def check_accountant(params: TotalEpsilonParams, release: Release, attacker: Any) -> list[tuple[tuple[str, ...], str]]:
    """Before running: the chosen accountant must apply to every mechanism this release's sets declare.

    (The ledger's mechanisms are judged by :func:`check_ledger`, where the
    policy loader reads the ledger.)
    """
    from policycheck.methods.dp import composition

    if params.accountant == "best":
        return []
    declared = _release_mechanisms(release)
    reason = composition.inapplicable(params.accountant, declared, params.delta) if declared else None
    if reason is None:
        return []
    return [
        (
            ("accountant",),
            f"accountant {params.accountant!r} cannot account for this release's declared "
            f"mechanisms: {reason}; use one of {_other_accountants(params.accountant)}",
        )
    ]


def original_mismatch(ledger: Ledger, path: Path, release: Release) -> str | None:
    """Why ``ledger`` (read from ``path``) is not of ``release``'s original, or None.

    Only when both hashes are known: a ledger need not name its original.
    """
    sha = release.original.sha256
    recorded = ledger.original.sha256 if ledger.original else None
    if recorded and sha and recorded.lower() != sha.lower():
        return (
            f"ledger {path}: lists releases of an original with sha256 {recorded}, "
            f"but this release's original has sha256 {sha}"
        )
    return None


def check_ledger(
    params: TotalEpsilonParams, ledger: Ledger, path: Path, release: Release
) -> list[tuple[tuple[str, ...], str]]:
    """Before running: the ledger at ``path`` must be of this release's original, and the chosen accountant
    must apply to the mechanisms it records as well as to this release's.

    The policy loader calls this where it reads the ledger (it knows the
    policy's folder), so a ledger the rule cannot count is invalid input
    (exit 2), not an evaluator error. Entries with this release's id are
    skipped, as the rule skips them.
    """
    from policycheck.methods.dp import composition

    problems: list[tuple[tuple[str, ...], str]] = []
    mismatch = original_mismatch(ledger, path, release)
    if mismatch:
        problems.append((("ledger",), mismatch))
    if params.accountant == "best":
        return problems
    own = _release_mechanisms(release)
    if own and composition.inapplicable(params.accountant, own, params.delta):
        return problems  # check_accountant names it: one mistake, one message
    recorded = [m for entry in ledger.releases if entry.id != release.id for m in entry.mechanisms]
    reason = composition.inapplicable(params.accountant, [*own, *recorded], params.delta) if recorded else None
    if reason:
        problems.append(
            (
                ("accountant",),
                f"accountant {params.accountant!r} cannot account for the mechanisms "
                f"ledger {path} records: {reason}; use one of "
                f"{_other_accountants(params.accountant)}",
            )
        )
    return problems


@metric(
    name="dp_total_epsilon",
    method=TOTAL_EPSILON_METHOD,
    family="dp",
    params=TotalEpsilonParams,
    check=check_accountant,
    knowledge={Knowledge.DECLARED_MECHANISM},
    inputs={"synthetic", "ledger"},
    value_range=(0.0, None),
    meaning="The total privacy budget (epsilon, at the policy's delta) spent on the original data by every "
    "synthetic set of this release together with the earlier releases in the ledger. Smaller is more private; "
    "a set that claims no differential privacy makes the total infinite. The total is only as true as the claims "
    "it sums: when another rule refutes one of them in the same run, this rule fails (the release is unaccounted).",
    remedy="Release fewer synthetic sets, generate them with a smaller epsilon, or retire earlier releases from "
    "the same original before publishing; record every release in the ledger.",
    references=(REFERENCE, *COMPOSITION_REFERENCES),
)
def dp_total_epsilon(ctx: EvaluationContext, params: TotalEpsilonParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Total epsilon at the policy's delta of this release and the ledger's earlier releases, composed."""
    from policycheck.methods.dp import composition

    rows, notes = _contributions(ctx, params)
    private = [r for r in rows if r["mechanism"] is not None]
    not_private = [r["set"] for r in rows if r["mechanism"] is None]
    by: dict[str, float | None] = dict.fromkeys(composition.ACCOUNTANTS, math.inf)
    reasons: dict[str, str] = {}
    pairs: list[tuple[float, float] | None] = [None] * len(rows)
    if private:
        try:
            comp = composition.compose([r["mechanism"] for r in private], params.delta)
        except ValueError as exc:
            raise EvaluationError(f"cannot compose the declared budgets: {exc}") from None
        reasons = dict(comp.reasons)
        if not not_private:
            by = dict(comp.by_accountant)
        it = iter(comp.pairs)
        pairs = [next(it) if r["mechanism"] is not None else None for r in rows]
    if not_private:
        notes.append(
            "Not differentially private (no epsilon declared): " + ", ".join(not_private) + "; the total is infinite."
        )
    usable = {k: v for k, v in by.items() if v is not None}
    if params.accountant == "best":
        accountant = min(usable, key=lambda k: (usable[k], composition.ACCOUNTANTS.index(k)))
    else:
        accountant = params.accountant
        if by.get(accountant) is None:
            raise EvaluationError(
                f"param accountant {accountant!r} cannot account for these releases: {reasons.get(accountant, '')}"
            )
    value = float(by[accountant])
    table = []
    for row, pair in zip(rows, pairs, strict=False):
        mech: Mechanism | None = row["mechanism"]
        table.append(
            {
                "source": row["source"],
                "release": row["release"],
                "set": row["set"],
                "released_on": row.get("released_on"),
                "mechanism": mech.describe() if mech else "none declared (not differentially private)",
                "declared_epsilon": mech.epsilon if mech else None,
                "declared_delta": mech.delta if mech else None,
                "rho": mech.rho if mech else None,
                "steps": mech.steps if mech else None,
                "standalone_epsilon": _num(pair[0]) if pair else None,
                "standalone_delta": _num(pair[1]) if pair else None,
            }
        )
    details = {
        "target_delta": params.delta,
        "accountant": accountant,
        "total_epsilon": _num(value),
        "infinite": not math.isfinite(value),
        "by_accountant": {k: _num(v) for k, v in by.items()},
        "not_applicable": reasons,
        "contributions": table,
        "ledger": params.ledger,
        "sets_counted": len(rows),
    }
    labels = [r["set"] for r, p in zip(rows, pairs, strict=False) if p and math.isfinite(p[0])]
    heights = [float(p[0]) for p in pairs if p and math.isfinite(p[0])]
    series = [{"name": "each set on its own (basic-composition share)", "x": labels, "y": heights}]
    if math.isfinite(value):
        series.append({"name": f"total ({accountant})", "x": ["total"], "y": [value]})
    chart = {
        "kind": "bar",
        "title": f"Privacy budget per synthetic set and in total, at delta = {params.delta:g}",
        "x_label": "synthetic set",
        "y_label": "epsilon",
        "series": series,
    }
    # NOTE: the total is only as true as every claim it sums; a claim another
    # rule refutes in the same run fails this rule (see runner.py).
    relies_on = tuple(r["claim"] for r in rows if r["mechanism"] is not None)
    return MetricResult(value=value, details=details, charts=(chart,), notes=tuple(notes), relies_on=relies_on)


# ---------------------------------------------------------------- transition-matrix audit


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


class TransitionDeltaParams(TransitionParams):
    target_epsilon: float = Field(gt=0, description="The epsilon of (epsilon, delta)-probabilistic DP.")
    delta_event: Literal["unusual_output", "any_offending"] = Field(
        "unusual_output",
        description="'unusual_output': probability that the output is one a neighbouring table would produce more "
        "than e^epsilon times as often as the true table (reproduces the paper's 0.0006); 'any_offending': "
        "probability of every (table, output) on either side of an offending cell (more conservative).",
    )


def _audit_need(params: TransitionParams) -> Need:
    alpha = params.alpha
    if isinstance(alpha, list):
        alpha = tuple(float(a) for a in alpha)
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
) -> tuple[transition_matrix.TransitionMatrix, transition_matrix.Audit]:
    """Build the matrix of ``family`` and audit it at ``target_epsilon``."""
    import numpy as np

    pi = list(cell_probabilities) if cell_probabilities else None
    try:
        if family == "multinomial_dirichlet":
            prior = list(alpha) if isinstance(alpha, tuple) else [float(alpha)] * k
            mat = transition_matrix.multinomial_dirichlet(n, prior, m, draw, max_matrix_cells)
            pi = pi or (np.asarray(prior) / np.sum(prior)).tolist()
        elif family == "laplace":
            mat = transition_matrix.laplace_sanitizer(n, k, epsilon, scale, known_total, max_matrix_cells)
        else:
            path = (Path(ctx.base_dir) / matrix).resolve()
            mat = transition_matrix.load_matrix(path, n, k if n is not None else None)
            transition_matrix.guard_size(*mat.probabilities.shape, max_matrix_cells, f"matrix file {path}")
        if table_distribution == "uniform":
            weights = np.full(len(mat.tables), 1.0 / len(mat.tables))
        else:
            weights = transition_matrix.multinomial_table_weights(mat.tables, pi)
        result = transition_matrix.audit(
            mat,
            target_epsilon,
            weights,
            ctx.executor,
            progress=lambda d, t: ctx.progress("transition-matrix audit", d, t),
        )
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    return mat, result


def _audit_details(mat: transition_matrix.TransitionMatrix, aud: transition_matrix.Audit) -> dict[str, Any]:
    labels = mat.table_labels()
    worst = None
    if aud.worst is not None:
        a, b, c = aud.worst
        worst = {
            "n1": labels[a],
            "n2": labels[b],
            "output": mat.output_labels[c],
            "pr_m_given_n1": float(mat.probabilities[a, c]),
            "pr_m_given_n2": float(mat.probabilities[b, c]),
        }
    return {
        "synthesizer": mat.description,
        "tables": int(len(mat.tables)),
        "outputs": int(mat.probabilities.shape[1]),
        "neighbour_pairs": int(aud.first.size),
        "epsilon": _num(aud.epsilon),
        "infinite": not math.isfinite(aud.epsilon),
        "worst": worst,
        "target_epsilon": aud.target_epsilon,
        "offending_cells": aud.offending_count,
        "offending": [
            {
                "n1": labels[o.first],
                "n2": labels[o.second],
                "output": mat.output_labels[o.output],
                "log_ratio": _num(o.log_ratio),
            }
            for o in aud.offending[:LISTED_CELLS]
        ],
        "delta_unusual_output": aud.delta,
        "delta_any_offending": aud.delta_any_offending,
    }


def log_ratio_heatmap(mat: transition_matrix.TransitionMatrix, aud: transition_matrix.Audit) -> dict[str, Any]:
    """The audit's log-ratio table (Fig. 2 / Fig. 4) as a heatmap, offending cells marked.

    Large tables show the neighbour pairs with the largest ratios and, among
    them, the outputs with the largest ratios.
    """
    import numpy as np

    order = np.arange(aud.first.size)
    if order.size > HEATMAP_ROWS:
        order = np.argsort(-np.nan_to_num(aud.pair_max, nan=-1.0), kind="stable")[:HEATMAP_ROWS]
        order.sort()
    p = mat.probabilities
    ratios = np.abs(transition_matrix.log_ratios(p[aud.first[order]], p[aud.second[order]]))
    columns = np.arange(ratios.shape[1])
    if columns.size > HEATMAP_COLUMNS:
        columns = np.sort(np.argsort(-np.nan_to_num(ratios, nan=-1.0).max(axis=0), kind="stable")[:HEATMAP_COLUMNS])
    ratios = ratios[:, columns]
    labels = mat.table_labels()
    filled = np.nan_to_num(ratios, nan=-1.0, posinf=np.inf)
    if aud.target_epsilon is not None:
        hits = filled > aud.target_epsilon + transition_matrix.RATIO_TOLERANCE
    else:  # mark the worst cells instead
        hits = np.isclose(filled, aud.epsilon) | np.isinf(filled)
    marked = [[int(r), int(c)] for r, c in zip(*np.nonzero(hits), strict=False)]
    shown = "" if (order.size == aud.first.size and columns.size == p.shape[1]) else " (largest shown)"
    what = f"above epsilon = {aud.target_epsilon:g}" if aud.target_epsilon is not None else "at the maximum"
    return {
        "kind": "heatmap",
        "title": f"|log ratio| of neighbouring tables per output{shown}; marked: {what}",
        "row_labels": [
            f"{labels[a]} vs {labels[b]}" for a, b in zip(aud.first[order], aud.second[order], strict=False)
        ],
        "col_labels": [mat.output_labels[c] for c in columns],
        "values": [[_num(v) for v in row] for row in ratios.tolist()],
        "marked": marked,
    }


TRANSITION_KW = {
    "family": "dp",
    "knowledge": {Knowledge.DECLARED_MECHANISM},
    "inputs": set(),
    "references": (
        REFERENCE,
        "Machanavajjhala, Kifer, Abowd, Gehrke, Vilhuber. Privacy: theory meets practice on the map. ICDE 2008.",
    ),
}


@metric(
    name="dp_transition_epsilon",
    method=TRANSITION_EPSILON_METHOD,
    params=TransitionParams,
    value_range=(0.0, None),
    needs=lambda p, r: [_audit_need(p)],
    meaning="The largest factor, as a natural log, by which any output of the synthesizer is more likely under "
    "one confidential table than under a table that differs in one person: the epsilon of differential privacy. "
    "Infinite means some output rules a table out completely.",
    remedy="Add more noise (a larger prior alpha or a smaller Laplace epsilon), or coarsen the table so every "
    "output stays possible under every table.",
    **TRANSITION_KW,
)
def dp_transition_epsilon(ctx: EvaluationContext, params: TransitionParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Epsilon of a synthesizer's transition matrix: the largest log ratio over neighbouring tables (eq. 3)."""
    mat, aud = needs[_audit_need(params)]
    notes = ()
    if not math.isfinite(aud.epsilon):
        notes = ("Some output is possible under one table and impossible under a neighbour: epsilon is infinite.",)
    return MetricResult(
        value=float(aud.epsilon), details=_audit_details(mat, aud), charts=(log_ratio_heatmap(mat, aud),), notes=notes
    )


@metric(
    name="dp_transition_delta",
    method=TRANSITION_DELTA_METHOD,
    params=TransitionDeltaParams,
    value_range=(0.0, 1.0),
    needs=lambda p, r: [_audit_need(p)],
    meaning="The probability that the synthesizer produces an output that breaks the target epsilon: the delta of "
    "(epsilon, delta)-probabilistic differential privacy, the chance that the epsilon guarantee fails.",
    remedy="Add more noise or coarsen the table so that unusual outputs are less lopsided between neighbouring "
    "tables, or accept a larger target epsilon.",
    **TRANSITION_KW,
)
def dp_transition_delta(
    ctx: EvaluationContext, params: TransitionDeltaParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Delta of (epsilon, delta)-probabilistic DP of a synthesizer's transition matrix (sec. 3)."""
    mat, aud = needs[_audit_need(params)]
    value = aud.delta if params.delta_event == "unusual_output" else aud.delta_any_offending
    details = {
        **_audit_details(mat, aud),
        "delta_event": params.delta_event,
        "table_distribution": params.table_distribution,
    }
    return MetricResult(value=float(value), details=details, charts=(log_ratio_heatmap(mat, aud),))


# ---------------------------------------------------------------- measured lower bounds


class ClaimParams(Params):
    claimed_epsilon: float | None = Field(
        None, gt=0, description="Epsilon claimed for sets whose manifest declares none (the manifest's wins)."
    )
    claimed_delta: float = Field(
        0.0, ge=0, lt=1, description="Delta claimed for sets whose manifest declares no delta."
    )


class MembershipExcessParams(ClaimParams, MembershipGameParams):
    test: Literal["distance", "game"] = Field(
        "distance",
        description="'distance': one released set, training against holdout records by their distance to it "
        "(one training run); 'game': the membership game's rates on its most exposed target (re-runs the "
        "synthesizer: give synthesizer and repetitions as for membership_inference_advantage).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence of the lower bound on epsilon.")
    columns: list[str] | None = Field(
        None,
        description="Columns of the distance to closest record (or the game's columns); all columns of the "
        "release when omitted.",
    )


class AttributeExcessParams(GameParams, ClaimParams):
    bound: Literal["one_bit", "tpr_fpr"] = Field(
        "one_bit",
        description="'one_bit': from the game's accuracy (its secret bit is a fair coin); 'tpr_fpr': from the "
        "true and false positive rates of the guesses.",
    )


def _claim(ds: Dataset | None, params: ClaimParams, where: str) -> tuple[float, float]:
    """(epsilon, delta) claimed for one set: the manifest's, else the params' fallback."""
    info = ds.synthesizer if ds is not None else None
    epsilon = info.epsilon if info and info.epsilon is not None else params.claimed_epsilon
    if epsilon is None:
        raise EvaluationError(
            f"{where} declares no epsilon to test; give param claimed_epsilon (the epsilon claimed for it)"
        )
    delta = info.delta if info and info.delta is not None else params.claimed_delta
    return float(epsilon), float(delta)


def _claim_row(
    name: str, claim: tuple[float, float], b: lower_bound.EpsilonBound, claim_of: Claim | None
) -> dict[str, Any]:
    return {
        "set": name,
        "claim": claim_of,
        "claimed_epsilon": claim[0],
        "claimed_delta": claim[1],
        "measured_epsilon_lower": _num(b.epsilon_lower),
        "measured_epsilon_estimate": _num(b.epsilon_estimate),
        "measured_epsilon_upper": _num(b.epsilon_upper),
        "excess": max(0.0, b.epsilon_lower - claim[0]),
        "contradicted": b.epsilon_lower > claim[0],
        "bound": b.bound,
        "evidence": b.evidence,
    }


def _claim_chart(rows: list[dict[str, Any]], attack: str) -> dict[str, Any]:
    names = [r["set"] for r in rows]
    return {
        "kind": "bar",
        "title": f"Claimed epsilon against the lower bound measured by the {attack}",
        "x_label": "synthetic set",
        "y_label": "epsilon",
        "series": [
            {"name": "claimed", "x": names, "y": [r["claimed_epsilon"] for r in rows]},
            {"name": "measured (lower confidence bound)", "x": names, "y": [r["measured_epsilon_lower"] for r in rows]},
        ],
    }


def _excess_result(rows: list[dict[str, Any]], confidence: float, attack: str, extra: dict[str, Any]) -> MetricResult:
    value = max(r["excess"] for r in rows)
    uppers = [r["measured_epsilon_upper"] for r in rows]
    interval = None
    if all(u is not None for u in uppers):
        interval = (value, max(max(0.0, u - r["claimed_epsilon"]) for u, r in zip(uppers, rows, strict=False)))
    if value > 0:
        bad = ", ".join(r["set"] for r in rows if r["contradicted"])
        notes = (
            f"Refuted: the measured lower bound on epsilon exceeds the claim for {bad}, at the stated "
            "confidence; the DP claim is false, and a budget that counts it is unaccounted.",
        )
    else:
        notes = (
            "Not refuted by this test (a test cannot verify a DP claim): the measured lower bound on epsilon "
            "does not exceed the claim; a stronger attack might still refute it.",
        )
    details = {
        "claims": [{**r, "claim": r["claim"] and str(r["claim"])} for r in rows],
        "confidence": confidence,
        **extra,
    }
    refutes = tuple(r["claim"] for r in rows if r["contradicted"] and r["claim"] is not None)
    return MetricResult(
        value=value,
        interval=interval,
        confidence=confidence,
        details=details,
        charts=(_claim_chart(rows, attack),),
        notes=notes,
        refutes=refutes,
    )


@metric(
    name="dp_epsilon_excess_membership",
    method=EXCESS_MEMBERSHIP_METHOD,
    family="dp",
    params=MembershipExcessParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS, Knowledge.DECLARED_MECHANISM},
    inputs={"original", "holdout", "synthetic"},
    optional_inputs={"synthesizer"},
    value_range=(0.0, None),
    column_params=("columns",),
    needs=lambda p, r: dcr_needs(p, r) if p.test == "distance" else [membership_game_need(p, r)],
    check=lambda p, r, a: check_game_params(p, r, a) if p.test == "game" else [],
    meaning="How far the epsilon proven by a membership test (telling training records from holdout records by "
    "their distance to the synthetic data, or with test: game, telling the rounds of the membership game in which "
    "its most exposed target was in the training data) exceeds the epsilon the release claims. 0 means this test does not "
    "refute the claim (no test can verify a DP claim); above 0, the claim is refuted at the stated confidence.",
    pass_means=NOT_REFUTED,
    value_is_bound=EXCESS_IS_BOUND,
    remedy="Do not publish the differential-privacy claim as stated: re-check the synthesizer's implementation and "
    "budget, or regenerate the data with a mechanism that actually meets the claimed epsilon.",
    references=(REFERENCE, *AUDIT_REFERENCES),
)
def dp_epsilon_excess_membership(
    ctx: EvaluationContext, params: MembershipExcessParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Measured lower bound on epsilon from the distance membership test (or the membership game), minus the claim."""
    from policycheck.methods.dp import lower_bound

    if params.test == "game":
        return _game_excess(ctx, params, needs[membership_game_need(params, ctx.release)])
    dcrs = dcrs_in_set_order(needs)
    rows = []
    for i, (ds, dcr) in enumerate(zip(ctx.release.synthetic, dcrs, strict=False)):
        claim = _claim(ds, params, f"synthetic set {ds.name!r}")
        try:
            b = lower_bound.membership_bound(
                dcr.training_to_syn,
                dcr.holdout_to_syn,
                ctx.rng("dp_epsilon_excess_membership", i),
                params.confidence,
                claim[1],
            )
        except ValueError as exc:
            raise EvaluationError(f"synthetic set {ds.name!r}: {exc}") from None
        rows.append(_claim_row(ds.name, claim, b, claim_id(i)))
    extra = {
        "method": "Distance-threshold membership test chosen on a seeded half of the training and holdout "
        "records and bounded on the other half: epsilon >= ln((TPR_lower - delta) / FPR_upper), Clopper-Pearson.",
        "assumption": "Training and holdout records were split at random from one population.",
    }
    return _excess_result(rows, params.confidence, "membership test", extra)


def game_bound(game: Any, confidence: float, delta: float) -> tuple[lower_bound.EpsilonBound, int, float]:
    """The membership game's lower bound on epsilon: (bound, target, largest epsilon the test rounds could certify).

    Each target's chosen attack (chosen on the training rounds) gives a
    threshold test; the target whose test bounds epsilon highest *on the
    training rounds* is bounded on the test rounds, with its threshold and
    direction chosen on the training rounds (:func:`lower_bound.selected_bound`),
    so nothing the bound uses was chosen on the rounds it counts.
    """
    import numpy as np

    from policycheck.methods.dp import lower_bound

    train, test = game.train, game.test
    best, best_key = 0, None
    for t in range(game.coins.shape[1]):
        distance = -game.scores[game.chosen[t]][:, t]  # "lower means in", as the bound reads it
        inside = game.coins[:, t] == 1
        sel_in, sel_out = distance[train][inside[train]], distance[train][~inside[train]]
        if sel_in.size == 0 or sel_out.size == 0:
            continue
        b = lower_bound.selected_bound(sel_in, sel_out, sel_in, sel_out, confidence, delta)
        key = (b.epsilon_lower, min(b.epsilon_estimate, 1e300), -t)
        if best_key is None or key > best_key:
            best, best_key = t, key
    distance = -game.scores[game.chosen[best]][:, best]
    inside = game.coins[:, best] == 1
    bound = lower_bound.selected_bound(
        distance[train][inside[train]],
        distance[train][~inside[train]],
        distance[test][inside[test]],
        distance[test][~inside[test]],
        confidence,
        delta,
    )
    n_in, n_out = int(np.sum(inside[test])), int(np.sum(~inside[test]))
    most = max(
        lower_bound.certifiable_epsilon(n_in, n_out, confidence, delta),
        lower_bound.certifiable_epsilon(n_out, n_in, confidence, delta),
    )
    return bound, best, most


def _game_excess(ctx: EvaluationContext, params: MembershipExcessParams, game: Any) -> MetricResult:
    """dp_epsilon_excess_membership with ``test: game``: the claim of the set whose synthesizer the game re-ran."""
    found = release_synthesizer(ctx.release) if params.synthesizer == "release" else None
    source = ctx.release.synthetic[found[0]] if found is not None else None
    name = source.name if source is not None else f"synthesizer {params.synthesizer!r}"
    claim = _claim(
        source if source is not None else (ctx.release.synthetic[0] if ctx.release.synthetic else None), params, name
    )
    try:
        b, target, most = game_bound(game, params.confidence, claim[1])
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    who = game.targets[target]
    label = who["id"] if who["id"] is not None else who["record"]
    row = {
        **_claim_row(name, claim, b, claim_id(found[0]) if found is not None else None),
        "target": label,
        "attack": game.chosen[target],
        "largest_certifiable_epsilon": _num(most),
    }
    extra = {
        "method": "Membership game: the target, attack, threshold and direction that bound epsilon highest on the "
        "training rounds, bounded on the test rounds: epsilon >= ln((TPR_lower - delta) / FPR_upper), Clopper-Pearson.",
        "game": game.params,
        "largest_certifiable_epsilon": _num(most),
    }
    result = _excess_result([row], params.confidence, "membership game", extra)
    reach = (
        f"This run could have certified at most epsilon = {most:.2f} (a perfect attack on its "
        f"{game.test.size} test rounds of target {label}); a claim above that cannot be refuted at this budget "
        "of rounds: more repetitions raise it (it grows with the logarithm of the rounds)."
    )
    return MetricResult(
        value=result.value,
        interval=result.interval,
        confidence=result.confidence,
        details=result.details,
        charts=result.charts,
        notes=(*result.notes, reach),
        refutes=result.refutes,
    )


@metric(
    name="dp_epsilon_excess_attribute",
    method=EXCESS_ATTRIBUTE_METHOD,
    family="dp",
    params=AttributeExcessParams,
    knowledge={Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC, Knowledge.DECLARED_MECHANISM},
    inputs={"original", "synthetic", "synthesizer"},
    value_range=(0.0, None),
    column_params=("secret", "quasi_identifiers"),
    needs=lambda p, r: [game_need(p)],
    check=check_secret_declared,
    meaning="How far the epsilon proven by the attribute inference game (guessing one person's randomised secret "
    "bit from synthetic data) exceeds the epsilon claimed for the synthesizer. 0 means this test does not "
    "refute the claim (no test can verify a DP claim); above 0, the claim is refuted at the stated confidence.",
    pass_means=NOT_REFUTED,
    value_is_bound=EXCESS_IS_BOUND,
    remedy="Do not publish the differential-privacy claim as stated: re-check the synthesizer's implementation and "
    "budget, or use a mechanism that actually meets the claimed epsilon.",
    references=(REFERENCE, *AUDIT_REFERENCES),
)
def dp_epsilon_excess_attribute(
    ctx: EvaluationContext, params: AttributeExcessParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Measured lower bound on epsilon from the attribute inference game, minus the claimed epsilon."""
    from policycheck.methods.dp import lower_bound

    game = needs[game_need(params)]
    source = ctx.release.synthetic[0] if params.synthesizer == "release" and ctx.release.synthetic else None
    name = source.name if source is not None else f"synthesizer {params.synthesizer!r}"
    claim = _claim(source, params, name)
    try:
        b = lower_bound.attribute_game_bound(game.truth, game.guess, params.confidence, claim[1], params.bound)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    extra = {
        "method": "Attribute inference game (paper 001, sec. 4.1): "
        + (
            "epsilon >= ln((acc_lower - delta) / (1 - acc_lower))"
            if params.bound == "one_bit"
            else "epsilon >= ln((TPR_lower - delta) / FPR_upper)"
        )
        + ", Clopper-Pearson.",
        "game": {
            k: (v if isinstance(v, str | int | float | bool) or v is None else str(v)) for k, v in game.params.items()
        },
    }
    # NOTE: only a game run on the release's own synthesizer tests that set's claim.
    claim_of = claim_id(0) if source is not None else None
    return _excess_result([_claim_row(name, claim, b, claim_of)], params.confidence, "attribute inference game", extra)


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    "LedgerError": ("policycheck.methods.dp.ledger", "LedgerError"),
    "Mechanism": ("policycheck.methods.dp.composition", "Mechanism"),
    "composition": ("policycheck.methods.dp.composition", None),
    "load_ledger": ("policycheck.methods.dp.ledger", "load_ledger"),
    "lower_bound": ("policycheck.methods.dp.lower_bound", None),
}


__getattr__ = imported_where_used(__name__, _IMPORTED_WHERE_USED)
