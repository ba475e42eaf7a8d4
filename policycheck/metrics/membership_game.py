"""The membership game against the synthesizer: ``membership_inference_advantage``.

Release-level rules (DCR share, MI risk, exact copies) measure one released
file and average over every record; the risk sits in a few outliers, and it
is diluted as the release grows (Yao et al., "The DCR Delusion", 2025). This
family re-runs the synthesizer: the distinguishing game of Stadler,
Oprisanu and Troncoso (2022) and TAPAS (Houssiau et al. 2022) on the most
isolated records (Meeus et al. 2023), played in shared rounds
(:mod:`policycheck.methods.membership_game`). The shared intermediate
``membership_game`` also feeds ``dp_epsilon_excess_membership`` with
``test: game`` (build its Need with :func:`game_need`).

The synthesizer: ``release`` is the release's own (a Python entry point given
to ``pc.Release``, a built-in the manifest names with ``builtin:``, or the
manifest's ``command`` template, run as the attribute game runs it), or a
built-in by name: ``nonprivate``, ``indhist``, ``indhist_dp`` (paper 001's
IndHist with Laplace noise, run at the epsilon the release declares over the
population's values; :func:`policycheck.methods.synthesizers.indhist_dp`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from policycheck.methods.synthesizers import MEMBERSHIP_BUILTIN
from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.registry import Method, Params, intermediate, metric
from policycheck.release.model import Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import pandas as pd

    from policycheck.methods.membership_game.game import MembershipGame
    from policycheck.methods.membership_game.rounds import SynthesizerSpec

REFERENCES = (
    "Stadler, Oprisanu, Troncoso. Synthetic Data - Anonymisation Groundhog Day. USENIX Security 2022.",
    "Houssiau, Jordon, Cohen, et al. TAPAS: a toolbox for adversarial privacy auditing of synthetic data. "
    "NeurIPS 2022 workshop.",
    "Meeus, Guepin, Cretu, de Montjoye. Achilles' heels: vulnerable record identification in synthetic data "
    "publishing. ESORICS 2023.",
    "Carlini, Chien, Nasr, Song, Terzis, Tramer. Membership inference attacks from first principles. IEEE S&P 2022.",
)

GAME_METHOD = Method(
    definition="Worst target's advantage TPR - FPR in the membership game: per round a training set drawn from the "
    "population with a fair coin per target, the synthesizer re-run, each target scored from the output by the "
    "closest-record distance, the synthetic density at it, or a random forest on its features and TAPAS's naive "
    "summaries (chosen, with the threshold, on half of the rounds); rates on the other half, Newcombe interval at "
    "the Bonferroni level over targets.",
    source="Stadler et al. 2022 (the game, shadow models); Houssiau et al. 2022 (TAPAS features); Meeus et al. 2023 "
    "(vulnerable targets); Carlini et al. 2022 (TPR at low FPR)",
)


class TargetsParam(BaseModel):
    """Which population records the game attacks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vulnerable: int = Field(
        10,
        ge=0,
        le=1000,
        description="The most isolated records (largest mean Gower distance "
        "to their 5 nearest neighbours in the population).",
    )
    rare: int = Field(
        5,
        ge=0,
        le=1000,
        description="Records whose rarest value the fewest population records share "
        "(what synthesizers that keep each column's values leak).",
    )
    random: int = Field(5, ge=0, le=1000, description="Records drawn at random (seeded) from the rest.")
    ids: list[str] = Field(default_factory=list, description="Records named by their value in the id column.")


