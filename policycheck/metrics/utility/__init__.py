"""Utility family: how well synthetic sets keep the original's 3-way marginals (paper 001, sec. 5.3).

Utility floors sit next to privacy ceilings so a report shows the
privacy-utility trade-off. Both metrics are errors (lower is better), so a
policy bounds them with ``fail_above``:

``three_way_marginal_mre``
    Mean relative error of 3-way marginal counts, over cells whose original
    count exceeds 10 (MRE_{>10}).
``three_way_marginal_tvd``
    Average total variation distance of the 3-way marginal distributions.

A missing value is a category of its own (numeric columns too). With several
synthetic sets the value is the worst set; when triples are sampled, each
set's bootstrap interval is at the Bonferroni level and the rule reports the
interval of the worst.

Modules: :mod:`.common` (references, params, registration defaults, the
check of the columns), :mod:`.marginal_errors` (the shared intermediate: every
set's errors on the same triples), :mod:`.worst_set` (the rule's number from
them), :mod:`.charts`, and one module per metric:
:mod:`.three_way_marginal_mre`, :mod:`.three_way_marginal_tvd`.
"""
