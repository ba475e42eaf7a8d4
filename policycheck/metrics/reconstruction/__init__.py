"""Reconstruction family: attribute inference against a partially-informed attacker (paper 001).

The attacker knows every original record's quasi-identifiers and sees the
synthetic data; it tries to recover each record's secret. Three metrics:

:mod:`.reconstruction_accuracy`
    Accuracy of the strongest attack (LP reconstruction, DCR, random forest,
    exact-match majority) over all original records of the release.
:mod:`.reconstruction_individual_risk`
    The part of that accuracy no population-level inference explains: the
    same attacks on holdout records (never seen by the synthesizer) are the
    control, ``(acc - acc_control) / (1 - acc_control)``.
:mod:`.attribute_inference_advantage`
    The attribute inference privacy game (sec. 4.1): ``2 * acc - 1`` over
    repetitions in which the target's secret bit is randomised, so 0 is no
    leakage.

Missing values: an original (or holdout) record whose secret is missing has
nothing to reconstruct, so it is left out of every accuracy (the report says
how many); it still counts in the attacker's queries through its
quasi-identifiers, where a missing value is a category of its own. Synthetic
records with a missing secret answer no query. Where a rule takes the worst
of several attacks and synthetic sets, each one's interval is computed at the
Bonferroni level (:func:`policycheck.metrics.combinators.worst_of`) and the
rule reports the interval of the worst
(:func:`policycheck.core.stats.worst_interval`).

Shared intermediates: :mod:`.reconstruction_attacks` (attack outcomes on the
original or holdout records of every synthetic set) and
:mod:`.attribute_inference_game` (the game's truth/guess/score per target; the
DP family derives a lower bound on epsilon from it and builds its Need with
:func:`.attribute_inference_game.game_need`). Each (set, attack) pair's row,
and its individual part against the holdout control, is in :mod:`.rows`.
"""

# NOTE: the DP family's measured epsilon plays this family's game; these three names are what it reads.
from policycheck.metrics.reconstruction.attribute_inference_game import GameParams, game_need
from policycheck.metrics.reconstruction.params import check_secret_declared

__all__ = ["GameParams", "check_secret_declared", "game_need"]
