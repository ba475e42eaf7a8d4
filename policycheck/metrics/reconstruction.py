"""Reconstruction family: attribute inference against a partially-informed attacker (paper 001).

The attacker knows every original record's quasi-identifiers and sees the
synthetic data; it tries to recover each record's secret. Three metrics:

``reconstruction_accuracy``
    Accuracy of the strongest attack (LP reconstruction, DCR, random forest,
    exact-match majority) over all original records of the release.
``reconstruction_individual_risk``
    The part of that accuracy no population-level inference explains: the
    same attacks on holdout records (never seen by the synthesizer) are the
    control, ``(acc - acc_control) / (1 - acc_control)``.
``attribute_inference_advantage``
    The attribute inference privacy game (sec. 4.1): ``2 * acc - 1`` over
    repetitions in which the target's secret bit is randomised, so 0 is no
    leakage.

Missing values: an original (or holdout) record whose secret is missing has
nothing to reconstruct, so it is left out of every accuracy (the report says
how many); it still counts in the attacker's queries through its
quasi-identifiers, where a missing value is a category of its own. Synthetic
records with a missing secret answer no query. Where a rule takes the worst
of several attacks and synthetic sets, each one's interval is computed at the
Bonferroni level (:func:`policycheck.core.stats.bonferroni`) and the rule reports
the interval of the worst (:func:`policycheck.core.stats.worst_interval`).

Shared intermediates: ``reconstruction_attacks`` (attack outcomes on the
original or holdout records of every synthetic set) and
``attribute_inference_game`` (the game's truth/guess/score per target; the DP
family derives a lower bound on epsilon from it; build its Need with
:func:`game_need`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator

from policycheck.methods.reconstruction.attacks import ATTACK_WORDS, ATTACKS, AttackConfig, AttackOutcome, run_attack
from policycheck.methods.synthesizers import BUILTIN
from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.registry import Convention, Method, Params, imported_where_used, intermediate, metric
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    import pandas as pd

    from policycheck.methods.reconstruction.game import AttributeInferenceGame
    from policycheck.methods.reconstruction.lp_attack import ReconstructionError

REFERENCE = (
    "Annamalai, Gadotti, Rocher. A Linear Reconstruction Approach for Attribute Inference "
    "Attacks against Synthetic Data. USENIX Security 2024 (paper 001)."
)
AttackName = Literal["lp", "dcr", "ml", "exact"]


class AttackParams(Params):
    """Params every reconstruction metric shares."""

    secret: str = Field(description="The secret column the attacker tries to reconstruct.")
    quasi_identifiers: list[str] | None = Field(
        None,
        description="Columns the attacker knows for every original record; default: the policy's "
        "quasi-identifiers, or every other column when the policy declares none (as in the paper).",
    )
    query_orders: list[int] = Field(
        [3],
        min_length=1,
        description="Orders k of the LP attack's queries (k-1 quasi-identifiers and the secret); "
        "3 is the paper's attack.",
    )
    n_queries: int | None = Field(
        None, ge=1, description="Query budget of the LP attack: a seeded uniform sample of the queries; null for all."
    )
    numeric_bins: int = Field(
        5, ge=2, le=100, description="Quantile bins of each numeric quasi-identifier in the LP attack's queries."
    )
    scaling: Literal["conditional", "marginal"] = Field(
        "conditional",
        description="How the LP attack answers queries from the synthetic data: 'conditional' (the paper's "
        "extension: synthetic share within the cell times the cell's original count) or 'marginal' (count times n/m).",
    )
    time_limit: float = Field(300.0, gt=0, description="Seconds the LP solver may spend on one solve.")
    n_estimators: int = Field(100, ge=1, le=2000, description="Trees of the random forest of the 'ml' attack.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the intervals.")

    @field_validator("query_orders")
    @classmethod
    def _orders_at_least_two(cls, value: list[int]) -> list[int]:
        if any(k < 2 for k in value):
            raise ValueError("every query order must be at least 2 (the secret and one quasi-identifier)")
        return sorted(set(value))


class AccuracyParams(AttackParams):
    attacks: list[AttackName] = Field(
        list(ATTACKS),
        min_length=1,
        description="Attacks to run; the rule's value is the most accurate. lp: linear reconstruction; dcr: "
        "distance to closest record (mode-collapsed); ml: random forest; exact: majority among exact matches.",
    )
    control: bool = Field(
        True, description="Also attack the holdout records (when the release has them) and report the individual part."
    )


class IndividualRiskParams(AttackParams):
    attacks: list[AttackName] = Field(
        list(ATTACKS), min_length=1, description="Attacks to run; the rule's value is the largest individual risk."
    )


class GameParams(AttackParams):
    attack: AttackName = Field("lp", description="The attack played in the game.")
    synthesizer: str = Field(
        "release",
        description="Synthesizer re-run in each repetition: 'release' (the command the release declares) or a "
        "built-in one: " + ", ".join(BUILTIN) + ".",
    )
    repetitions: int = Field(100, ge=1, le=100_000, description="Repetitions of the game (synthesizer runs).")
    targets_per_repetition: int = Field(
        1, ge=1, description="Targets whose bits are randomised per repetition (1 is the paper's game)."
    )
    synthetic_size: int | None = Field(
        None,
        ge=1,
        le=1_000_000,  # 10^7 rows took 5.7 GB per repetition: refused before any work
        description="Rows the synthesizer generates (at most 1,000,000); default: the size of the first released set.",
    )
    sample_size: int | None = Field(
        None, ge=2, description="Original records sampled per repetition (the paper samples 1,000); default: all."
    )
    positive: str | None = Field(
        None, description="Secret value counted as bit 1; default: the second of the two values in sorted order."
    )
    synthesizer_time_limit: float = Field(600.0, gt=0, description="Seconds an external synthesizer run may take.")

    @field_validator("synthesizer")
    @classmethod
    def _known_synthesizer(cls, value: str) -> str:
        if value != "release" and value not in BUILTIN:
            raise ValueError(f"unknown synthesizer {value!r}: expected 'release' or one of {', '.join(BUILTIN)}")
        return value


# ---------------------------------------------------------------- helpers


def _attack_config(params: AttackParams) -> AttackConfig:
    return AttackConfig(
        query_orders=tuple(params.query_orders),
        n_queries=params.n_queries,
        numeric_bins=params.numeric_bins,
        scaling=params.scaling,
        time_limit=params.time_limit,
        n_estimators=params.n_estimators,
    )


def _config_items(config: AttackConfig) -> dict[str, Any]:
    return {
        "query_orders": config.query_orders,
        "n_queries": config.n_queries,
        "numeric_bins": config.numeric_bins,
        "scaling": config.scaling,
        "time_limit": config.time_limit,
        "n_estimators": config.n_estimators,
    }


def resolve_columns(ctx: EvaluationContext, secret: str, quasi_identifiers: tuple[str, ...] | None) -> tuple[str, ...]:
    """The attacker's quasi-identifiers: the param, else the policy's, else every other column.

    Raises EvaluationError when the secret is not one of the policy's declared
    secrets, or when no quasi-identifier remains.
    """
    columns = ctx.release.columns
    if secret not in columns:
        raise EvaluationError(f"secret column {secret!r} is not in the release")
    if ctx.attacker.secrets and secret not in ctx.attacker.secrets:
        raise EvaluationError(
            f"secret {secret!r} is not among the policy's declared secrets ({', '.join(ctx.attacker.secrets)})"
        )
    qis = quasi_identifiers or ctx.attacker.quasi_identifiers or tuple(c for c in columns if c != secret)
    # A column listed twice is one piece of knowledge (and one column of the queries).
    qis = tuple(dict.fromkeys(c for c in qis if c != secret))
    if not qis:
        raise EvaluationError(f"the attack on secret {secret!r} has no quasi-identifier to work from")
    return qis


def check_secret_declared(params: AttackParams, release: Release, attacker) -> list[tuple[tuple[str, ...], str]]:
    """Before running: the attacked secret must be one the policy declares (as :func:`resolve_columns` demands)."""
    if attacker.secrets and params.secret not in attacker.secrets:
        return [
            (
                ("secret",),
                f"secret {params.secret!r} is not among the policy's declared secrets "
                f"({', '.join(attacker.secrets)}): declare it under attacker.secrets or attack one of them",
            )
        ]
    return []


def secret_classes(release: Release, secret: str) -> tuple[Any, ...]:
    """The secret's domain: values seen in the original or any synthetic set (known to the attacker)."""
    import pandas as pd

    values = pd.concat([release.original.frame[secret]] + [s.frame[secret] for s in release.synthetic]).dropna()
    return tuple(sorted(pd.unique(values), key=str))


