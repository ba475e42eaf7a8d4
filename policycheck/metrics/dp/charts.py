"""Charts the DP family's rules share: the transition matrix's log ratios (paper 004, Figs. 2 and 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from policycheck.metrics.dp.common import json_number

if TYPE_CHECKING:
    from policycheck.methods.dp.matrix_audit import Audit
    from policycheck.methods.dp.transition_matrix import TransitionMatrix

#: Largest heatmap drawn: neighbour pairs (rows) and outputs (columns).
HEATMAP_ROWS = 40
HEATMAP_COLUMNS = 40


def log_ratio_heatmap(mat: TransitionMatrix, aud: Audit) -> dict[str, Any]:
    """The audit's log-ratio table (paper 004, Fig. 2 / Fig. 4) as a heatmap, offending cells marked.

    Large tables show the neighbour pairs with the largest ratios and, among
    them, the outputs with the largest ratios.
    """
    import numpy as np

    from policycheck.methods.dp import matrix_audit

    order = np.arange(aud.first.size)
    if order.size > HEATMAP_ROWS:
        order = np.argsort(-np.nan_to_num(aud.pair_max, nan=-1.0), kind="stable")[:HEATMAP_ROWS]
        order.sort()
    p = mat.probabilities
    ratios = np.abs(matrix_audit.log_ratios(p[aud.first[order]], p[aud.second[order]]))
    columns = np.arange(ratios.shape[1])
    if columns.size > HEATMAP_COLUMNS:
        columns = np.sort(np.argsort(-np.nan_to_num(ratios, nan=-1.0).max(axis=0), kind="stable")[:HEATMAP_COLUMNS])
    ratios = ratios[:, columns]
    labels = mat.table_labels()
    filled = np.nan_to_num(ratios, nan=-1.0, posinf=np.inf)
    if aud.target_epsilon is not None:
        hits = filled > aud.target_epsilon + matrix_audit.RATIO_TOLERANCE
    else:  # mark the worst cells instead
        hits = np.isclose(filled, aud.epsilon) | np.isinf(filled)
    marked = [[int(r), int(c)] for r, c in zip(*np.nonzero(hits), strict=False)]
    shown = "" if (order.size == aud.first.size and columns.size == p.shape[1]) else " (largest shown)"
    what = f"above epsilon = {aud.target_epsilon:g}" if aud.target_epsilon is not None else "at the maximum"
    return {
        "kind": "heatmap",
        "title": f"|log ratio| of neighbouring tables per output{shown}; marked: {what}",
        "row_labels": [
            f"{labels[a]} vs {labels[b]}" for a, b in zip(aud.first[order], aud.second[order], strict=False)
        ],
        "col_labels": [mat.output_labels[c] for c in columns],
        "values": [[json_number(v) for v in row] for row in ratios.tolist()],
        "marked": marked,
    }