class ClassifierParam(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    n_estimators: int = Field(100, ge=1, le=2000, description="Trees of the shadow-model random forest.")
    min_samples_leaf: int = Field(2, ge=1, le=1000, description="Fewest rounds in a leaf of its trees.")


class MembershipGameParams(Params):
    """Params of the membership game (shared with ``dp_epsilon_excess_membership``'s ``test: game``)."""

    synthesizer: str = Field(
        "release",
        description="Synthesizer re-run in each round: 'release' (the release's own: a Python entry point, the "
        "built-in its manifest names with `builtin:`, or its `command` template) or a built-in: "
        + ", ".join(MEMBERSHIP_BUILTIN)
        + " (indhist_dp runs at the epsilon the release declares).",
    )
    repetitions: int = Field(
        200,
        ge=4,
        le=100_000,
        description="Rounds of the game (synthesizer runs); half train the attacks, half measure them.",
    )
    targets: TargetsParam = Field(default_factory=TargetsParam, description="The records attacked.")
    sample_size: int | None = Field(
        None,
        ge=2,
        description="Records of each round's training set; default: as many "
        "as the original (half of them without a holdout, which then leaves the "
        "population to the original alone).",
    )
    synthetic_size: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="Rows the synthesizer generates; default: the size of the first released set.",
    )
    columns: list[str] | None = Field(
        None,
        description="Columns the synthesizer models and the attacks read; all columns of the release when omitted.",
    )
    classifier: ClassifierParam = Field(default_factory=ClassifierParam, description="The shadow-model classifier.")
    synthesizer_epsilon: float | None = Field(
        None, gt=0, description="Epsilon of indhist_dp when the release declares none."
    )
    synthesizer_time_limit: float = Field(600.0, gt=0, description="Seconds an external synthesizer run may take.")

    @field_validator("synthesizer")
    @classmethod
    def _known_synthesizer(cls, value: str) -> str:
        if value != "release" and value not in MEMBERSHIP_BUILTIN:
            raise ValueError(
                f"unknown synthesizer {value!r}: expected 'release' or one of {', '.join(MEMBERSHIP_BUILTIN)}"
            )
        return value


class AdvantageParams(MembershipGameParams):
    confidence: float = Field(
        0.95, gt=0, lt=1, description="Confidence level of the intervals (Bonferroni over targets)."
    )


def game_need(params: MembershipGameParams, release: Release | None = None) -> Need:
    """The Need of the ``membership_game`` intermediate for ``params``; equal settings share one game."""
    columns = None
    if params.columns:
        wanted = set(params.columns)
        columns = tuple(c for c in release.columns if c in wanted) if release is not None else tuple(params.columns)
    return Need.of(
        "membership_game",
        synthesizer=params.synthesizer,
        repetitions=params.repetitions,
        vulnerable=params.targets.vulnerable,
        rare=params.targets.rare,
        random=params.targets.random,
        ids=tuple(params.targets.ids),
        sample_size=params.sample_size,
        synthetic_size=params.synthetic_size,
        columns=columns,
        n_estimators=params.classifier.n_estimators,
        min_samples_leaf=params.classifier.min_samples_leaf,
        synthesizer_epsilon=params.synthesizer_epsilon,
        synthesizer_time_limit=params.synthesizer_time_limit,
    )


# ---------------------------------------------------------------- the synthesizer and the population


def release_synthesizer(release: Release) -> tuple[int, Any] | None:
    """(set index, SynthesizerInfo) of the first synthetic set that says how to re-run its synthesizer."""
    for i, ds in enumerate(release.synthetic):
        info = ds.synthesizer
        if info is not None and (info.entry is not None or info.params.get("builtin") or info.command):
            return i, info
    return None


def _declared_epsilon(release: Release, index: int | None, fallback: float | None) -> float | None:
    sets = release.synthetic if index is None else (release.synthetic[index],)
    for ds in sets:
        if ds.synthesizer is not None and ds.synthesizer.epsilon is not None:
            return float(ds.synthesizer.epsilon)
    return fallback


def resolve_synthesizer(
    ctx: EvaluationContext, name: str, epsilon: float | None, time_limit: float, domain: dict[str, list]
) -> SynthesizerSpec:
    """What a round runs for the param ``synthesizer``; EvaluationError when the release gives no way to run it."""
    from policycheck.methods.membership_game.rounds import SynthesizerSpec

    release = ctx.release
    index = None
    kind = "builtin"
    if name == "release":
        found = release_synthesizer(release)
        if found is None:
            raise EvaluationError(
                "param synthesizer is 'release' but no synthetic set says how to re-run its synthesizer (a Python entry "
                "point, `builtin:` or `command:` in its manifest); name a built-in synthesizer ("
                + ", ".join(MEMBERSHIP_BUILTIN)
                + ") instead"
            )
        index, info = found
        if info.entry is not None:
            label = getattr(info.entry, "__qualname__", None) or type(info.entry).__name__
            return SynthesizerSpec("entry", f"{info.name} ({label})", entry=info.entry)
        builtin = info.params.get("builtin")
        if builtin:
            if builtin not in MEMBERSHIP_BUILTIN:
                raise EvaluationError(
                    f"synthetic set {release.synthetic[index].name!r} names builtin {builtin!r}; "
                    f"expected one of {', '.join(MEMBERSHIP_BUILTIN)}"
                )
            name = str(builtin)
        else:
            return SynthesizerSpec(
                "command", info.name, command=info.command, workdir=str(ctx.base_dir), time_limit=time_limit
            )
    if name == "indhist_dp":
        eps = _declared_epsilon(release, index, epsilon)
        if eps is None:
            raise EvaluationError(
                "indhist_dp runs at the epsilon the release declares, and it declares none; give "
                "param synthesizer_epsilon"
            )
        return SynthesizerSpec(kind, name, epsilon=eps, domain=domain)
    return SynthesizerSpec(kind, name)


