"""The membership game's params, shared by ``membership_inference_advantage`` and ``dp_epsilon_excess_membership``.

Equal settings make equal Needs (:func:`game_need`), so two rules playing the
same game share one run of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from policycheck.methods.synthesizers import MEMBERSHIP_BUILTIN
from policycheck.metrics.base import Need
from policycheck.metrics.registry import Params
from policycheck.release.model import Dataset, Release, SynthesizerInfo

#: Why a game whose param ``synthesizer`` is ``release`` cannot run.
NO_SYNTHESIZER_TO_RERUN = (
    "param synthesizer is 'release' but no synthetic set says how to re-run its synthesizer (a Python entry point, "
    "`builtin:` or `command:` in its manifest); name a built-in synthesizer ("
    + ", ".join(MEMBERSHIP_BUILTIN)
    + ") instead"
)


#: Why a game of ``indhist_dp`` cannot run.
NO_EPSILON_FOR_INDHIST_DP = (
    "indhist_dp runs at the epsilon the release declares, and it declares none; give param synthesizer_epsilon"
)


def release_synthesizer(release: Release) -> tuple[int, SynthesizerInfo] | None:
    """(set index, SynthesizerInfo) of the first synthetic set that says how to re-run its synthesizer."""
    for i, ds in enumerate(release.synthetic):
        info = ds.synthesizer
        if info is not None and (info.entry is not None or info.params.get("builtin") or info.command):
            return i, info
    return None


def declared_epsilon(release: Release, index: int | None, fallback: float | None) -> float | None:
    """The epsilon synthetic set ``index`` declares (any set's when None), else ``fallback``."""
    sets = release.synthetic if index is None else (release.synthetic[index],)
    for ds in sets:
        if ds.synthesizer is not None and ds.synthesizer.epsilon is not None:
            return float(ds.synthesizer.epsilon)
    return fallback


def unknown_builtin(release: Release, index: int, name: str) -> str:
    """Why the built-in a synthetic set names cannot be re-run."""
    return (
        f"synthetic set {release.synthetic[index].name!r} names builtin {name!r}; "
        f"expected one of {', '.join(MEMBERSHIP_BUILTIN)}"
    )


@dataclass(frozen=True)
class GameSynthesizer:
    """What the param ``synthesizer`` resolves to on a release.

    ``builtin`` is the built-in's name, or None for the release's own Python entry point or
    command; ``index`` and ``info`` name the synthetic set it came from (None for a built-in
    named in the param).
    """

    builtin: str | None
    index: int | None = None
    info: SynthesizerInfo | None = None


def game_synthesizer(name: str, synthesizer_epsilon: float | None, release: Release) -> GameSynthesizer | str:
    """What the game runs for the param ``synthesizer`` on ``release``, or why it cannot run it.

    Asked before anything runs (:func:`check_game_params`) and by the game itself, which
    builds the rounds' synthesizer from it.
    """
    index, info = None, None
    if name == "release":
        found = release_synthesizer(release)
        if found is None:
            return NO_SYNTHESIZER_TO_RERUN
        index, info = found
        if info.entry is not None or not info.params.get("builtin"):
            return GameSynthesizer(None, index, info)  # a Python entry point or a command
        name = str(info.params["builtin"])
        if name not in MEMBERSHIP_BUILTIN:
            return unknown_builtin(release, index, name)
    if name == "indhist_dp" and declared_epsilon(release, index, synthesizer_epsilon) is None:
        return NO_EPSILON_FOR_INDHIST_DP
    return GameSynthesizer(name, index, info)


def synthesizer_problem(name: str, synthesizer_epsilon: float | None, release: Release) -> str | None:
    """Why the game cannot run what the param ``synthesizer`` names on ``release``; None when it can."""
    found = game_synthesizer(name, synthesizer_epsilon, release)
    return found if isinstance(found, str) else None


class TargetsParam(BaseModel):
    """Which population records the game attacks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vulnerable: int = Field(
        default=10,
        ge=0,
        le=1000,
        description="The most isolated records (largest mean Gower distance "
        "to their 5 nearest neighbours in the population).",
    )
    rare: int = Field(
        default=5,
        ge=0,
        le=1000,
        description="Records whose rarest value the fewest population records share "
        "(what synthesizers that keep each column's values leak).",
    )
    random: int = Field(default=5, ge=0, le=1000, description="Records drawn at random (seeded) from the rest.")
    ids: list[str] = Field(default_factory=list, description="Records named by their value in the id column.")


class ClassifierParam(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    n_estimators: int = Field(default=100, ge=1, le=2000, description="Trees of the shadow-model random forest.")
    min_samples_leaf: int = Field(default=2, ge=1, le=1000, description="Fewest rounds in a leaf of its trees.")


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


def population_sets(release: Release) -> list[Dataset]:
    """The data sets the game draws from: the release's population when it names one, else the original and
    the holdout records."""
    if release.population is not None:
        return [release.population]
    return [release.original, *([release.holdout] if release.holdout is not None else [])]


def default_sample_size(release: Release) -> int:
    """As many records as the original; half of them when the original alone is the population."""
    alone = release.population is None and release.holdout is None
    return max(2, release.original.n_rows // 2) if alone else release.original.n_rows


def check_game_params(
    params: MembershipGameParams, release: Release, attacker: Any
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: a synthesizer to re-run; named ids need an id column; the sizes must fit the population."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    problem = synthesizer_problem(params.synthesizer, params.synthesizer_epsilon, release)
    if problem is not None:
        problems.append((("synthesizer",), problem))
    sets = population_sets(release)
    has_ids = any(ds.id_frame is not None and len(ds.id_frame.columns) for ds in sets)
    if params.targets.ids and not has_ids:
        where = "the population" if release.population is not None else "the original or holdout"
        problems.append(
            (
                ("targets", "ids"),
                f"targets named by id need an id column in {where} (declare it `id` under the manifest's columns)",
            )
        )
    size = sum(ds.n_rows for ds in sets)
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
