"""The shared intermediate ``membership_game``: the synthesizer re-run in shared rounds (Stadler et al. 2022).

Release-level rules (DCR share, MI risk, exact copies) measure one released
file and average over every record; the risk sits in a few outliers, and it
is diluted as the release grows (Yao et al., "The DCR Delusion", 2025). The
game re-runs the synthesizer: the distinguishing game of Stadler, Oprisanu
and Troncoso (2022) and TAPAS (Houssiau et al. 2022) on the most isolated
records (Meeus et al. 2023), played in shared rounds
(:mod:`policycheck.methods.membership_game`). It feeds
``membership_inference_advantage`` and ``dp_epsilon_excess_membership`` with
``test: game`` (build its Need with
:func:`policycheck.metrics.membership.game_params.game_need`).

The synthesizer: ``release`` is the release's own (a Python entry point given
to ``pc.Release``, a built-in the manifest names with ``builtin:``, or the
manifest's ``command`` template, run as the attribute game runs it), or a
built-in by name: ``nonprivate``, ``indhist``, ``indhist_dp`` (paper 001's
IndHist with Laplace noise, run at the epsilon the release declares over the
population's values; :func:`policycheck.methods.synthesizers.indhist_dp`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext
from policycheck.metrics.details import Details, detail
from policycheck.metrics.membership.game_params import (
    declared_epsilon,
    default_sample_size,
    game_synthesizer,
    population_sets,
    release_synthesizer,
)
from policycheck.metrics.registry import intermediate
from policycheck.release.model import Release
from policycheck.release.people import person_codes, person_column

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    import pandas as pd

    from policycheck.execution.executor import Executor
    from policycheck.methods.cost_model import StepEstimate
    from policycheck.methods.membership_game.game import MembershipGame
    from policycheck.methods.membership_game.rounds import GameSetup
    from policycheck.methods.membership_game.synthesizer_spec import SynthesizerSpec
    from policycheck.methods.membership_game.targets import TargetChoice

#: What a round runs, given the population's domain (column -> its values, in order of appearance).
SpecOf = Callable[[dict[str, list[Any]]], "SynthesizerSpec"]


class GameClassifier(Details):
    kind: str = detail("Kind", default="random forest")
    n_estimators: int = detail("Trees")
    min_samples_leaf: int = detail("Fewest rounds in a leaf")


class GameSettings(Details):
    """What the game ran: the synthesizer, its rounds, the population and the targets."""

    synthesizer: str = detail("Synthesizer re-run")
    synthesizer_kind: str = detail("Kind of synthesizer", help="builtin, command or entry (a Python synthesizer).")
    command_sha256: str | None = detail("SHA-256 of the command", default=None)
    epsilon_run: float | None = detail("Epsilon it ran at", default=None)
    repetitions: int = detail("Rounds", unit="synthesizer runs")
    training_rounds: int = detail("Rounds choosing the attacks", unit="rounds")
    test_rounds: int = detail("Rounds measuring them", unit="rounds")
    sample_size: int = detail("Training set of a round", unit="records")
    synthetic_size: int = detail("Synthetic records of a round", unit="records")
    population: int = detail("Population", unit="records")
    population_source: str = detail(
        "Population drawn from",
        help="The release's population file when it names one, else the original and holdout records.",
        default="original and holdout records",
    )
    same_person_left_out: int = detail(
        "Targets' other records left out",
        unit="records",
        help="Records sharing a target's id where the id column names people (its ids repeat): they leave the "
        "pool with the target.",
        default=0,
    )
    columns: list[str] = detail("Columns")
    targets: int = detail("Targets", unit="records")
    classifier: GameClassifier = detail("Shadow-model classifier")
    isolation_score: str = detail(
        "Isolation score", default="mean Gower distance to the 5 nearest other population records"
    )
    notes: list[str] = detail("Notes")
    seed: int = detail("Seed")

    @classmethod
    def of(cls, game: MembershipGame) -> GameSettings:
        """The settings a played game carries."""
        return cls.model_validate(game.params)


# ---------------------------------------------------------------- the synthesizer


def resolve_synthesizer(
    ctx: EvaluationContext, name: str, epsilon: float | None, time_limit: float, domain: dict[str, list[Any]]
) -> SynthesizerSpec:
    """What a round runs for the param ``synthesizer``; EvaluationError when the release gives no way to run it."""
    from policycheck.methods.membership_game.synthesizer_spec import SynthesizerSpec

    found = game_synthesizer(name, epsilon, ctx.release)
    if isinstance(found, str):
        raise EvaluationError(found)
    info = found.info
    if found.builtin is None:  # the release's own
        assert info is not None
        if info.entry is not None:
            label = getattr(info.entry, "__qualname__", None) or type(info.entry).__name__
            return SynthesizerSpec("entry", f"{info.name} ({label})", entry=info.entry)
        return SynthesizerSpec(
            "command", info.name, command=info.command, workdir=str(ctx.base_dir), time_limit=time_limit
        )
    if found.builtin == "indhist_dp":
        given = declared_epsilon(ctx.release, found.index, epsilon)
        return SynthesizerSpec("builtin", found.builtin, epsilon=given, domain=domain)
    return SynthesizerSpec("builtin", found.builtin)


def _spec_factory(
    ctx: EvaluationContext, synthesizer: str, synthesizer_epsilon: float | None, synthesizer_time_limit: float
) -> SpecOf:
    return lambda domain: resolve_synthesizer(ctx, synthesizer, synthesizer_epsilon, synthesizer_time_limit, domain)


# ---------------------------------------------------------------- the population and the targets


def population(release: Release, columns: list[str]) -> tuple[pd.DataFrame, list[str], list[str | None]]:
    """The population the game draws from (the release's population, or the original and the holdout records);
    row labels and ids."""
    import pandas as pd

    sets = population_sets(release)
    frames, labels = [], []
    ids: list[str | None] = []
    for ds in sets:
        frames.append(ds.frame[columns])
        labels += [f"{ds.role} record {i + 1}" for i in range(ds.n_rows)]
        if ds.id_frame is not None and len(ds.id_frame.columns):
            ids += [None if v is None else str(v) for v in ds.id_frame.iloc[:, 0].tolist()]
        else:
            ids += [None] * ds.n_rows
    return pd.concat(frames, ignore_index=True), labels, ids


def population_source(release: Release) -> str:
    """Where the game's population came from, as the report says it."""
    if release.population is not None:
        path = release.population.path
        return f"population file {path.name}" if path is not None else "population (DataFrame)"
    return "original and holdout records" if release.holdout is not None else "original records"


def _summary(frame: pd.DataFrame, row: int) -> dict[str, Any]:
    """One record's values, JSON-ready, as the report shows a target."""
    import math

    out = {}
    for c, v in frame.iloc[row].items():
        if hasattr(v, "item"):
            v = v.item()
        if isinstance(v, float):
            v = None if math.isnan(v) else (int(v) if v.is_integer() else v)  # age 51, not 51.0
        out[str(c)] = v
    return out


def _setup(
    release: Release,
    spec_of: SpecOf,
    *,
    vulnerable: int,
    rare: int,
    random: int,
    ids: tuple[str, ...],
    sample_size: int | None,
    synthetic_size: int | None,
    columns: tuple[str, ...] | None,
    rng_targets: np.random.Generator,
    executor: Executor | None,
) -> tuple[GameSetup, TargetChoice, list[dict[str, Any]], list[str], int]:
    """The game's set-up: population, targets and the feature space (shared by the game and ``plan``); and how many
    records of the targets' people left the pool with them."""
    import numpy as np

    from policycheck.core.threads import beside
    from policycheck.methods.gower import fit_and_encode
    from policycheck.methods.membership_game.builtin_rounds import encode_records
    from policycheck.methods.membership_game.features import FeatureSpace
    from policycheck.methods.membership_game.rounds import GameSetup
    from policycheck.methods.membership_game.targets import choose_targets, rarest_value_counts, vulnerability_scores

    features = list(columns) if columns else release.columns
    frame, labels, id_values = population(release, features)
    # Fitted and encoded in one pass: the fit's level numbers are the categorical codes.
    threads = executor.threads if executor is not None else 1
    encoding, (encoded,) = fit_and_encode(
        [frame], release.column_types, release.orders, features, [frame], threads=threads
    )
    # Where the id column names people, the game plays for people, not records: a record's isolation is
    # from other people, the targets are distinct people, and a target's other records (the same man's
    # other years) leave the pool with it; left in, they would train the synthesizer in the rounds
    # without the target and hide it.
    sets = population_sets(release)
    column = person_column(sets)
    people = np.concatenate(person_codes(sets, column)) if column is not None else None
    # The rarest values need only the records: counted on a thread of their own while this process
    # waits for the isolation scan's workers.
    scores, (rarity, rarest_column) = beside(
        lambda: vulnerability_scores(encoded, encoding.kinds, executor, people),
        lambda: rarest_value_counts(frame),
        threads,
    )
    named = []
    for value in ids:
        rows = [i for i, v in enumerate(id_values) if v == str(value)]
        if not rows:
            where = (
                "not in the population's"
                if release.population is not None
                else "in neither the original's nor the holdout's"
            )
            raise EvaluationError(f"target id {value!r} is {where} id column")
        named.append(rows[0])
    choice = choose_targets(
        scores, vulnerable, random, np.array(named, dtype=np.int64), rng_targets, rare, rarity, people
    )
    kept = np.ones(len(frame), dtype=bool)
    kept[choice.rows] = False  # a mask, not setdiff1d: that hashes every population row
    left_out = 0
    if people is not None:
        same_person = np.isin(people, people[choice.rows]) & kept
        left_out = int(same_person.sum())
        kept &= ~same_person
    keep = np.flatnonzero(kept)
    targets = frame.iloc[choice.rows].reset_index(drop=True)
    domain = {c: list(dict.fromkeys(frame[c].tolist())) for c in features}
    spec = spec_of(domain)
    synthetic_rows = synthetic_size or (release.synthetic[0].n_rows if release.synthetic else release.original.n_rows)
    sample = sample_size or default_sample_size(release)
    scan = [encoding.scan_order.index(features[c]) for c in rarest_column[choice.rows]]
    space = FeatureSpace(encoding, encoded[choice.rows], np.array(scan, dtype=np.int64))
    pool = frame.iloc[keep].reset_index(drop=True)
    records = encode_records(space, pool, targets, encoded[keep], spec)
    setup = GameSetup(pool, targets, space, spec, sample, synthetic_rows, records)
    described = [
        {
            "target": i,
            "record": labels[r],
            "id": id_values[r],
            "reason": reason,
            "isolation": float(choice.scores[i]),
            "rarest_value_holders": int(rarity[r]),
            "rarest_value_column": features[int(rarest_column[r])],
            "values": _summary(frame, int(r)),
        }
        for i, (r, reason) in enumerate(zip(choice.rows, choice.reasons, strict=False))
    ]
    return setup, choice, described, features, left_out


# ---------------------------------------------------------------- plan's estimate


def _round_cost(setup: GameSetup) -> float:
    """Seconds of one round (a timed run of the synthesizer and the features), for the executor and ``plan``."""
    import time

    import numpy as np

    from policycheck.methods.membership_game.rounds import play_round

    started = time.perf_counter()
    play_round((setup, np.random.SeedSequence(0)))
    return time.perf_counter() - started


def estimate_game(release: Release, **kw: Any) -> StepEstimate | None:
    """``plan``'s estimate: one timed round of the game times its rounds (a command is not run: plan runs none)."""
    from policycheck.methods import cost_model
    from policycheck.metrics.base import AttackerView

    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", (), ()), seed=0)
    found = release_synthesizer(release) if kw["synthesizer"] == "release" else None
    if found is not None and found[1].entry is None and not found[1].params.get("builtin"):
        seconds = cost_model.COMMAND_ROUND_SECONDS
    else:
        try:
            setup, *_ = _setup(
                release,
                _spec_factory(ctx, kw["synthesizer"], kw["synthesizer_epsilon"], kw["synthesizer_time_limit"]),
                vulnerable=kw["vulnerable"],
                rare=kw["rare"],
                random=kw["random"],
                ids=kw["ids"],
                sample_size=kw["sample_size"],
                synthetic_size=kw["synthetic_size"],
                columns=kw["columns"],
                rng_targets=ctx.rng("membership_game", "targets"),
                executor=None,
            )
            seconds = _round_cost(setup)
        except Exception:  # noqa: BLE001 - an estimate never stops a plan; the check names the problem
            return None
    targets = kw["vulnerable"] + kw["rare"] + kw["random"] + len(kw["ids"])
    return cost_model.membership_game(release, kw["repetitions"], seconds, targets, kw["n_estimators"])


# ---------------------------------------------------------------- the game


@intermediate(
    name="membership_game",
    description="The membership game (Stadler et al. 2022): per round each target's coin and every attack's score, "
    "the synthesizer re-run on a fresh training set each round.",
    inputs={"original", "synthesizer"},
    estimate=estimate_game,
)
def membership_game(
    ctx: EvaluationContext,
    *,
    synthesizer: str = "release",
    repetitions: int = 200,
    vulnerable: int = 10,
    rare: int = 5,
    random: int = 5,
    ids: tuple[str, ...] = (),
    sample_size: int | None = None,
    synthetic_size: int | None = None,
    columns: tuple[str, ...] | None = None,
    n_estimators: int = 100,
    min_samples_leaf: int = 2,
    synthesizer_epsilon: float | None = None,
    synthesizer_time_limit: float = 600.0,
) -> MembershipGame:
    """Play the game: targets, ``repetitions`` rounds through the executor, then every target's attacks."""
    import dataclasses
    import hashlib
    import pickle

    from policycheck.execution.executor import SerialExecutor
    from policycheck.methods.membership_game.attacks import WORKER_MODULES, ClassifierConfig

    # The attacks' library, loaded for the workers while this process sets the game up: asked for before
    # the game's modules load numba here (0.3 s), so that the zygote starts on it that much sooner.
    ctx.executor.prepare(WORKER_MODULES)
    from policycheck.methods.membership_game.game import play_membership_game
    from policycheck.methods.membership_game.rounds import SynthesizerFailed

    setup, choice, described, features, left_out = _setup(
        ctx.release,
        _spec_factory(ctx, synthesizer, synthesizer_epsilon, synthesizer_time_limit),
        vulnerable=vulnerable,
        rare=rare,
        random=random,
        ids=ids,
        sample_size=sample_size,
        synthetic_size=synthetic_size,
        columns=columns,
        rng_targets=ctx.rng("membership_game", "targets"),
        executor=ctx.executor,
    )
    if setup.sample_size > len(setup.pool) + len(setup.targets):
        beside = f" beside the targets' {left_out} other records" if left_out else ""
        raise EvaluationError(
            f"sample_size {setup.sample_size} is more than the population's "
            f"{len(setup.pool) + len(setup.targets)} records{beside}"
        )
    if setup.sample_size - len(setup.targets) > len(setup.pool):
        raise EvaluationError(f"sample_size {setup.sample_size} leaves too few records beside the targets")
    notes = []
    if left_out:
        notes.append(
            f"Id column {person_column(population_sets(ctx.release))!r} names people (its ids repeat): the targets "
            f"are distinct people, and their {left_out} other records left the pool with them, so no round trains the "
            "synthesizer on a target's person without the target's coin."
        )
    rounds_on = None
    if setup.synthesizer.kind == "entry":
        try:
            pickle.dumps(setup.synthesizer.entry)
        except Exception:  # noqa: BLE001 - any failure to pickle means: keep it in this process
            rounds_on = SerialExecutor()
            notes.append(
                "The Python synthesizer cannot be pickled (a lambda or a local function), so the rounds ran "
                "one after another in this process; a top-level function or class runs them in parallel."
            )
    spec = setup.synthesizer
    seeds = ctx.seed_for("membership_game", synthesizer).spawn(repetitions)
    classifier_seeds = ctx.seed_for("membership_game", "classifier").spawn(len(setup.targets))
    try:
        game, seconds = play_membership_game(
            setup,
            seeds,
            ctx.rng("membership_game", "split"),
            classifier_seeds,
            ctx.executor,
            ClassifierConfig(n_estimators, min_samples_leaf),
            ctx.progress,
            round_executor=rounds_on,
        )
    except SynthesizerFailed as exc:
        raise EvaluationError(str(exc)) from None
    settings = GameSettings(
        synthesizer=spec.describe(),
        synthesizer_kind=spec.kind,
        command_sha256=hashlib.sha256(spec.command.encode()).hexdigest() if spec.command else None,
        epsilon_run=spec.epsilon,
        repetitions=repetitions,
        training_rounds=int(game.train.size),
        test_rounds=int(game.test.size),
        sample_size=setup.sample_size,
        synthetic_size=setup.synthetic_size,
        population=len(setup.pool) + len(setup.targets) + left_out,
        same_person_left_out=left_out,
        population_source=population_source(ctx.release),
        columns=list(features),
        targets=len(described),
        classifier=GameClassifier(n_estimators=n_estimators, min_samples_leaf=min_samples_leaf),
        notes=notes,
        seed=ctx.seed,
    )
    # NOTE: the game (a methods-layer result) holds plain data; rules read it back with GameSettings.of.
    params = settings.model_dump()
    return dataclasses.replace(game, targets=described, params=params, seconds=seconds)