def population(release: Release, columns: list[str]) -> tuple[pd.DataFrame, list[str], list[str | None]]:
    """The population the game draws from: the original and the holdout records; row labels and ids."""
    import pandas as pd

    sets = [release.original] + ([release.holdout] if release.holdout is not None else [])
    frames, labels, ids = [], [], []
    for ds in sets:
        frames.append(ds.frame[columns])
        labels += [f"{ds.role} record {i + 1}" for i in range(ds.n_rows)]
        if ds.id_frame is not None and len(ds.id_frame.columns):
            ids += [None if v is None else str(v) for v in ds.id_frame.iloc[:, 0].tolist()]
        else:
            ids += [None] * ds.n_rows
    return pd.concat(frames, ignore_index=True), labels, ids


def check_game_params(
    params: MembershipGameParams, release: Release, attacker: Any
) -> list[tuple[tuple[str, ...], str]]:
    """Before running: named ids need an id column; the sizes must fit the population."""
    problems: list[tuple[tuple[str, ...], str]] = []
    has_ids = any(
        ds.id_frame is not None and len(ds.id_frame.columns)
        for ds in (release.original, release.holdout)
        if ds is not None
    )
    if params.targets.ids and not has_ids:
        problems.append(
            (
                ("targets", "ids"),
                "targets named by id need an id column in the original or holdout "
                "(declare it `id` under the manifest's columns)",
            )
        )
    size = release.original.n_rows + (release.holdout.n_rows if release.holdout is not None else 0)
    k = params.targets.vulnerable + params.targets.rare + params.targets.random + len(params.targets.ids)
    if k == 0:
        problems.append((("targets",), "the game needs at least one target"))
    sample = params.sample_size or default_sample_size(release)
    if sample > size - k:
        problems.append(
            (
                ("sample_size",),
                f"sample_size {sample} is more than the {size - k} population records "
                f"that are not targets ({size} records, {k} targets)",
            )
        )
    return problems