def _numeric(release: Release) -> tuple[str, ...]:
    return tuple(c for c, t in release.column_types.items() if t is ColumnType.NUMERIC)


def _plain(value: Any) -> Any:
    """Numpy scalars to Python (details must be JSON)."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    return value


# ---------------------------------------------------------------- attacks on the release


# The methods section (registry.Method); the paper's public code is synthetic-society/recon-synth.
RECONSTRUCTION_SOURCE = "paper 001, sec. 4.2 (LP reconstruction), sec. 4.3 (prior attacks: DCR, ML inference)"
RECONSTRUCTION_ACCURACY_METHOD = Method(
    definition="Accuracy of the most accurate (set, attack) pair at inferring the secret of the original records "
    "from their quasi-identifiers: LP linear reconstruction from 3-way conditional queries (HiGHS), exact-match "
    "majority, DCR, random forest; Clopper-Pearson interval at the Bonferroni level.",
    source=RECONSTRUCTION_SOURCE,
)
INDIVIDUAL_RISK_METHOD = Method(
    definition="(acc - acc_control) / (1 - acc_control) = 1 - err / err_control for the (set, attack) pair with the "
    "largest risk, the control being the same attack on holdout records; Koopman score interval of the error ratio.",
    source=f"{RECONSTRUCTION_SOURCE}; base rate: sec. 7.2; control as anonymeter's (Giomi et al. 2023)",
    conventions=(
        Convention(
            topic="base rate",
            peer="paper 001, sec. 4.1 and 7.2",
            theirs="the game removes the base rate by randomising each target's secret and re-running the "
            "synthesizer; on a release as given, the attacks' accuracy on the original records "
            "(reconstruction_accuracy, the figure shown as theirs) still holds it",
            ours="the same attacks on holdout records are the control: 1 - err / err_control",
            effect="reconstruction_individual_risk/control",
        ),
    ),
)
ADVANTAGE_METHOD = Method(
    definition="2 acc - 1 of the attack in the attribute-inference privacy game: a target with unique "
    "quasi-identifiers, its secret randomised, the synthesizer re-run; Clopper-Pearson interval, mapped.",
    source="paper 001, sec. 4.1",
)


@dataclass(frozen=True)
class AttackTask:
    """One attack on one synthetic set (an executor work item)."""

    attack: str
    targets: pd.DataFrame
    synthetic: pd.DataFrame
    quasi_identifiers: tuple[str, ...]
    numeric: tuple[str, ...]
    secret: str
    classes: tuple[Any, ...]
    config: AttackConfig
    seed: np.random.SeedSequence


def run_attack_task(task: AttackTask) -> AttackOutcome:
    """Run one :class:`AttackTask` (top-level, so process pools can pickle it)."""
    import numpy as np

    return run_attack(
        task.attack,
        task.targets,
        task.synthetic,
        task.quasi_identifiers,
        task.numeric,
        task.secret,
        task.classes,
        task.config,
        np.random.default_rng(task.seed),
    )


@dataclass(frozen=True)
class ReconstructionRun:
    """Outcomes of every attack on every synthetic set, for one set of attacked records."""

    records: str  # "original" or "holdout"
    secret: str
    quasi_identifiers: tuple[str, ...]
    classes: tuple[Any, ...]
    truth: np.ndarray  # (n,) index into classes, -1 where the secret is missing
    set_names: tuple[str, ...]
    attacks: tuple[str, ...]
    outcomes: dict[tuple[int, str], AttackOutcome]

    def correct(self, set_index: int, attack: str) -> int:
        """Attacked records whose known secret the attack guessed (a guess is never -1)."""
        return int((self.outcomes[(set_index, attack)].guess == self.truth).sum())

    @property
    def n(self) -> int:
        """Attacked records whose secret is known: the denominator of every accuracy."""
        import numpy as np

        return int(np.count_nonzero(self.truth >= 0))

    @property
    def missing(self) -> int:
        """Attacked records whose secret is missing, left out of the accuracies."""
        return int(self.truth.size) - self.n


def _guarded_attack(task: AttackTask) -> AttackOutcome | ReconstructionError:
    """Run one task; a solver failure comes back as a value, so one run's failure spares the others."""
    from policycheck.methods.reconstruction.lp_attack import ReconstructionError

    try:
        return run_attack_task(task)
    except ReconstructionError as exc:
        return exc


