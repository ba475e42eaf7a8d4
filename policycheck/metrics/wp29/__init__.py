"""The Article 29 Working Party's three criteria: singling out, linkability, inference.

Opinion 05/2014 on anonymisation asks of anonymised data that no one can be
singled out, that records about a person cannot be linked, and that nothing
about a person can be inferred. anonymeter (Giomi et al., "A Unified
Framework for Quantifying Privacy Risk in Synthetic Data", PETS 2023;
assessed by the French CNIL) measures each as an attack on the original
records, beside a random-guess baseline and the same attack on holdout
records (the control). The rule's value is the residual risk
``(main - control) / (1 - control)`` with anonymeter's Wilson-score interval
(:mod:`policycheck.methods.wp29.rates`); without a holdout it is the main
attack's success rate, as in anonymeter (:mod:`.residual_risk`, through the
holdout-control combinator).

With several synthetic sets each set's interval is at the Bonferroni level
(the worst of k is reported); the value is the worst set's.
Missing values: a predicate's "is missing" term matches them, other terms
fail on them ("!=" passes, as in pandas); in distances two missing values
match and a missing value against a present one is a full mismatch; a
missing secret is guessed right only by a missing guess.

One module per criterion: :mod:`.singling_out_risk`, :mod:`.linkability_risk`,
:mod:`.inference_risk`; :mod:`.common` holds what they register alike.
"""
