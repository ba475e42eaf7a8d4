"""What the linkage attack achieves by chance: the secret independent of the linkage attributes.

The baseline of the attribute-disclosure scenario (paper 000, sec. 4). After
reverse mapping, the secret values of a set's synthetic records are exactly
the original's values, permuted. If a release kept no link between the secret
and the attributes the attacker links on (e.g. independent marginals), the
secret of each linked synthetic record would be a draw from the original's
marginal of the secret, whichever record was linked. So, for an original
record with true value ``v`` linked to ``c_m`` synthetic records in set ``m``
(``C = sum_m c_m`` in all), the chance of each outcome follows from the
marginal alone. Let ``pi(S)`` be the share of original records whose secret
lies in the set of values ``S`` and ``q`` the share whose secret is missing
(a candidate with a missing secret tells the attacker nothing, so it is
skipped), and ``H(S) = (pi(S) + q)^C``, the chance that no candidate carries
a value outside ``S``:

- exact disclosure by set ``m``: every candidate that carries a value
  carries ``v``, and one does: ``(pi(v) + q)^c_m - q^c_m``; with one linked
  record per set, averaged over records, this is ``sum_v pi(v)^2``, the
  chance of guessing a value by drawing from the marginal; "at least k of
  the M sets" is the Poisson-binomial tail of the per-set chances;
- consistently misled: values are identified and all lie on one side of
  ``v``: ``H(below v) + H(above v) - 2 q^C``;
- range narrowing: the identified range ``[a, b]`` holds ``v`` and
  ``(b - a) / span <= fraction``. Summing over the smallest identified value
  ``a``: ``P = sum_{a in W(v)} g(a) - H([a_lo, v)) + q^C``, with ``W(v)`` the
  values ``a <= v`` within the fraction of ``v``, ``a_lo`` the smallest of
  them, ``b(a)`` the largest value within the fraction of ``a``, and
  ``g(a) = H([a, b(a)]) - H((a, b(a)])`` (the sum over ``a`` of the terms
  ``H([a, v)) - H((a, v))`` telescopes). With one set and one linked record
  this is again ``sum_v pi(v)^2``: a single value is a range of width 0.

The synthetic records of one set are distinct records, drawn without
replacement; the formulas draw with replacement, which differs by terms of
order ``C / n``. The chance rate of a rule is the mean of these
probabilities over the original records whose secret is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SecretMarginal:
    """A marginal distribution of the secret (codes), missing values included: the original's, or the release's.

    ``values`` are the distinct present codes in increasing order, ``share``
    the share of all records holding each, ``missing`` the share of records
    whose secret is missing.
    """

    values: np.ndarray
    share: np.ndarray
    missing: float

    @classmethod
    def of(cls, codes: np.ndarray, also: np.ndarray | None = None) -> SecretMarginal:
        """The marginal of ``codes``; values in ``also`` that ``codes`` lacks are kept with share 0.

        ``also`` holds the true values when the marginal is that of the secrets as released
        (the ``released`` mapping), so that every true value has a position.
        """
        codes = np.asarray(codes, dtype=float)
        present = codes[~np.isnan(codes)]
        values, counts = np.unique(present, return_counts=True)
        n = max(codes.size, 1)
        share = counts / n
        if also is not None:
            extra = np.asarray(also, dtype=float)
            support = np.union1d(values, extra[~np.isnan(extra)])
            full = np.zeros(support.size)
            full[np.searchsorted(support, values)] = share
            values, share = support, full
        return cls(values, share, float(1.0 - present.size / n) if codes.size else 0.0)

    @property
    def sum_of_squares(self) -> float:
        """``sum_v pi(v)^2``: the chance two independent draws carry the same present value."""
        return float(np.sum(self.share**2))

    def cumulative(self) -> np.ndarray:
        """``cum[k]``: share of records holding one of the ``k`` smallest values (length ``len(values) + 1``)."""
        return np.concatenate([[0.0], np.cumsum(self.share)])

    def position(self, true: np.ndarray) -> np.ndarray:
        """Index of each true value among ``values`` (the true values must be present ones)."""
        idx = np.searchsorted(self.values, true)
        if idx.size and (
            np.any(idx >= self.values.size) or np.any(self.values[np.minimum(idx, self.values.size - 1)] != true)
        ):
            raise ValueError("every true value must be a present value of the marginal")
        return idx


def exact_by_set(marginal: SecretMarginal, true: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``(n, M)``: chance that set ``m`` reveals record ``i``'s true value exactly.

    Parameters
    ----------
    true
        ``(n,)`` present true codes.
    candidates
        ``(n, M)`` number of synthetic records linked to each record in each set.
    """
    share = marginal.share[marginal.position(true)][:, None]
    q = marginal.missing
    c = np.asarray(candidates, dtype=float)
    found: np.ndarray = (share + q) ** c - q**c
    return found


def at_least(probabilities: np.ndarray, k: int) -> np.ndarray:
    """``(n,)``: chance that at least ``k`` of ``M`` independent events happen, from their ``(n, M)`` chances."""
    p = np.asarray(probabilities, dtype=float)
    n, m = p.shape
    # Poisson-binomial distribution of the number of events, one set at a time.
    dist = np.zeros((n, m + 1))
    dist[:, 0] = 1.0
    for j in range(m):
        moved = dist * p[:, [j]]
        dist = dist * (1.0 - p[:, [j]])
        dist[:, 1:] += moved[:, :-1]
    found: np.ndarray = dist[:, k:].sum(axis=1)
    return found