def _attack_tasks(
    ctx: EvaluationContext,
    *,
    records: str,
    secret: str,
    quasi_identifiers: tuple[str, ...] | None,
    attacks: tuple[str, ...],
    query_orders: tuple[int, ...] = (3,),
    n_queries: int | None = None,
    numeric_bins: int = 5,
    scaling: str = "conditional",
    time_limit: float = 300.0,
    n_estimators: int = 100,
) -> tuple[list[AttackTask], Callable[[list[AttackOutcome]], ReconstructionRun]]:
    """One run's work items (each attack on each synthetic set) and how to assemble their outcomes.

    ``records`` names whose secrets are attacked: ``original`` (the release's
    members) or ``holdout`` (the control: same attacks, records the
    synthesizer never saw).
    """
    import numpy as np

    from policycheck.methods.reconstruction.baselines import class_codes

    release = ctx.release
    dataset = release.original if records == "original" else release.holdout
    if dataset is None:
        raise EvaluationError("the control attack needs a holdout dataset, and the release has none")
    qis = resolve_columns(ctx, secret, quasi_identifiers)
    if dataset.frame[secret].isna().all():
        raise EvaluationError(
            f"secret column {secret!r} is missing in every {dataset.role} record, so there is no secret to "
            "reconstruct; choose a secret column with values."
        )
    classes = secret_classes(release, secret)
    config = AttackConfig(tuple(query_orders), n_queries, numeric_bins, scaling, time_limit, "auto", n_estimators)
    targets = dataset.frame[list(qis)]
    tasks, keys = [], []
    for i, synthetic in enumerate(release.synthetic):
        for attack in attacks:
            seed = ctx.seed_for("reconstruction", records, secret, i, attack)
            tasks.append(
                AttackTask(
                    attack,
                    targets,
                    synthetic.frame[[*qis, secret]],
                    qis,
                    _numeric(release),
                    secret,
                    classes,
                    config,
                    seed,
                )
            )
            keys.append((i, attack))
    truth = class_codes(dataset.frame[secret], np.array(classes, dtype=object))

    def assemble(outcomes: list[AttackOutcome]) -> ReconstructionRun:
        return ReconstructionRun(
            records,
            secret,
            qis,
            classes,
            truth,
            tuple(s.name for s in release.synthetic),
            tuple(attacks),
            dict(zip(keys, outcomes, strict=True)),
        )

    return tasks, assemble


