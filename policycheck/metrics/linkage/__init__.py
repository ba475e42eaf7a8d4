"""Linkage family: a maximum-knowledge attacker narrowing a secret across M synthetic sets (paper 000).

The attacker holds the original data and every released set. He ignores one
secret attribute of the original, reverse-maps each synthetic set, links
every original record to each set by ranks of the other attributes, and
reads the secret values the linked synthetic records carry (secs. 3-4). By
default he also runs the same linkage on the values as released, which a
release of original records in changed proportions (a bootstrap) does not
shift, and each rule reports the worse of the two
(:mod:`policycheck.methods.linkage.attack`, :mod:`.mappings`). The rules bound
how often that pins a real person's value to a narrow range
(:mod:`.linkage_range_narrowing`), reveals it exactly
(:mod:`.linkage_exact_disclosure`), or, in the releaser's favour, misleads the
attacker in every set (:mod:`.linkage_consistently_misled`).

Baselines. Part of any such rate is chance: a secret that is 45 % zeros is
"disclosed" for about a fifth of the people by a release that keeps no link at
all (sum of p^2). Each rule therefore reports two baselines of what the
attacker gets without the release's individual information: chance (the
secret independent of the linkage attributes,
:mod:`policycheck.methods.linkage.chance`) and, with a holdout, the same
attack run on the holdout records, which the synthesizer never saw. The
baseline is the better of the two for the attacker (the larger disclosure
rate, the smaller misled rate), and the value a threshold compares is the
excess ``raw - baseline`` unless the rule's params say ``baseline: none``
(the raw rate), ``chance`` or ``holdout`` (:mod:`.baseline`).

Missing values. Records whose secret is missing have nothing to disclose and
are left out of every denominator (the report says how many); a linked
synthetic record with a missing secret identifies nothing; a missing
linkage attribute ranks above every value, tied with the other missing ones.

Modules: :mod:`.common` (params, registration defaults), :mod:`.linkage_attack`
(the shared attack, an intermediate), :mod:`.baseline` (the rate against its
baseline), :mod:`.mappings` (the worse mapping), :mod:`.evidence` (the details
the three metrics share), :mod:`.charts`, and one module per metric.
"""