def _sides(marginal: SecretMarginal, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Share of records strictly below and strictly above each true value (missing excluded)."""
    cum = marginal.cumulative()
    idx = marginal.position(true)
    return cum[idx], cum[-1] - cum[idx + 1]


def misled(marginal: SecretMarginal, true: np.ndarray, total_candidates: np.ndarray) -> np.ndarray:
    """``(n,)``: chance that every value identified lies on one side of the true one."""
    below, above = _sides(marginal, true)
    q, c = marginal.missing, np.asarray(total_candidates, dtype=float)
    found: np.ndarray = (below + q) ** c + (above + q) ** c - 2.0 * q**c
    return found


def holds_true(marginal: SecretMarginal, true: np.ndarray, total_candidates: np.ndarray) -> np.ndarray:
    """``(n,)``: chance that values are identified and their range holds the true one."""
    q, c = marginal.missing, np.asarray(total_candidates, dtype=float)
    found: np.ndarray = 1.0 - q**c - misled(marginal, true, total_candidates)
    return found


def within(difference: np.ndarray, span: float, fraction: float) -> np.ndarray:
    """Whether a range of this width is narrow: ``width / span <= fraction`` (any width when span is 0).

    The same comparison as :meth:`.range_narrowing.AttributeDisclosure.narrowed`.
    """
    difference = np.asarray(difference, dtype=float)
    if span <= 0:
        return np.ones(difference.shape, dtype=bool)
    return difference / span <= fraction


def narrowed(
    marginal: SecretMarginal, true: np.ndarray, total_candidates: np.ndarray, fraction: float, span: float
) -> np.ndarray:
    """``(n,)``: chance that the identified range holds the true value and is narrow (module docstring)."""
    values, q = marginal.values, marginal.missing
    cum = marginal.cumulative()
    # b(a): for each value a, the largest value b with (b - a) / span <= fraction.
    last = _last_within(values, span, fraction)
    idx = marginal.position(true)
    # a_lo: for each true value v, the smallest value a with (v - a) / span <= fraction.
    first = _first_within(values, span, fraction)[idx]
    if idx.size == 0:
        return np.zeros(0)
    total = np.asarray(total_candidates, dtype=float)
    below_v = (cum[idx] - cum[first] + q) ** total  # H([a_lo, v))
    distinct = np.unique(total)
    lengths = idx - first + 1
    if lengths.sum() <= distinct.size * values.size:
        # Few values per window: sum g(a) over each record's own window directly.
        a = np.repeat(first, lengths) + _ranks_within(lengths)
        c = np.repeat(total, lengths)
        g = (cum[last[a] + 1] - cum[a] + q) ** c - (cum[last[a] + 1] - cum[a + 1] + q) ** c
        window_sum = np.add.reduceat(g, np.concatenate([[0], np.cumsum(lengths)[:-1]]))
        direct: np.ndarray = window_sum - below_v + q**total
        return direct
    # Many values per window, few distinct candidate counts: prefix sums of g per count.
    out = np.empty(total.size)
    for c in distinct:
        rows = np.flatnonzero(total == c)
        inside = (cum[last + 1] - cum[:-1] + q) ** c  # H([a, b(a)])
        above_a = (cum[last + 1] - cum[1:] + q) ** c  # H((a, b(a)])
        prefix = np.concatenate([[0.0], np.cumsum(inside - above_a)])
        out[rows] = prefix[idx[rows] + 1] - prefix[first[rows]]
    found: np.ndarray = out - below_v + q**total
    return found


def _ranks_within(lengths: np.ndarray) -> np.ndarray:
    """``0, 1, ..., l - 1`` for each length ``l``, concatenated."""
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    found: np.ndarray = np.arange(int(lengths.sum())) - starts
    return found


def _last_within(values: np.ndarray, span: float, fraction: float) -> np.ndarray:
    """For each value a, the index of the largest value b with ``within(b - a)``."""
    if span <= 0:
        return np.full(values.size, values.size - 1)
    j = np.searchsorted(values, values + fraction * span, side="right") - 1
    # NOTE: fix the float rounding of a + fraction * span against (b - a) / span <= fraction.
    for _ in range(3):
        up = np.minimum(j + 1, values.size - 1)
        j = np.where((up > j) & within(values[up] - values, span, fraction), up, j)
        j = np.where(~within(values[j] - values, span, fraction), j - 1, j)
    return j


def _first_within(values: np.ndarray, span: float, fraction: float) -> np.ndarray:
    """For each value v, the index of the smallest value a with ``within(v - a)``."""
    if span <= 0:
        return np.zeros(values.size, dtype=np.int64)
    i = np.searchsorted(values, values - fraction * span, side="left")
    for _ in range(3):
        down = np.maximum(i - 1, 0)
        i = np.where((down < i) & within(values - values[down], span, fraction), down, i)
        i = np.where(~within(values - values[i], span, fraction), i + 1, i)
    return i
