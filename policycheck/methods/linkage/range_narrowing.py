"""The attribute disclosure scenario: range narrowing across M sets (paper 000, sec. 4).

The attacker ignores the secret attribute of the original, links every
original record to each of the M reverse-mapped synthetic sets on the other
attributes (:mod:`.rank_linkage`) and reads the secret of the linked
synthetic records. For record ``i`` the secret ranks identified in all M
sets span a range (Table 3: record 18 is placed between ranks 3 and 7, i.e.
between 2298 and 2428). Three outcomes matter:

- *range narrowing*: the range holds the true value and is narrow;
- *exact disclosure*: a set reveals the true value (record 18 in set 1);
- *consistently misled*: every identified value lies on the same wrong
  side of the true one (record 1: true rank 2, ranks 8 to 11 identified).

Values are compared, not ranks, so a secret with tied values (whole hours,
categories) counts a hit when the identified value equals the true one; for
a secret without ties this is exactly the paper's rank comparison. A set
discloses exactly only when *all* its tied candidates carry the true value:
the attacker then learns it without ambiguity.

Missing values. A linked synthetic record whose (reverse-mapped) secret is
missing tells the attacker nothing about the value, so it is skipped; when
every linked record of a set lacks it, that set identifies nothing. A record
whose own secret is missing in the original has nothing to disclose: it is
never narrowed, disclosed or misled, and rules leave it out of their
denominators (:attr:`AttributeDisclosure.known`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from policycheck.methods.linkage.rank_linkage import Linkage


def identified_secret(linkage: Linkage, synthetic_secret: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest reverse-mapped secret value among each record's linked records (sec. 4).

    Linked records with a missing secret are skipped; NaN where all are missing.

    Parameters
    ----------
    linkage
        The linkage of every original record against one synthetic set.
    synthetic_secret
        The reverse-mapped secret ``Z_s^m`` of that set (codes: numbers, or
        category positions of an ordered secret).
    """
    values = np.asarray(synthetic_secret, dtype=float)
    # NOTE: fmin / fmax skip NaN (a missing secret), where minimum / maximum would spread it.
    return linkage.reduce(values, np.fmin), linkage.reduce(values, np.fmax)


@dataclass(frozen=True)
class AttributeDisclosure:
    """What the attacker learns about one secret from the first M synthetic sets (sec. 4).

    ``low[i, m]`` and ``high[i, m]`` bound the secret values identified for
    original record ``i`` in set ``m``; ``true`` holds the original values;
    ``span`` is the attribute's range in the original (max - min). ``low``
    and ``high`` are NaN where a set identifies no value, ``true`` where the
    record's secret is missing.
    """

    true: np.ndarray  # (n,)
    low: np.ndarray  # (n, M)
    high: np.ndarray  # (n, M)
    span: float

    @property
    def n_sets(self) -> int:
        return int(self.low.shape[1])

    def only_set(self, m: int) -> AttributeDisclosure:
        """The same attack with set ``m`` (0-based) alone, as if only it were released."""
        return AttributeDisclosure(self.true, self.low[:, [m]], self.high[:, [m]], self.span)

    @property
    def known(self) -> np.ndarray:
        """Records whose true secret is known (not missing): the denominators of every rule."""
        found: np.ndarray = ~np.isnan(self.true)
        return found

    def identified_range(self, sets: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The range spanned by the values identified in the first ``sets`` sets (all by default)."""
        m = self.n_sets if sets is None else sets
        return np.fmin.reduce(self.low[:, :m], axis=1), np.fmax.reduce(self.high[:, :m], axis=1)

    def identified(self, sets: int | None = None) -> np.ndarray:
        """Whether any of the first ``sets`` sets identifies a value for each record."""
        found: np.ndarray = ~np.isnan(self.identified_range(sets)[0])
        return found

    def width(self, sets: int | None = None) -> np.ndarray:
        """Width of each identified range as a fraction of the attribute's range."""
        low, high = self.identified_range(sets)
        if self.span <= 0:
            return np.zeros_like(low)
        found: np.ndarray = (high - low) / self.span
        return found

    def holds_true(self, sets: int | None = None) -> np.ndarray:
        """Whether each identified range holds the true value."""
        low, high = self.identified_range(sets)
        return (low <= self.true) & (self.true <= high)

    def narrowed(self, fraction: float, sets: int | None = None) -> np.ndarray:
        """Records whose identified range holds the true value and is at most ``fraction`` of the attribute's range."""
        return self.holds_true(sets) & (self.width(sets) <= fraction)

    def exact_by_set(self, sets: int | None = None) -> np.ndarray:
        """``(n, sets)``: set ``m`` reveals record ``i``'s true value (all its candidates carry it)."""
        m = self.n_sets if sets is None else sets
        true = self.true[:, None]
        found: np.ndarray = (self.low[:, :m] == true) & (self.high[:, :m] == true)
        return found

    def exactly_disclosed(self, k: int, sets: int | None = None) -> np.ndarray:
        """Records whose true value is identified exactly in at least ``k`` of the sets."""
        found: np.ndarray = self.exact_by_set(sets).sum(axis=1) >= k
        return found

    def consistently_misled(self, sets: int | None = None) -> np.ndarray:
        """Records for which every set points to the same wrong side of the true value."""
        found: np.ndarray = self.known & self.identified(sets) & ~self.holds_true(sets)
        return found
