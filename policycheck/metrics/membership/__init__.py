"""Membership family: was a person's record used to train the synthesizer? (paper 002; the membership game).

Release-level rules read one shared intermediate, ``gower_dcr``
(:mod:`.gower_dcr`): per synthetic set, the exact Gower distance to closest
record (DCR) in four directions (synthetic -> training, synthetic -> holdout,
training -> synthetic, holdout -> synthetic), computed once and shared by all
rules (and by ``dp_epsilon_excess_membership``):

``dcr_share`` (:mod:`.dcr_share`)
    Share of untied synthetic records closer to a training than to a holdout
    record (paper 002, sec. 3); 0.5 under no leakage.
``mi_risk`` (:mod:`.mi_risk`)
    Membership-inference risk of a distance-threshold attack (paper 002, sec. 4).
``exact_copy_share`` (:mod:`.exact_copy_share`)
    Synthetic records identical to a training record, beyond the holdout's chance copies.
``near_copy_share`` (:mod:`.near_copy_share`)
    Synthetic records within a Gower distance of a training record (copies with a value
    nudged), beyond the holdout's chance near matches.

With several synthetic sets a rule reports the worst set, each set's interval
at the Bonferroni level (:func:`policycheck.metrics.combinators.worst_of_sets`).
Missing values follow the pinned Gower convention
(:mod:`policycheck.methods.gower`): a missing value is a category of its own,
two missing values agree, a missing number against a present one is a full
mismatch.

Release-level rules average over every record and dilute the few outliers
that carry the risk (Yao et al., "The DCR Delusion", 2025); two rules look at
the records themselves:

``membership_inference_advantage`` (:mod:`.membership_inference_advantage`)
    The membership game against the synthesizer, re-run in shared rounds
    (shared intermediate ``membership_game``, :mod:`.membership_game`; its
    params in :mod:`.game_params`).
``density_membership_risk`` (:mod:`.density_membership_risk`)
    The no-box density attack on a released set (DOMIAS), for when the
    synthesizer cannot be re-run.
"""