def reconstruction_attacks_batch(
    ctx: EvaluationContext, requests: list[dict[str, Any]]
) -> list[ReconstructionRun | Exception]:
    """Every requested run's attacks (sec. 4.2, 4.3) in one executor call.

    The original records' run and its holdout control are typically one LP
    each: mapped together they solve side by side. Returns, per request, its
    run or the error that stopped it.
    """
    from policycheck.methods.reconstruction.lp_attack import ReconstructionError
    from policycheck.methods.reconstruction.queries import compile_counting

    prepared: list[Any] = []
    for request in requests:
        try:
            prepared.append(_attack_tasks(ctx, **request))
        except EvaluationError as exc:
            prepared.append(exc)
    tasks = [task for p in prepared if not isinstance(p, Exception) for task in p[0]]
    if any(task.attack == "lp" for task in tasks) and ctx.executor.workers > 1:
        compile_counting()
    label = "reconstruction attacks on " + " and ".join(dict.fromkeys(r["records"] for r in requests)) + " records"
    results = ctx.executor.map(_guarded_attack, tasks, lambda d, t: ctx.progress(label, d, t))
    out: list[ReconstructionRun | Exception] = []
    start = 0
    for p in prepared:
        if isinstance(p, Exception):
            out.append(p)
            continue
        mine = results[start : start + len(p[0])]
        start += len(p[0])
        failure = next((r for r in mine if isinstance(r, ReconstructionError)), None)
        if failure is not None:
            out.append(EvaluationError(f"{failure}; raise the param time_limit or lower n_queries"))
        else:
            out.append(p[1](mine))
    return out


@intermediate(
    name="reconstruction_attacks",
    description="Secret guesses of each attack for every original (or holdout) record, per synthetic set.",
    inputs={"original", "holdout", "synthetic"},
    batch=reconstruction_attacks_batch,
)
def reconstruction_attacks(ctx: EvaluationContext, **request: Any) -> ReconstructionRun:
    """Run every attack against every synthetic set, through the executor (see :func:`_attack_tasks`)."""
    (result,) = reconstruction_attacks_batch(ctx, [request])
    if isinstance(result, Exception):
        raise result
    return result


def _attack_needs(params: AttackParams, records: str, attacks: tuple[str, ...]) -> Need:
    return Need.of(
        "reconstruction_attacks",
        records=records,
        secret=params.secret,
        quasi_identifiers=tuple(params.quasi_identifiers) if params.quasi_identifiers else None,
        attacks=tuple(attacks),
        **_config_items(_attack_config(params)),
    )


def individual_risk(
    correct: int, n: int, control_correct: int, n_control: int, confidence: float
) -> tuple[float, tuple[float, float]]:
    """Control-corrected accuracy ``(acc - acc_c) / (1 - acc_c)`` and its interval.

    The risk is one minus the ratio of the error rates on the attacked and on
    the control records, ``1 - err / err_c``; its interval is Koopman's score
    interval of that ratio (:func:`policycheck.core.stats.ratio_score_interval`),
    one interval for the two samples together. (Joining opposite ends of two
    separate intervals would be far wider: dividing by ``1 - acc_c = 0.15``
    turns two 2-point intervals into a 30-point one.) A control that makes no
    error leaves nothing to measure: the risk is 0 when the attack makes none
    either, else below -1. Values below -1 (the attack errs more than twice as
    often on the attacked records as on the control) are reported as -1.
    """
    from policycheck.core import stats

    errors, control_errors = n - correct, n_control - control_correct
    if control_errors == 0:
        value = 0.0 if errors == 0 else -1.0
    else:
        value = max(1.0 - (errors / n) / (control_errors / n_control), -1.0)
    ratio_lo, ratio_hi = stats.ratio_score_interval(errors, n, control_errors, n_control, confidence)
    return value, (max(1.0 - ratio_hi, -1.0), 1.0 - ratio_lo)


