"""The shared intermediate: every attack on every synthetic set, against the original or the holdout records.

Paper 001, secs. 4.2-4.3. A rule asks for the run on the original records
(:func:`attacks_need`) and, for its control, the same run on the holdout
records; the two are batched into one executor call so their LPs solve side
by side. Rules with equal settings share one run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import EvaluationError
from policycheck.methods import cost_model
from policycheck.methods.reconstruction.attacks import AttackConfig, AttackOutcome, run_attack
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.metrics.reconstruction.columns import numeric_columns, resolve_columns, secret_classes
from policycheck.metrics.reconstruction.params import AttackParams, attack_config, config_items
from policycheck.metrics.registry import intermediate

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    import pandas as pd

    from policycheck.methods.reconstruction.lp_attack import ReconstructionError

INTERMEDIATE = "reconstruction_attacks"


def attacks_need(params: AttackParams, records: str, attacks: tuple[str, ...]) -> Need:
    """The Need of the run a rule with ``params`` reads, on ``records`` ("original" or "holdout")."""
    return Need.of(
        INTERMEDIATE,
        records=records,
        secret=params.secret,
        quasi_identifiers=tuple(params.quasi_identifiers) if params.quasi_identifiers else None,
        attacks=tuple(attacks),
        **config_items(attack_config(params)),
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
    #: Each attacked record's person, where an id column names people with several records (panel data).
    people: np.ndarray | None = None

    def correct(self, set_index: int, attack: str) -> int:
        """Attacked records whose known secret the attack guessed (a guess is never -1)."""
        return int((self.outcomes[(set_index, attack)].guess == self.truth).sum())

    def effective(self, set_index: int, attack: str) -> float:
        """How many independent trials the attacked records with a known secret are worth: :attr:`n`, or,
        with a person's records one cluster, Kish's effective number
        (:func:`policycheck.core.stats.effective_trials`): a man's secrets over eight years of a panel,
        guessed from his own quasi-identifiers, are right or wrong together."""
        if self.people is None:
            return float(self.n)
        import numpy as np

        from policycheck.core.stats import effective_trials

        known = self.truth >= 0
        hits = self.outcomes[(set_index, attack)].guess[known] == self.truth[known]
        return effective_trials(hits, np.ones(hits.size), self.people[known])

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
    from policycheck.release.people import people_of

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
                    numeric_columns(release),
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
            people_of(release, records),
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
    name=INTERMEDIATE,
    description="Secret guesses of each attack for every original (or holdout) record, per synthetic set.",
    inputs={"original", "holdout", "synthetic"},
    batch=reconstruction_attacks_batch,
    estimate=cost_model.reconstruction_attacks,
)
def reconstruction_attacks(ctx: EvaluationContext, **request: Any) -> ReconstructionRun:
    """Run every attack against every synthetic set, through the executor (see :func:`_attack_tasks`)."""
    (result,) = reconstruction_attacks_batch(ctx, [request])
    if isinstance(result, Exception):
        raise result
    return result
