"""The chart both marginal metrics draw: the distribution of the worst set's errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.utility import MarginalErrors


def error_histogram(errors: MarginalErrors, which: Literal["mre", "tvd"], set_name: str) -> tuple[dict[str, Any], ...]:
    """Distribution of the worst set's errors: TVD per triple, or relative error per cell."""
    import numpy as np

    if which == "tvd":
        values, title, label, span = errors.tvd, "TVD of each 3-way marginal", "total variation distance", (0.0, 1.0)
        counted = "3-way marginals"
    else:
        # NOTE: relative errors are unbounded; the last bin collects 2 and above.
        values = np.minimum(errors.abs_relative_error, 2.0)
        title, label, span = "Relative error of 3-way marginal cells (2 = 2 or more)", "relative error", (0.0, 2.0)
        counted = "marginal cells"
    if values.size == 0:
        return ()
    counts, edges = np.histogram(values, bins=20, range=span)
    series = [{"name": set_name, "edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}]
    return (
        {
            "kind": "histogram",
            "title": f"{title} ({set_name})",
            "x_label": label,
            "counts_of": counted,
            "series": series,
        },
    )