def _attack_rows(run: ReconstructionRun, control: ReconstructionRun | None, level: float) -> list[dict[str, Any]]:
    """One JSON row per (set, attack): accuracy, control, individual part; intervals at ``level``."""
    from policycheck.core import stats

    rows = []
    for (i, attack), outcome in run.outcomes.items():
        correct = run.correct(i, attack)
        row: dict[str, Any] = {
            "set": run.set_names[i],
            "attack": attack,
            "description": ATTACK_WORDS[attack],
            "accuracy": correct / run.n,
            "interval": list(stats.clopper_pearson(correct, run.n, level)),
            "correct": correct,
            "records": run.n,
        }
        if outcome.info:
            row["lp"] = dict(outcome.info)
        if control is not None:
            c_correct = control.correct(i, attack)
            risk, risk_interval = individual_risk(correct, run.n, c_correct, control.n, level)
            row.update(
                control_accuracy=c_correct / control.n,
                control_interval=list(stats.clopper_pearson(c_correct, control.n, level)),
                individual_risk=risk,
                individual_interval=list(risk_interval),
            )
        rows.append(row)
    return rows


def _bonferroni(run: ReconstructionRun, confidence: float) -> dict[str, Any]:
    """The level of each (set, attack) interval, so that the worst one's holds at ``confidence``."""
    from policycheck.core import stats

    k = len(run.outcomes)
    return {
        "alternatives": k,
        "level": stats.bonferroni(confidence, k),
        "rule": f"each of the {k} (synthetic set, attack) intervals at 1 - (1 - {confidence}) / {k} (Bonferroni); "
        "the rule's interval runs from the largest lower end to the largest upper end",
    }


def _known_records(run: ReconstructionRun, control: ReconstructionRun | None) -> dict[str, Any]:
    """How many attacked records have a secret, and the stated rule for those that do not."""
    out = {
        "records_with_secret": run.n,
        "records_without_secret": run.missing,
        "missing_values": "records whose secret is missing are left out of every accuracy; a missing "
        "quasi-identifier is a category of its own in the queries",
    }
    if control is not None:
        out.update(control_records_with_secret=control.n, control_records_without_secret=control.missing)
    return out


def _baselines(release: Release, run: ReconstructionRun) -> list[dict[str, Any]]:
    """Majority-class baseline per set: guess the synthetic data's most common secret for everyone."""
    import numpy as np

    from policycheck.methods.reconstruction.baselines import class_codes

    out = []
    for i, synthetic in enumerate(release.synthetic):
        codes = class_codes(synthetic.frame[run.secret], np.array(run.classes, dtype=object))
        majority = int(np.bincount(codes[codes >= 0], minlength=len(run.classes)).argmax())
        correct = int((run.truth == majority).sum())  # records with a missing secret are -1: never counted
        out.append({"set": run.set_names[i], "guess": _plain(run.classes[majority]), "accuracy": correct / run.n})
    return out


def _accuracy_chart(rows: list[dict[str, Any]], baseline: float, with_control: bool) -> dict[str, Any]:
    series = []
    for set_name in dict.fromkeys(r["set"] for r in rows):
        mine = [r for r in rows if r["set"] == set_name]
        series.append(
            {
                "name": f"{set_name}: original records",
                "x": [r["attack"] for r in mine],
                "y": [r["accuracy"] for r in mine],
            }
        )
        if with_control:
            series.append(
                {
                    "name": f"{set_name}: holdout records (control)",
                    "x": [r["attack"] for r in mine],
                    "y": [r["control_accuracy"] for r in mine],
                }
            )
    return {
        "kind": "bar",
        "title": "Attack accuracy per attack",
        "x_label": "attack",
        "y_label": "accuracy",
        "series": series,
        "reference_lines": [{"axis": "y", "value": baseline, "label": "guess the most common secret"}],
    }


def _common_details(ctx: EvaluationContext, run: ReconstructionRun, params: AttackParams) -> dict[str, Any]:
    from policycheck.methods.reconstruction.lp_attack import solver_description

    return {
        "secret": run.secret,
        "classes": [_plain(c) for c in run.classes],
        "quasi_identifiers": list(run.quasi_identifiers),
        "attacker": "partially informed: knows every original record's quasi-identifiers and sees the synthetic data",
        "solver": solver_description(params.time_limit),
        "query_orders": list(params.query_orders),
        "n_queries": params.n_queries,
        "scaling": params.scaling,
        "seed": ctx.seed,
    }