def default_sample_size(release: Release) -> int:
    """As many records as the original; half of them when the original alone is the population."""
    return release.original.n_rows if release.holdout is not None else max(2, release.original.n_rows // 2)


def _summary(frame: pd.DataFrame, row: int) -> dict[str, Any]:
    import math

    out = {}
    for c, v in frame.iloc[row].items():
        if hasattr(v, "item"):
            v = v.item()
        if isinstance(v, float):
            v = None if math.isnan(v) else (int(v) if v.is_integer() else v)  # age 51, not 51.0
        out[str(c)] = v
    return out


def _round_cost(setup: Any) -> float:
    """Seconds of one round (a timed run of the synthesizer and the features), for the executor and ``plan``."""
    import time

    import numpy as np

    from policycheck.methods.membership_game.rounds import play_round

    started = time.perf_counter()
    play_round((setup, np.random.SeedSequence(0)))
    return time.perf_counter() - started


def _setup(
    ctx_release: Release,
    spec_of,
    *,
    repetitions,
    vulnerable,
    rare,
    random,
    ids,
    sample_size,
    synthetic_size,
    columns,
    rng_targets,
    executor,
) -> tuple[Any, Any, list, list]:
    """The game's set-up: population, targets and the feature space (shared by the game and ``plan``)."""
    import numpy as np

    from policycheck.methods.gower import fit_gower
    from policycheck.methods.membership_game.features import FeatureSpace
    from policycheck.methods.membership_game.rounds import GameSetup
    from policycheck.methods.membership_game.targets import choose_targets, rarest_value_counts, vulnerability_scores

    release = ctx_release
    features = list(columns) if columns else release.columns
    frame, labels, id_values = population(release, features)
    encoding = fit_gower([frame], release.column_types, release.orders, features)
    encoded = encoding.encode(frame)
    scores = vulnerability_scores(encoded, encoding.kinds, executor)
    named = []
    for value in ids:
        rows = [i for i, v in enumerate(id_values) if v == str(value)]
        if not rows:
            raise EvaluationError(f"target id {value!r} is in neither the original's nor the holdout's id column")
        named.append(rows[0])
    rarity, rarest_column = rarest_value_counts(frame)
    choice = choose_targets(scores, vulnerable, random, np.array(named, dtype=np.int64), rng_targets, rare, rarity)
    keep = np.setdiff1d(np.arange(len(frame)), choice.rows)
    targets = frame.iloc[choice.rows].reset_index(drop=True)
    domain = {c: list(dict.fromkeys(frame[c].tolist())) for c in features}
    spec = spec_of(domain)
    rows = synthetic_size or (release.synthetic[0].n_rows if release.synthetic else release.original.n_rows)
    sample = sample_size or default_sample_size(release)
    scan = [encoding.scan_order.index(features[c]) for c in rarest_column[choice.rows]]
    space = FeatureSpace(encoding, encoded[choice.rows], np.array(scan, dtype=np.int64))
    setup = GameSetup(frame.iloc[keep].reset_index(drop=True), targets, space, spec, sample, rows)
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
    return setup, choice, described, features


def _spec_factory(ctx: EvaluationContext, synthesizer: str, synthesizer_epsilon, synthesizer_time_limit):
    return lambda domain: resolve_synthesizer(ctx, synthesizer, synthesizer_epsilon, synthesizer_time_limit, domain)


def estimate_game(release: Release, **kw: Any) -> Any:
    """``plan``'s estimate: one timed round of the game times its rounds (a command is not run: plan runs none)."""
    from policycheck.methods import cost_model
    from policycheck.metrics.base import AttackerView, EvaluationContext

    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", (), ()), seed=0)
    found = release_synthesizer(release) if kw["synthesizer"] == "release" else None
    if found is not None and found[1].entry is None and not found[1].params.get("builtin"):
        seconds = cost_model.COMMAND_ROUND_SECONDS
    else:
        try:
            setup, *_ = _setup(
                release,
                _spec_factory(ctx, kw["synthesizer"], kw["synthesizer_epsilon"], kw["synthesizer_time_limit"]),
                repetitions=kw["repetitions"],
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
    from policycheck.methods.membership_game.attacks import ClassifierConfig
    from policycheck.methods.membership_game.game import play_membership_game
    from policycheck.methods.membership_game.rounds import SynthesizerFailed

    setup, choice, described, features = _setup(
        ctx.release,
        _spec_factory(ctx, synthesizer, synthesizer_epsilon, synthesizer_time_limit),
        repetitions=repetitions,
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
        raise EvaluationError(
            f"sample_size {setup.sample_size} is more than the population's "
            f"{len(setup.pool) + len(setup.targets)} records"
        )
    if setup.sample_size - len(setup.targets) > len(setup.pool):
        raise EvaluationError(f"sample_size {setup.sample_size} leaves too few records beside the targets")
    notes = []
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
    params = {
        "synthesizer": spec.describe(),
        "synthesizer_kind": spec.kind,
        "command_sha256": hashlib.sha256(spec.command.encode()).hexdigest() if spec.command else None,
        "epsilon_run": spec.epsilon,
        "repetitions": repetitions,
        "training_rounds": int(game.train.size),
        "test_rounds": int(game.test.size),
        "sample_size": setup.sample_size,
        "synthetic_size": setup.synthetic_size,
        "population": len(setup.pool) + len(setup.targets),
        "columns": list(features),
        "targets": len(described),
        "classifier": {"kind": "random forest", "n_estimators": n_estimators, "min_samples_leaf": min_samples_leaf},
        "isolation_score": "mean Gower distance to the 5 nearest other population records",
        "notes": notes,
        "seed": ctx.seed,
    }
    return dataclasses.replace(game, targets=described, params=params, seconds=seconds)


# ---------------------------------------------------------------- the rule


@dataclass(frozen=True)
class TargetFigures:
    """One target's figures for the report (the chosen attack, measured on the test rounds)."""

    index: int
    rates: Any  # rates.TargetRates
    test_auc: dict[str, float]


def target_figures(game: MembershipGame, confidence: float, rng_of) -> list[TargetFigures]:
    """Every target's figures at the Bonferroni level over the targets."""
    from policycheck.core import stats
    from policycheck.methods.membership_game.attacks import ATTACKS
    from policycheck.methods.membership_game.rates import target_rates

    k = game.coins.shape[1]
    level = stats.bonferroni(confidence, k)
    out = []
    for t in range(k):
        labels = game.coins[:, t]
        rates = target_rates(
            game.chosen[t], game.scores[game.chosen[t]][:, t], labels, game.train, game.test, level, rng_of(t)
        )
        test_auc = {}
        for a in ATTACKS:
            s, y = game.scores[a][game.test, t], labels[game.test]
            test_auc[a] = stats.roc_auc(s[y == 1], s[y == 0])
        out.append(TargetFigures(t, rates, test_auc))
    return out


def _num(v: float) -> float | None:
    import math

    return float(v) if v is not None and math.isfinite(float(v)) else None


def _target_row(game: MembershipGame, f: TargetFigures) -> dict[str, Any]:
    r = f.rates
    target = game.targets[f.index]
    return {
        "target": target["id"] if target["id"] is not None else target["record"],
        "record": target["record"],
        "reason": target["reason"],
        "isolation": round(target["isolation"], 6),
        "attack": r.attack,
        "auc": _num(r.auc),
        "auc_interval": [_num(v) for v in r.auc_interval],
        **{f"tpr_at_fpr_{level:g}": v for level, v in r.tpr_at_fpr.items()},
        "advantage": r.advantage,
        "advantage_interval": list(r.advantage_interval),
        "training_advantage": r.training_advantage,
        "training_auc": float(game.training_auc[r.attack][f.index]),
        "tpr": r.tpr,
        "fpr": r.fpr,
        "rounds_in": r.positives,
        "rounds_out": r.negatives,
        "test_auc_by_attack": {a: _num(v) for a, v in f.test_auc.items()},
        "values": target["values"],
    }


def roc_chart(game: MembershipGame, figures: list[TargetFigures], most: int = 6) -> dict[str, Any]:
    """ROC curves of the most exposed targets on log-log axes (Carlini et al. 2022: low FPR is what matters)."""
    shown = sorted(figures, key=lambda f: -(f.rates.auc if f.rates.auc == f.rates.auc else 0))[:most]
    negatives = max((f.rates.negatives for f in figures), default=1)
    floor = 1.0 / (2 * max(negatives, 1))
    series = []
    for f in shown:
        fpr, tpr = f.rates.roc
        label = game.targets[f.index]["id"] or game.targets[f.index]["record"]
        series.append(
            {
                "name": f"{label} (AUC {f.rates.auc:.2f})",
                "x": [max(float(v), floor) for v in fpr],
                "y": [max(float(v), floor) for v in tpr],
            }
        )
    series.append({"name": "chance", "x": [floor, 1.0], "y": [floor, 1.0]})
    return {
        "kind": "line",
        "title": "Membership game: ROC of the most exposed targets (test rounds, log-log)",
        "x_label": "false positive rate (rounds without the target, guessed in)",
        "y_label": "true positive rate (rounds with the target, guessed in)",
        "x_scale": "log",
        "y_scale": "log",
        "x_domain": [floor, 1.0],
        "y_domain": [floor, 1.0],
        "series": series,
        "caption": f"Line chart on log-log axes: each target's ROC on the held-out rounds; a rate of 0 is drawn at "
        f"{floor:.2g} (half of one round). The chance line is the diagonal.",
    }


#: Short attack names for the targets table (the details keep the full ones).
SHORT_ATTACK = {
    "closest_distance": "closest",
    "density": "density",
    "rarest_value": "rarest value",
    "classifier": "forest",
}


#: Targets the table shows, most exposed first (every target is in the details).
TABLE_ROWS = 10


def targets_table(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The most exposed targets' figures, narrow enough for half a printed page (intervals in the details)."""
    shown = sorted(rows, key=lambda r: -(r["auc"] if r["auc"] is not None else 0))[:TABLE_ROWS]
    return {
        "kind": "table",
        "title": f"Membership game: the {len(shown)} most exposed of {len(rows)} targets (held-out rounds)",
        "columns": ["target", "chosen as", "attack", "AUC", "TPR at FPR 0.1", "TPR - FPR"],
        "rows": [
            [
                r["target"].replace(" record", ""),
                r["reason"],
                SHORT_ATTACK.get(r["attack"], r["attack"]),
                r["auc"],
                r["tpr_at_fpr_0.1"],
                r["advantage"],
            ]
            for r in shown
        ],
        "caption": "Every target, with its intervals and every attack's AUC, is in the rule's details (report.json).",
    }


def _auc_words(auc: float | None) -> str:
    return "not measurable (its test rounds hold one coin value only)" if auc is None else f"{auc:.2f}"


def exposure_words(row: dict[str, Any], game: MembershipGame) -> str:
    """Plain words on the most exposed target: which record, and what the attacker learns."""
    values = ", ".join(f"{k}={v}" for k, v in list(row["values"].items())[:8])
    who = f"id {row['target']} ({row['record']})" if row["target"] != row["record"] else row["record"]
    return (
        f"Most exposed: {who}, chosen as {row['reason']} ({values}). Re-running the synthesizer "
        f"{game.params['repetitions']} times, an attacker who holds this record and sees only the synthetic "
        f"output tells whether it was in the training data with AUC {_auc_words(row['auc'])}; at the threshold chosen on "
        f"other rounds it is right {row['tpr']:.0%} of the times the record was in, and wrongly says in "
        f"{row['fpr']:.0%} of the times it was out (advantage {row['advantage']:.2f}). The attacker learns that "
        "this person's data was used, which may itself be sensitive."
    )


@metric(
    name="membership_inference_advantage",
    method=GAME_METHOD,
    family="membership",
    params=AdvantageParams,
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS, Knowledge.DECLARED_MECHANISM, Knowledge.ORIGINAL},
    inputs={"original", "synthetic", "synthesizer"},
    optional_inputs={"holdout"},
    value_range=(-1.0, 1.0),
    column_params=("columns",),
    needs=lambda p, r: [game_need(p, r)],
    check=check_game_params,
    meaning="How well an attacker who holds one person's record can tell, from the synthetic output alone, whether "
    "that person was in the training data, for the most exposed person the game found: TPR - FPR of the strongest "
    "attack, measured over repeated runs of the synthesizer. 0 is a blind guess, 1 is always right.",
    remedy="Use a synthesizer with record-level protection (differential privacy with a small epsilon), or suppress "
    "or coarsen the outliers the table names; release fewer synthetic records.",
    references=REFERENCES,
)
def membership_inference_advantage(
    ctx: EvaluationContext, params: AdvantageParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Worst target's advantage TPR - FPR in the membership game (Stadler et al. 2022, sec. 4)."""
    from policycheck.core import stats

    game: MembershipGame = needs[game_need(params, ctx.release)]
    figures = target_figures(game, params.confidence, lambda t: ctx.rng("membership_game", "auc", t))
    rows = [_target_row(game, f) for f in figures]
    # NOTE: the worst target is the one worst on the training rounds: the largest of 20 noisy test-round
    # advantages would overstate a safe synthesizer's (membership-game guide), while this one's is unbiased.
    # Worst by training AUC: the training advantage is a maximum over thresholds, optimistic for the forest's
    # out-of-bag scores, and would pick targets the forest merely fits.
    worst = max(range(len(rows)), key=lambda i: (round(rows[i]["training_auc"], 12), rows[i]["training_advantage"], -i))
    interval = tuple(rows[worst]["advantage_interval"])
    details = {
        "game": game.params,
        "worst_target": rows[worst]["target"],
        "worst_auc": rows[worst]["auc"],
        "largest_auc": max((r["auc"] for r in rows if r["auc"] is not None), default=None),
        "selection": {
            "worst_target": "the target whose chosen attack had the largest AUC on the training rounds; its "
            "advantage and interval are measured on the test rounds (interval at the Bonferroni level over targets)",
            "largest_test_advantage": max(r["advantage"] for r in rows),
        },
        "targets": rows,
        "bonferroni": {"alternatives": len(rows), "level": stats.bonferroni(params.confidence, len(rows))},
        "seconds": {k: round(v, 3) for k, v in game.seconds.items()},
    }
    notes = [exposure_words(rows[worst], game), *game.params["notes"]]
    return MetricResult(
        value=rows[worst]["advantage"],
        interval=interval,
        confidence=params.confidence,
        details=details,
        charts=(roc_chart(game, figures), targets_table(rows)),
        notes=tuple(notes),
        baseline=0.0,
        baseline_label="a blind guess: TPR = FPR at every threshold",
        sample_size=int(game.test.size),
    )
