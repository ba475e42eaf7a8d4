"""Built-in baseline synthesizers, used by the demo and by attack games.

The baselines of paper 001 (sec. 5.1 and Appendix A): ``nonprivate`` releases a
bootstrap resample of the original (the worst case: real records are
copied), ``indhist`` samples each column independently from its histogram
(no record-level structure survives, but it is noise-free, so it is *not*
differentially private: a value only one person holds reaches the release
whenever that person is in the data), and ``indhist_dp`` is the paper's
IndHist proper: the same, from histograms with Laplace noise
(:func:`indhist_dp`), epsilon-DP over a public domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads when a synthesizer runs, not when the registry loads
    import numpy as np
    import pandas as pd

Synthesizer = Callable[["pd.DataFrame", int, "np.random.Generator"], "pd.DataFrame"]


def nonprivate(original: pd.DataFrame, n_rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Bootstrap resample: ``n_rows`` original records drawn with replacement."""
    return original.iloc[bootstrap_rows(len(original), n_rows, rng)].reset_index(drop=True)


def bootstrap_rows(n: int, n_rows: int, rng: np.random.Generator) -> np.ndarray:
    """``n_rows`` of ``n`` rows drawn with replacement: the draw of ``nonprivate``, and of each ``indhist`` column."""
    rows: np.ndarray = rng.integers(0, n, size=n_rows)
    return rows


def indhist(original: pd.DataFrame, n_rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Independent histograms: every column resampled on its own.

    Each column keeps its marginal distribution (missing values included) and
    loses every dependence on the other columns.
    """
    import pandas as pd

    columns = {}
    for name in original.columns:
        values = original[name].to_numpy()
        columns[name] = values[bootstrap_rows(len(values), n_rows, rng)]
    return pd.DataFrame(columns, columns=original.columns).astype(original.dtypes.to_dict())


def indhist_dp(
    original: pd.DataFrame,
    n_rows: int,
    rng: np.random.Generator,
    epsilon: float,
    domain: dict[str, list[Any]] | None = None,
) -> pd.DataFrame:
    """Paper 001's IndHist (Appendix A): independent histograms with Laplace noise, ``epsilon``-DP.

    The budget is split evenly over the ``p`` columns (basic composition).
    Each column's histogram over its ``domain`` (every value a bin, missing
    a bin of its own) gets Laplace noise of scale ``2 p / epsilon`` on every
    bin: replacing one record moves two counts by one, an L1 sensitivity of 2
    (bounded DP; it covers adding or removing a record too). Negative noisy
    counts become 0; values are drawn from the normalised result (uniformly
    over the domain when every count is 0). Sampling from a DP histogram is
    post-processing, so the release is ``epsilon``-DP *given the domain*:
    the domain must be public (the membership game passes the population's
    values, which the attacker knows). Without ``domain`` the values seen in
    ``original`` are used, which is not DP for a value only one record holds
    (whether it can be drawn at all tells that the record is in); callers
    that claim DP must pass a domain.

    Parameters
    ----------
    original : pandas.DataFrame
        The records the histograms are counted on.
    n_rows : int
        Rows to sample.
    rng : numpy.random.Generator
        Draws the noise and the rows.
    epsilon : float
        Total budget over all columns.
    domain : dict, optional
        Per column, the values its histogram has a bin for (missing: ``None``).
    """
    import pandas as pd

    scale = laplace_scale(len(original.columns), epsilon)
    columns = {}
    for name in original.columns:
        values = original[name]
        bins = histogram_bins(domain[name] if domain is not None else list(pd.unique(values)))
        codes = bin_codes(values, bins)
        if not fits_domain(codes, bins):
            raise ValueError(f"indhist_dp: column {name!r} holds values outside its domain")
        drawn = noisy_histogram_draw(codes, bins, n_rows, rng, scale)
        columns[name] = histogram_values(bins, drawn, values.dtype)
    return pd.DataFrame(columns, columns=original.columns)


def laplace_scale(n_columns: int, epsilon: float) -> float:
    """``indhist_dp``'s noise scale: ``2 p / epsilon`` (the budget split over ``p`` columns, sensitivity 2)."""
    if not epsilon > 0:
        raise ValueError(f"indhist_dp needs a positive epsilon, got {epsilon!r}")
    return 2.0 * n_columns / epsilon


@dataclass(frozen=True)
class HistogramBins:
    """One column's histogram bins: its domain's present values in order, then a missing bin if it has one."""

    values: list[Any]
    has_missing: bool

    @property
    def size(self) -> int:
        return len(self.values) + int(self.has_missing)


def histogram_bins(domain: list[Any]) -> HistogramBins:
    """The bins of a column whose domain is ``domain`` (missing values, ``None`` or NaN, make the missing bin)."""
    import pandas as pd

    return HistogramBins([b for b in domain if not pd.isna(b)], any(pd.isna(b) for b in domain))


#: :func:`bin_codes`' code of a missing value, and of a present value its column's domain lacks.
MISSING_BIN, OUTSIDE_DOMAIN = -1, -2


def bin_codes(values: pd.Series, bins: HistogramBins) -> np.ndarray:
    """Each value's bin (its place in ``bins.values``), else :data:`MISSING_BIN` or :data:`OUTSIDE_DOMAIN`."""
    import numpy as np
    import pandas as pd

    present = values.notna().to_numpy()
    codes = np.full(len(values), MISSING_BIN, dtype=np.intp)
    found = pd.Index(bins.values).get_indexer(values[present])
    codes[present] = np.where(found < 0, OUTSIDE_DOMAIN, found)
    return codes


def fits_domain(codes: np.ndarray, bins: HistogramBins) -> bool:
    """Whether every value of a column (its :func:`bin_codes`) has a bin: missing ones only with a missing bin."""
    return not (codes == OUTSIDE_DOMAIN).any() and (bins.has_missing or not (codes == MISSING_BIN).any())


def noisy_histogram_draw(
    codes: np.ndarray, bins: HistogramBins, n_rows: int, rng: np.random.Generator, scale: float
) -> np.ndarray:
    """``n_rows`` bins drawn from the records' noisy histogram (``codes``: :func:`bin_codes`, every one fitting).

    A drawn ``len(bins.values)`` is the missing bin.
    """
    import numpy as np

    counts = np.bincount(codes[codes >= 0], minlength=len(bins.values)).astype(float)
    if bins.has_missing:
        counts = np.append(counts, float(np.count_nonzero(codes == MISSING_BIN)))
    noisy = np.clip(counts + rng.laplace(0.0, scale, size=counts.size), 0.0, None)
    probabilities = noisy / noisy.sum() if noisy.sum() > 0 else np.full(noisy.size, 1.0 / noisy.size)
    drawn: np.ndarray = rng.choice(noisy.size, size=n_rows, p=probabilities)
    return drawn


def histogram_values(bins: HistogramBins, drawn: np.ndarray, dtype: Any) -> pd.Series:
    """The values of drawn bins, as a column of ``dtype`` where it is numeric (float when a value is missing)."""
    import numpy as np
    import pandas as pd

    column = pd.Series(np.array([*bins.values, None], dtype=object)[drawn])
    if pd.api.types.is_numeric_dtype(dtype):
        column = pd.to_numeric(column)
        if not column.isna().any():
            column = column.astype(dtype)
    return column


BUILTIN: dict[str, Synthesizer] = {"nonprivate": nonprivate, "indhist": indhist}
#: The built-ins the membership game runs; ``indhist_dp`` takes the epsilon the release declares.
MEMBERSHIP_BUILTIN = ("nonprivate", "indhist", "indhist_dp")