@metric(
    name="reconstruction_accuracy",
    method=RECONSTRUCTION_ACCURACY_METHOD,
    family="reconstruction",
    params=AccuracyParams,
    knowledge={Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC},
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    value_range=(0.0, 1.0),
    column_params=("secret", "quasi_identifiers"),
    check=check_secret_declared,
    needs=lambda p, r: (
        [_attack_needs(p, "original", tuple(p.attacks))]
        + ([_attack_needs(p, "holdout", tuple(p.attacks))] if p.control and r.holdout is not None else [])
    ),
    meaning="The share of real people whose secret the strongest attack guesses correctly from the synthetic "
    "data and everyone's other attributes. Compare it with the baseline of guessing the most common value: "
    "accuracy well above it, and above the same attack on people outside the data, means the release leaks secrets.",
    remedy="Release fewer synthetic records, use a synthesizer that copies fewer real records (or a differentially "
    "private one), or coarsen the quasi-identifiers the attacker can link on.",
    references=(REFERENCE,),
)
def reconstruction_accuracy(ctx: EvaluationContext, params: AccuracyParams, needs) -> MetricResult:
    """Accuracy of the strongest attribute-inference attack on the original records (worst over attacks and sets).

    Each (set, attack) accuracy has a Clopper-Pearson interval at the
    Bonferroni level for the number of alternatives; the rule reports the
    largest accuracy and the interval of the largest. The baseline is what
    the attacker gets without the release's individual information: the
    larger of guessing the synthetic data's most common secret for everyone
    and, with a holdout, the same attack on the holdout records.
    """
    from policycheck.core import stats

    run: ReconstructionRun = needs[_attack_needs(params, "original", tuple(params.attacks))]
    control_need = _attack_needs(params, "holdout", tuple(params.attacks))
    control: ReconstructionRun | None = needs.get(control_need)
    bonferroni = _bonferroni(run, params.confidence)
    rows = _attack_rows(run, control, bonferroni["level"])
    worst = max(rows, key=lambda r: r["accuracy"])
    interval = stats.worst_interval([tuple(r["interval"]) for r in rows])
    baselines = _baselines(ctx.release, run)
    majority = next(b["accuracy"] for b in baselines if b["set"] == worst["set"])
    baseline, label = majority, "guessing the synthetic data's most common secret for everyone"
    if control is not None and worst["control_accuracy"] > majority:
        baseline, label = worst["control_accuracy"], f"the same attack ({worst['attack']}) on holdout records"
    details = _common_details(ctx, run, params)
    details.update(
        attacks=rows,
        baselines=baselines,
        worst={"set": worst["set"], "attack": worst["attack"]},
        control=control is not None,
        bonferroni=bonferroni,
        **_known_records(run, control),
        baseline={
            "value": baseline,
            "label": label,
            "majority": majority,
            "control": worst.get("control_accuracy"),
            "rule": "the larger of the majority guess and the worst attack on holdout records",
        },
    )
    notes = []
    if interval[0] <= baseline:
        notes.append(
            f"No attack is clearly more accurate than {label} ({baseline:.3f}); the value mostly reflects "
            "population-level inference."
        )
    if control is None:
        notes.append(
            "Accuracy mixes individual leakage with population-level inference; a holdout control separates them."
        )
    if run.missing:
        notes.append(f"{run.missing} original records have no value of {run.secret!r} and are left out.")
    return MetricResult(
        value=worst["accuracy"],
        interval=interval,
        confidence=params.confidence,
        details=details,
        charts=(_accuracy_chart(rows, majority, control is not None),),
        notes=tuple(notes),
        baseline=baseline,
        baseline_label=label,
        sample_size=run.n,
    )


@metric(
    name="reconstruction_individual_risk",
    method=INDIVIDUAL_RISK_METHOD,
    family="reconstruction",
    params=IndividualRiskParams,
    knowledge={Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC},
    inputs={"original", "synthetic", "holdout"},
    value_range=(None, 1.0),
    column_params=("secret", "quasi_identifiers"),
    check=check_secret_declared,
    needs=lambda p, r: [_attack_needs(p, "original", tuple(p.attacks)), _attack_needs(p, "holdout", tuple(p.attacks))],
    meaning="How much better the strongest attack guesses real people's secrets than it guesses those of similar "
    "people who were not in the data: 0 means the release reveals nothing about individuals beyond population "
    "trends, 1 means every secret the control misses is revealed.",
    remedy="Use a synthesizer that does not reproduce individual records (e.g. a differentially private one), "
    "release fewer synthetic records, or drop quasi-identifiers that single people out.",
    references=(
        REFERENCE,
        "Giomi et al., A Unified Framework for Quantifying Privacy Risk in Synthetic Data (anonymeter)",
    ),
)
def reconstruction_individual_risk(ctx: EvaluationContext, params: IndividualRiskParams, needs) -> MetricResult:
    """Holdout-controlled attribute-inference risk: (acc - acc_control) / (1 - acc_control), worst over attacks and sets.

    Each (set, attack) risk has Koopman's score interval at the Bonferroni
    level for the number of alternatives (see :func:`individual_risk`); the
    rule reports the largest risk and the interval of the largest. ``raw`` is
    that attack's accuracy and ``baseline`` its accuracy on the control.
    """
    from policycheck.core import stats

    if ctx.release.holdout is None:
        raise EvaluationError("reconstruction_individual_risk needs a holdout dataset, and the release has none")
    run: ReconstructionRun = needs[_attack_needs(params, "original", tuple(params.attacks))]
    control: ReconstructionRun = needs[_attack_needs(params, "holdout", tuple(params.attacks))]
    bonferroni = _bonferroni(run, params.confidence)
    rows = _attack_rows(run, control, bonferroni["level"])
    worst = max(rows, key=lambda r: r["individual_risk"])
    interval = stats.worst_interval([tuple(r["individual_interval"]) for r in rows])
    details = _common_details(ctx, run, params)
    details.update(
        attacks=rows,
        baselines=_baselines(ctx.release, run),
        worst={"set": worst["set"], "attack": worst["attack"]},
        control_records=control.n,
        bonferroni=bonferroni,
        **_known_records(run, control),
        interval_method="Koopman's score interval of the ratio of error rates err / err_control, "
        "mapped through 1 - ratio; below -1 reported as -1",
    )
    chart = {
        "kind": "bar",
        "title": "Individual part of each attack's accuracy",
        "x_label": "attack",
        "y_label": "(acc - acc_control) / (1 - acc_control)",
        "series": [
            {
                "name": s,
                "x": [r["attack"] for r in rows if r["set"] == s],
                "y": [r["individual_risk"] for r in rows if r["set"] == s],
            }
            for s in dict.fromkeys(r["set"] for r in rows)
        ],
        "reference_lines": [{"axis": "y", "value": 0.0, "label": "no individual leakage"}],
    }
    notes = []
    if run.missing or control.missing:
        notes.append(
            f"{run.missing} original and {control.missing} holdout records have no value of {run.secret!r} and "
            "are left out."
        )
    return MetricResult(
        value=worst["individual_risk"],
        interval=interval,
        confidence=params.confidence,
        details=details,
        charts=(chart,),
        notes=tuple(notes),
        raw=worst["accuracy"],
        baseline=worst["control_accuracy"],
        baseline_label=f"the same attack ({worst['attack']}) on holdout records, which the synthesizer never saw",
        sample_size=run.n,
    )


