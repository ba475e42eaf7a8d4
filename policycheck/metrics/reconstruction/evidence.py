"""The evidence both attacks-on-the-release rules report: the attacker, the solver, every (set, attack) row.

:class:`ReconstructionDetails` holds what :mod:`.reconstruction_accuracy` and
:mod:`.reconstruction_individual_risk` share; each extends it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from policycheck.metrics.base import EvaluationContext, Knowledge
from policycheck.metrics.combinators import BonferroniNote
from policycheck.metrics.details import Details, detail
from policycheck.metrics.reconstruction.columns import plain
from policycheck.metrics.reconstruction.params import AttackParams, check_secret_declared
from policycheck.metrics.reconstruction.rows import AttackRow, MajorityGuess
from policycheck.metrics.registry import metric

if TYPE_CHECKING:
    from policycheck.metrics.reconstruction.reconstruction_attacks import ReconstructionRun

REFERENCE = (
    "Annamalai, Gadotti, Rocher. A Linear Reconstruction Approach for Attribute Inference "
    "Attacks against Synthetic Data. USENIX Security 2024 (paper 001)."
)
# The methods section (registry.Method); the paper's public code is synthetic-society/recon-synth.
RECONSTRUCTION_SOURCE = "paper 001, sec. 4.2 (LP reconstruction), sec. 4.3 (prior attacks: DCR, ML inference)"
ATTACKER = "partially informed: knows every original record's quasi-identifiers and sees the synthetic data"
MISSING_VALUES = (
    "records whose secret is missing are left out of every accuracy; a missing "
    "quasi-identifier is a category of its own in the queries"
)

# The family's rules all face the partially-informed attacker of paper 001 and attack one declared secret.
reconstruction_metric = partial(
    metric,
    family="reconstruction",
    knowledge={Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC},
    column_params=("secret", "quasi_identifiers"),
    check=check_secret_declared,
)


class Solver(Details):
    """The pinned LP solver (policycheck.methods.reconstruction.lp_attack.solver_description)."""

    library: str = detail("Library")
    version: str = detail("Version")
    options: dict[str, Any] = detail("Options")
    time_limit: float = detail("Time limit per solve", unit="seconds")
    form: str = detail("Form")


class WorstPair(Details):
    """The (synthetic set, attack) pair the rule reports."""

    set: str = detail("Synthetic set")
    attack: str = detail("Attack")


class ReconstructionDetails(Details):
    """What both rules on the attacks against the release report."""

    secret: str = detail("Secret attacked")
    classes: list[Any] = detail("The secret's values", help="seen in the original or any synthetic set")
    quasi_identifiers: list[str] = detail("Quasi-identifiers the attacker knows")
    attacker: str = detail("Attacker")
    solver: Solver = detail("LP solver")
    query_orders: list[int] = detail("LP query orders")
    n_queries: int | None = detail("LP query budget", help="none: every query")
    scaling: str = detail("LP answer scaling")
    seed: int = detail("Run seed")
    attacks: list[AttackRow] = detail("Each attack on each synthetic set")
    baselines: list[MajorityGuess] = detail("Guessing the most common synthetic secret")
    worst: WorstPair = detail("Pair reported")
    bonferroni: BonferroniNote = detail("Worst pair, at the Bonferroni level")
    records_with_secret: int = detail("Original records with a secret", unit="records")
    records_without_secret: int = detail("Original records without a secret", unit="records")
    missing_values: str = detail("Missing values")
    control_records_with_secret: int | None = detail("Holdout records with a secret", unit="records")
    control_records_without_secret: int | None = detail("Holdout records without a secret", unit="records")


def run_evidence(
    ctx: EvaluationContext, run: ReconstructionRun, control: ReconstructionRun | None, params: AttackParams
) -> dict[str, Any]:
    """The fields of :class:`ReconstructionDetails` that describe the attacker, the solver and the records."""
    from policycheck.methods.reconstruction.lp_attack import solver_description

    return {
        "secret": run.secret,
        "classes": [plain(c) for c in run.classes],
        "quasi_identifiers": list(run.quasi_identifiers),
        "attacker": ATTACKER,
        "solver": Solver(**solver_description(params.time_limit)),
        "query_orders": list(params.query_orders),
        "n_queries": params.n_queries,
        "scaling": params.scaling,
        "seed": ctx.seed,
        "records_with_secret": run.n,
        "records_without_secret": run.missing,
        "missing_values": MISSING_VALUES,
        "control_records_with_secret": None if control is None else control.n,
        "control_records_without_secret": None if control is None else control.missing,
    }


def synthetic_secrets(ctx: EvaluationContext, secret: str) -> list[Any]:
    """The secret column of every synthetic set (what the majority guess counts)."""
    return [s.frame[secret] for s in ctx.release.synthetic]
