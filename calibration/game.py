"""The membership game in the calibration sweep (issue 22): which releases play it, how many rounds, and how.

The game re-runs each release's synthesizer. A release made by one of policycheck's built-ins
(bootstrap, the noise-free indhist, indhist_dp) says so in its manifest (``builtin:``); every
other release gets its maker as a Python entry point (:class:`ReleaseSynthesizer`), attached
to the loaded release as ``pc.Release(synthesizer=...)`` would attach it. The game models the
analysed columns without the date the harness adds (DataSynthesizer's networks take twice as
long with it, and the study the targets follow had none).

Sizes: the CI sweep plays the game on Adult only, for the releases with a game target
(:data:`GAME_TARGETS`); the full sweep plays it on every release but pac-synth's and the
PrivBayes budgets other than 1, on both datasets, with fewer rounds for the two DataSynthesizer
networks (one fit takes 1.1-1.4 s at 1,000 records, 2 cores under load), played on Adult only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from calibration.datasets import DATASETS, CalibrationData, to_days
from calibration.releases import BY_NAME

#: Releases a built-in makes, by the name the manifest's ``builtin:`` gives.
BUILTIN_OF = {"bootstrap": "nonprivate", "indhist-claims-eps1": "indhist", "indhist-dp-eps1": "indhist_dp"}

#: What the game must do on each release the targets name (dataset, release) -> "fail" (the game rule fails),
#: "refute" (the epsilon audit refutes the claim) or "not fail" (the game rule does not fail), on >= 95% of seeds.
GAME_TARGETS = {
    ("adult", "bootstrap"): "fail",
    ("adult", "indhist-claims-eps1"): "refute",
    ("adult", "indhist-dp-eps1"): "not fail",
    ("adult", "copula"): "not fail",
    # The hospital's records: the same targets but the copula's, which the game fails on some seeds (run.NOTES).
    ("flchain", "bootstrap"): "fail",
    ("flchain", "indhist-claims-eps1"): "refute",
    ("flchain", "indhist-dp-eps1"): "not fail",
}

#: Rounds of the CI sweep's games: (dataset, release) -> rounds.
CI_GAMES = {
    ("adult", "bootstrap"): 200,
    ("adult", "indhist-claims-eps1"): 200,
    ("adult", "indhist-dp-eps1"): 200,
    ("adult", "copula"): 100,
    ("flchain", "bootstrap"): 200,
    ("flchain", "indhist-claims-eps1"): 200,
    ("flchain", "indhist-dp-eps1"): 200,
}
#: Rounds of the full sweep's games.
FULL_GAMES = {
    **{
        (d, r): 200
        for d in ("adult", "randhie")
        for r in (
            "indhist",
            "copula",
            "cart",
            "indhist-dp-eps1",
            "indhist-claims-eps1",
            "copy-new-id",
            "jitter-1pct",
            "copied-20pct",
            "bootstrap",
        )
    },
    ("adult", "baynet"): 60,
    ("adult", "privbayes-eps1"): 60,
}

#: The sweep docs/calibration-game.md publishes: Adult, the releases the game is about, 10 seeds (the full
#: sweep, both datasets and every release, took over 20 minutes per Adult seed on the shared 2 cores).
GAME_DOC_RELEASES = (
    "indhist",
    "copula",
    "privbayes-eps1",
    "baynet",
    "cart",
    "indhist-dp-eps1",
    "indhist-claims-eps1",
    "copied-20pct",
    "bootstrap",
)
GAME_DOC_GAMES = {
    **{("adult", r): 200 for r in GAME_DOC_RELEASES},
    ("adult", "privbayes-eps1"): 40,
    ("adult", "baynet"): 40,
}

#: Targets of the game in the calibration: 10 most isolated, 5 rarest-valued, 5 random (the rule's default).
TARGETS = "{vulnerable: 10, rare: 5, random: 5}"


@cache
def _data(dataset: str, rows: int) -> CalibrationData:
    return DATASETS[dataset](rows)


@dataclass(frozen=True)
class ReleaseSynthesizer:
    """A calibration release's maker as the game calls it: ``fn(frame, rows, seed) -> frame``.

    ``frame`` is a training set of the release's analysed columns as the release holds them
    (numbers as numbers); the maker's rows get their integer columns rounded, as
    :func:`calibration.releases.make_release` rounds them.
    """

    release: str
    dataset: str
    rows: int

    def __call__(self, frame: pd.DataFrame, rows: int, seed: int) -> pd.DataFrame:
        data = _data(self.dataset, self.rows)
        kind = BY_NAME[self.release]
        out = kind.make(data, frame.reset_index(drop=True), seed)[list(frame.columns)].reset_index(drop=True)
        for col in data.integer if kind.round_integers else ():
            if col in out:
                out[col] = pd.to_numeric(out[col]).round()
        return out


def game_columns(data: CalibrationData) -> list[str]:
    return [c for c in data.analysed if c != data.date_column]


def with_synthesizer(release, data: CalibrationData, name: str, rows: int):
    """The loaded release with the maker attached to its synthetic set (built-ins are named in the manifest)."""
    if name in BUILTIN_OF:
        return release
    (ds,) = release.synthetic
    info = dataclasses.replace(ds.synthesizer, entry=ReleaseSynthesizer(name, data.name, rows))
    return dataclasses.replace(release, synthetic=(ds.with_synthesizer(info),))


def game_rules(rounds: int, claims: bool, data: CalibrationData) -> str:
    """The policy rules of the game (and, for a release that claims an epsilon, its epsilon audit)."""
    params = (
        f"{{synthesizer: release, repetitions: {rounds}, targets: {TARGETS}, "
        f"columns: [{', '.join(game_columns(data))}]}}"
    )
    rules = [
        "  - id: membership-game",
        "    metric: membership_inference_advantage",
        f"    params: {params}",
        "    threshold: {fail_above: 0.2, warn_above: 0.1}",
    ]
    if claims:
        audit = params.replace("{synthesizer", "{test: game, synthesizer", 1)
        rules += [
            "  - id: dp-claim-game",
            "    metric: dp_epsilon_excess_membership",
            f"    params: {audit}",
            "    threshold: {fail_above: 0, compare: estimate}",
        ]
    return "\n".join(rules) + "\n"


def domain(data: CalibrationData) -> dict[str, list]:
    """indhist_dp's public domain: every value of the training and holdout records (dates as days)."""
    both = pd.concat([data.training, data.holdout], ignore_index=True)[data.analysed].copy()
    if data.date_column is not None:
        both[data.date_column] = to_days(both[data.date_column])
    return {c: list(dict.fromkeys(both[c].tolist())) for c in both.columns}


def indhist_dp_release(epsilon: float):
    """The maker of the indhist_dp release: the built-in over the public domain, seeded as the others."""
    from policycheck.methods.synthesizers import indhist_dp

    def make(data: CalibrationData, frame: pd.DataFrame, seed: int) -> pd.DataFrame:
        values = domain(data)
        return indhist_dp(
            frame, len(frame), np.random.default_rng(seed), epsilon, {c: values[c] for c in frame.columns}
        )

    return make
