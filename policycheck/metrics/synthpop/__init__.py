"""synthpop's disclosure measures: replicated uniques (repU), DiSCO and TCAP.

The measures UK statistical offices use for synthetic data (Raab, Nowok and
Dibben 2024, synthpop's ``disclosure()``; Taub et al. 2018), defined in
:mod:`policycheck.methods.synthpop_disclosure`. ``repU`` and ``DiSCO`` are
shares of the original records with a Clopper-Pearson interval. Both
include chance: an independent synthesizer still replicates some uniques and
discloses some targets. So by default the rule's value is the excess over
the same measure computed with the holdout records in the original's place
(synthpop's raw share is the report's ``raw``; params ``baseline: none``
bounds the raw share; :mod:`.share`). Every other measure of synthpop's
table (UiO, UiS, UiOiS, DiO, iS, DiS, DiSDiO and synthpop's own TCAP column)
is in the report's details beside them. With several synthetic sets each
interval is at the Bonferroni level and the value is the worst set's
(:func:`policycheck.metrics.combinators.worst_of_sets`). Missing key or
target values are a category of their own, as in synthpop.

Modules: :mod:`.common` (references, registration defaults, the measures'
computation per set), :mod:`.share` (a share against the holdout's), and one
module per metric: :mod:`.replicated_uniques`, :mod:`.disco`, :mod:`.tcap`.
"""
