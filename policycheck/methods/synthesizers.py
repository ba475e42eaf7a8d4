"""Built-in baseline synthesizers, used by the demo and by attack games.

Both are the baselines of paper 001 (sec. 5.1): ``nonprivate`` releases a
bootstrap resample of the original (the worst case: real records are
copied), ``indhist`` samples each column independently from its histogram
(no record-level structure survives; the paper's IndHist adds Laplace
noise with epsilon = 0.1, ours is the noise-free variant, documented as such).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads when a synthesizer runs, not when the registry loads
    import numpy as np
    import pandas as pd

Synthesizer = Callable[["pd.DataFrame", int, "np.random.Generator"], "pd.DataFrame"]


def nonprivate(original: pd.DataFrame, n_rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Bootstrap resample: ``n_rows`` original records drawn with replacement."""
    rows = rng.integers(0, len(original), size=n_rows)
    return original.iloc[rows].reset_index(drop=True)


def indhist(original: pd.DataFrame, n_rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Independent histograms: every column resampled on its own.

    Each column keeps its marginal distribution (missing values included) and
    loses every dependence on the other columns.
    """
    import pandas as pd

    columns = {}
    for name in original.columns:
        values = original[name].to_numpy()
        columns[name] = values[rng.integers(0, len(values), size=n_rows)]
    return pd.DataFrame(columns, columns=original.columns).astype(original.dtypes.to_dict())


BUILTIN: dict[str, Synthesizer] = {"nonprivate": nonprivate, "indhist": indhist}