# ---------------------------------------------------------------- the privacy game


def game_need(params: GameParams) -> Need:
    """The Need of the ``attribute_inference_game`` intermediate for ``params``.

    Other families (e.g. the DP family's measured epsilon) build their Need
    here so equal settings share one game.
    """
    return Need.of(
        "attribute_inference_game",
        secret=params.secret,
        quasi_identifiers=tuple(params.quasi_identifiers) if params.quasi_identifiers else None,
        attack=params.attack,
        synthesizer=params.synthesizer,
        repetitions=params.repetitions,
        targets_per_repetition=params.targets_per_repetition,
        synthetic_size=params.synthetic_size,
        sample_size=params.sample_size,
        positive=params.positive,
        synthesizer_time_limit=params.synthesizer_time_limit,
        **_config_items(_attack_config(params)),
    )


@intermediate(
    name="attribute_inference_game",
    description="The attribute inference privacy game (paper 001, sec. 4.1): per target, its randomised secret "
    "bit (truth), the attack's guess and score.",
    inputs={"original", "synthesizer"},
)
def attribute_inference_game(
    ctx: EvaluationContext,
    *,
    secret: str,
    quasi_identifiers: tuple[str, ...] | None = None,
    attack: str = "lp",
    synthesizer: str = "release",
    repetitions: int = 100,
    targets_per_repetition: int = 1,
    synthetic_size: int | None = None,
    sample_size: int | None = None,
    positive: str | None = None,
    synthesizer_time_limit: float = 600.0,
    query_orders: tuple[int, ...] = (3,),
    n_queries: int | None = None,
    numeric_bins: int = 5,
    scaling: str = "conditional",
    time_limit: float = 300.0,
    n_estimators: int = 100,
) -> AttributeInferenceGame:
    """Play the game ``repetitions`` times in parallel, with progress."""
    import pandas as pd

    from policycheck.methods.reconstruction.game import AttributeInferenceGame, GameSetup, play_game
    from policycheck.methods.reconstruction.lp_attack import ReconstructionError
    from policycheck.methods.reconstruction.queries import compile_counting

    release = ctx.release
    qis = resolve_columns(ctx, secret, quasi_identifiers)
    values = tuple(sorted(pd.unique(release.original.frame[secret].dropna()), key=str))
    if len(values) != 2:
        raise EvaluationError(
            f"the attribute inference game needs a binary secret, and column {secret!r} has {len(values)} values"
        )
    if positive is not None:
        if positive not in [str(v) for v in values]:
            raise EvaluationError(f"param positive {positive!r} is not a value of secret column {secret!r}")
        values = tuple(sorted(values, key=lambda v: str(v) == positive))
    command = None
    if synthesizer == "release":
        command = next(
            (s.synthesizer.command for s in release.synthetic if s.synthesizer and s.synthesizer.command), None
        )
        if command is None:
            raise EvaluationError(
                "param synthesizer is 'release' but no synthetic set declares a synthesizer command; "
                f"name a built-in synthesizer ({', '.join(BUILTIN)}) instead"
            )
    rows = synthetic_size or (release.synthetic[0].n_rows if release.synthetic else len(release.original.frame))
    setup = GameSetup(
        original=release.original.frame,
        quasi_identifiers=qis,
        numeric=_numeric(release),
        secret=secret,
        classes=values,
        attack=attack,
        config=AttackConfig(tuple(query_orders), n_queries, numeric_bins, scaling, time_limit, "auto", n_estimators),
        synthesizer="command" if command else synthesizer,
        command=command,
        workdir=str(ctx.base_dir),
        synthetic_size=rows,
        sample_size=sample_size,
        targets_per_repetition=targets_per_repetition,
        synthesizer_time_limit=synthesizer_time_limit,
    )
    seeds = ctx.seed_for("attribute_inference_game", secret, attack, synthesizer).spawn(repetitions)
    if attack == "lp" and ctx.executor.workers > 1:
        compile_counting()
    try:
        game = play_game(setup, seeds, ctx.executor, lambda d, t: ctx.progress("attribute inference game", d, t))
    except ReconstructionError as exc:
        raise EvaluationError(str(exc)) from None
    return AttributeInferenceGame(game.truth, game.guess, game.score, {**game.params, "seed": ctx.seed})


