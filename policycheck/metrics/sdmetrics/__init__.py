"""SDMetrics' privacy measures: CAP disclosure protection and DCR baseline protection.

Both are SDMetrics 0.32's definitions (``DisclosureProtection`` with the
'cap' method, ``DCRBaselineProtection``), computed exactly on every record
(no subsampling: SDMetrics' subsampled estimates are biased, peer-tools
guide sec. 6.1), with a seeded bootstrap interval SDMetrics does not give.
Scores are protections: 1 is safest, so rules use ``fail_below``; with
several synthetic sets the rule reports the least protective
(:func:`policycheck.metrics.combinators.worst_of_sets`).
See :mod:`policycheck.methods.cap_disclosure` and
:mod:`policycheck.methods.dcr_baseline` for the conventions, including the
distance convention in which SDMetrics' DCR differs from ours.
Missing values: a category of their own for CAP; in the DCR a missing value
against a present one is a full mismatch and two missing values match.

Modules: :mod:`.common` (references, registration defaults) and one module
per metric: :mod:`.cap_disclosure_protection`, :mod:`.dcr_baseline_protection`.
"""
