"""Differential-privacy family: declared budgets, transition-matrix audits and measured lower bounds (paper 004).

``dp_total_epsilon`` (:mod:`.dp_total_epsilon`)
    The total epsilon, at the policy's delta, of every synthetic set of this
    release plus the earlier releases of the same original listed in the
    ledger, by basic, advanced, Renyi and PLD composition.
``dp_transition_epsilon`` / ``dp_transition_delta`` (:mod:`.dp_transition_epsilon`, :mod:`.dp_transition_delta`)
    The audit of a synthesizer's transition matrix ``Pr[m | n]`` (sec. 3-4):
    its epsilon (eq. 3) and the delta of (epsilon, delta)-probabilistic DP at a
    target epsilon. Built-in Multinomial-Dirichlet and Laplace families, or a
    matrix file; no data needed. Shared intermediate: ``dp_transition_audit``
    (:mod:`.dp_transition_audit`, one transition matrix and its audit).
``dp_epsilon_excess_membership`` / ``dp_epsilon_excess_attribute``
    How far a measured lower bound on epsilon (from the membership test on
    distances to closest record or the membership game, or from the attribute
    inference game) exceeds the epsilon the release claims: above 0, the DP
    claim is contradicted by measurement (:mod:`.claims` holds what both share).

What a manifest may declare about each synthetic set's mechanism
(``synthesizer: {name, epsilon, delta, ...}``; other keys land in
``SynthesizerInfo.params``): ``mechanism`` (pure, approximate, laplace,
gaussian, subsampled_gaussian, zcdp), ``rho``, ``noise_multiplier``,
``sampling_probability``, ``steps``; see
:mod:`policycheck.methods.dp.composition`. A set that declares none of them
and no epsilon is not differentially private: its budget is infinite. The
ledger of earlier releases and its checks against a release live beside it,
in :mod:`policycheck.methods.dp.ledger`.
"""