@metric(
    name="attribute_inference_advantage",
    method=ADVANTAGE_METHOD,
    family="reconstruction",
    params=GameParams,
    knowledge={Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC},
    inputs={"original", "synthetic", "synthesizer"},
    value_range=(-1.0, 1.0),
    column_params=("secret", "quasi_identifiers"),
    check=check_secret_declared,
    needs=lambda p, r: [game_need(p)],
    meaning="In a repeated test where one person's secret is replaced by a coin flip before the synthesizer runs, "
    "how much better than chance the attack recovers that coin flip: 0 means no individual leakage, 1 means "
    "the secret is always recovered.",
    remedy="Use a synthesizer with individual-level protection (e.g. differential privacy with a small epsilon) "
    "or release fewer synthetic records.",
    references=(REFERENCE,),
)
def attribute_inference_advantage(ctx: EvaluationContext, params: GameParams, needs) -> MetricResult:
    """Advantage 2*acc - 1 of the attack in the attribute inference privacy game (sec. 4.1)."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.reconstruction.lp_attack import solver_description

    game: AttributeInferenceGame = needs[game_need(params)]
    n = int(game.truth.size)
    correct = int((game.truth == game.guess).sum())
    lo, hi = stats.clopper_pearson(correct, n, params.confidence)
    pos, neg = game.score[game.truth == 1], game.score[game.truth == 0]
    auc = stats.roc_auc(pos, neg)
    truth, score = game.truth, game.score

    def auc_of(idx: np.ndarray) -> float:
        t, s = truth[idx], score[idx]
        return stats.roc_auc(s[t == 1], s[t == 0])

    auc_interval = stats.bootstrap_interval(
        auc_of, n, ctx.rng("attribute_inference_game", "auc"), confidence=params.confidence
    )
    fpr, tpr = stats.roc_curve(pos, neg)
    details = {
        "accuracy": correct / n,
        "accuracy_interval": [lo, hi],
        "auc": None if np.isnan(auc) else auc,
        "auc_interval": [None if np.isnan(v) else v for v in auc_interval],
        "targets": n,
        "correct": correct,
        "game": {k: _plain(v) for k, v in game.params.items()},
        "solver": solver_description(params.time_limit) if params.attack == "lp" else None,
    }
    chart = {
        "kind": "line",
        "title": f"ROC of the {params.attack} attack in the attribute inference game",
        "x_label": "false positive rate",
        "y_label": "true positive rate",
        "series": [
            {"name": params.attack, "x": [float(v) for v in fpr], "y": [float(v) for v in tpr]},
            {"name": "chance", "x": [0.0, 1.0], "y": [0.0, 1.0]},
        ],
    }
    return MetricResult(
        value=2 * correct / n - 1,
        interval=(2 * lo - 1, 2 * hi - 1),
        confidence=params.confidence,
        details=details,
        charts=(chart,),
    )


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    "AttributeInferenceGame": ("policycheck.methods.reconstruction.game", "AttributeInferenceGame"),
    "GameSetup": ("policycheck.methods.reconstruction.game", "GameSetup"),
    "ReconstructionError": ("policycheck.methods.reconstruction.lp_attack", "ReconstructionError"),
    "class_codes": ("policycheck.methods.reconstruction.baselines", "class_codes"),
    "compile_counting": ("policycheck.methods.reconstruction.queries", "compile_counting"),
    "play_game": ("policycheck.methods.reconstruction.game", "play_game"),
    "solver_description": ("policycheck.methods.reconstruction.lp_attack", "solver_description"),
    "stats": ("policycheck.core.stats", None),
}


__getattr__ = imported_where_used(__name__, _IMPORTED_WHERE_USED)
