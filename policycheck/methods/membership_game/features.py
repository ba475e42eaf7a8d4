"""What the adversary reads from one synthetic set about each target (Stadler et al. 2022, sec. 5; TAPAS).

Per target, from its Gower distance to every synthetic record (the pinned
convention of :mod:`policycheck.methods.gower`, with each numeric term
capped at 1 for synthetic values outside the population's range):

- the closest full-record distance, and the shares of synthetic records
  within radii 0 (exact copies), 0.02, 0.05 and 0.1;
- the synthetic density at the target: the mean of ``exp(-p D)`` over the
  synthetic records (a kernel on the Gower distance whose width is one
  feature's full mismatch). For a fixed target the DOMIAS ratio
  ``p_synthetic / p_reference`` ranks the rounds exactly as this density
  does, the reference density being the same in every round;
- per column, the share of synthetic records holding the target's own value
  (independent-column synthesizers leak only through these: a value unique
  to the target reaches the release with probability ``1 - (1 - 1/n)^m``
  when the target is in), and that share for the target's rarest value (the
  one fewest population records hold, which the attacker knows).

Per synthetic set (the same for every target): the TAPAS/groundhog
"naive" summaries, i.e. per numeric column its mean, median, variance and
missing share, and per categorical column the share of each category.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from policycheck.methods.gower import CATEGORY, GowerEncoding
from policycheck.methods.membership_game.feature_rows import CLOSEST, DENSITY, RADII, RAREST, TARGET_FEATURES

#: The radii as compared: a distance within 1e-12 of a radius counts as within it.
_RADII_BOUNDS = np.array([r + 1e-12 for r in RADII])
#: Code of a category the population never holds (the encoding gives -1, which is also "missing").
UNSEEN = -2.0


@dataclass(frozen=True)
class FeatureSpace:
    """The encoding the features are computed in, and the encoded targets."""

    encoding: GowerEncoding
    targets: np.ndarray  # (K, p) encoded target records, scan order
    rarest: np.ndarray  # (K,) encoded column (scan order) of each target's rarest value in the population

    @property
    def names(self) -> list[str]:
        """Feature names of one target's row: the per-target features, then one frequency per column."""
        return [*TARGET_FEATURES, *(f"frequency_of_own_{c}" for c in self.encoding.scan_order)]

    def naive_names(self) -> list[str]:
        """Names of the naive summaries, in the order :func:`naive_summaries` gives them."""
        names = []
        for k, column in enumerate(self.encoding.scan_order):
            if self.encoding.kinds[k] == CATEGORY:
                names += [f"share_{column}={v}" for v in self.encoding.levels[column]] + [f"share_{column}=other"]
            else:
                names += [f"{s}_{column}" for s in ("mean", "median", "variance", "missing")]
        return names


def encode_synthetic(space: FeatureSpace, synthetic: pd.DataFrame) -> np.ndarray:
    """The synthetic set in the population's encoding; a category the population lacks gets its own code."""
    out = space.encoding.encode(synthetic)
    for k, column in enumerate(space.encoding.scan_order):
        if space.encoding.kinds[k] == CATEGORY:
            _mark_unseen(out[:, k], synthetic[column])
    return out


def encode_synthetic_column(space: FeatureSpace, column: str, values: pd.Series) -> np.ndarray:
    """One column of :func:`encode_synthetic`: ``values`` as they would be encoded in a synthetic set."""
    out = np.asarray(space.encoding.encode_column(values.to_frame(column), column), dtype=np.float64)
    if space.encoding.kinds[space.encoding.scan_order.index(column)] == CATEGORY:
        _mark_unseen(out, values)
    return out


def _mark_unseen(codes: np.ndarray, values: pd.Series) -> None:
    """Give a present value the population lacks (code -1, as missing) the code :data:`UNSEEN`."""
    codes[(codes < 0) & values.notna().to_numpy()] = UNSEEN


def target_features(space: FeatureSpace, synthetic: np.ndarray) -> np.ndarray:
    """Every target's feature row against one encoded synthetic set: ``(K, len(space.names))``.

    The distances add the per-column terms in scan order, as
    :func:`policycheck.methods.gower.gower_sums` does (compiled, a column at a
    time over every synthetic record); the density's sum is NumPy's.
    """
    targets, kinds = space.targets, space.encoding.kinds
    k_targets, p = targets.shape
    m = max(len(synthetic), 1)
    distance, closest, within, same = _distances_and_matches(
        np.ascontiguousarray(targets, dtype=np.float64),
        np.ascontiguousarray(np.asarray(synthetic, dtype=np.float64).T),  # a column's values side by side
        np.asarray(kinds) == CATEGORY,
        _RADII_BOUNDS,
    )
    frequency = same / m
    rows = np.empty((k_targets, len(TARGET_FEATURES) + p))
    rows[:, CLOSEST] = closest if len(synthetic) else 1.0
    rows[:, 1 : 1 + len(RADII)] = within / m
    # exp(-p D) in the distances' own array (no longer needed): the same values and sums as
    # np.exp(-p * distance).sum(axis=1), without two fresh (K, m) temporaries each round.
    kernel = np.multiply(distance, -p, out=distance)
    rows[:, DENSITY] = np.exp(kernel, out=kernel).sum(axis=1) / m
    rows[:, RAREST] = frequency[np.arange(k_targets), space.rarest]
    rows[:, len(TARGET_FEATURES) :] = frequency
    return rows


#: Synthetic records a block of :func:`_distances_and_matches` holds, a column's slice of each side by side:
#: about this many values in all (128 KB), so the block stays in a core's L2 cache while every target reads it.
_BLOCK_VALUES = 16_384


@numba.njit(cache=True, nogil=True)
def _distances_and_matches(  # pragma: no cover - compiled
    targets: np.ndarray, by_column: np.ndarray, is_category: np.ndarray, radii: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per target: its distance to every synthetic record, the closest, the counts within each radius,
    and per column how many synthetic records hold its value (two missing values match).

    ``by_column`` holds the synthetic records column by column, ``(p, m)``. Each numeric term is
    capped at 1 (a synthetic value outside the population's range), one missing value against a
    present one costs 1, and a target's sums grow a column at a time, from 0 in column order, so
    they are those of adding one column at a time (an equal value adds 0, which leaves a sum as
    it is). The inner loops run over the records with the column's kind and the target's value
    fixed, without branches the compiler cannot turn into selects.

    The records are taken a block at a time (:data:`_BLOCK_VALUES`), every target over one block
    before the next: each record's sum is the same, but the block is read from cache by all the
    targets, where a whole column read once per target made the loop wait on memory.
    """
    k_targets, p = targets.shape
    m = by_column.shape[1]
    distance = np.empty((k_targets, m))
    closest = np.full(k_targets, np.inf)
    within = np.zeros((k_targets, radii.size), dtype=np.int64)
    same = np.zeros((k_targets, p), dtype=np.int64)
    block = max(256, _BLOCK_VALUES // max(p, 1))
    sums = np.empty(block)
    for start in range(0, m, block):
        n = min(block, m - start)
        for i in range(k_targets):
            sums[:n] = 0.0
            for k in range(p):
                x = targets[i, k]
                column = by_column[k, start : start + n]
                matches = 0
                if is_category[k]:
                    for r in range(n):
                        equal = column[r] == x
                        sums[r] += 0.0 if equal else 1.0
                        matches += equal
                elif x >= 0.0:
                    for r in range(n):
                        y = column[r]
                        present = y >= 0.0
                        sums[r] += min(abs(x - y), 1.0) if present else 1.0
                        matches += present and y == x
                else:
                    for r in range(n):
                        present = column[r] >= 0.0
                        sums[r] += 1.0 if present else 0.0
                        matches += not present
                same[i, k] += matches
            # Each statistic in a loop of its own, on locals: loops the compiler vectorises.
            row = distance[i, start : start + n]
            best = closest[i]
            for r in range(n):
                d = sums[r] / p
                row[r] = d
                best = min(best, d)
            closest[i] = best
            for j in range(radii.size):
                bound = radii[j]
                count = 0
                for r in range(n):
                    count += row[r] <= bound
                within[i, j] += count
    return distance, closest, within, same


def naive_summaries(space: FeatureSpace, synthetic: np.ndarray) -> np.ndarray:
    """TAPAS's naive feature set of one encoded synthetic set (Houssiau et al. 2022; Stadler et al. 2022)."""
    out = []
    m = max(len(synthetic), 1)
    for k, column in enumerate(space.encoding.scan_order):
        x = synthetic[:, k]
        if space.encoding.kinds[k] == CATEGORY:
            levels = len(space.encoding.levels[column])
            # Codes from UNSEEN (-2) up, shifted to count from 0 in one pass: the first two counts are
            # the unseen and missing records, left out of the levels' shares.
            shifted = x.astype(np.int64) - int(UNSEEN)
            counts = np.bincount(shifted, minlength=levels - int(UNSEEN))[-int(UNSEEN) : levels - int(UNSEEN)]
            out += [*(counts / m), (m - counts.sum()) / m]
        else:
            present = x[x >= 0]
            if present.size:
                mean, variance = float(present.mean()), float(present.var())
                # Last: the median may reorder ``present`` (this function's own copy) instead of copying it.
                out += [mean, float(np.median(present, overwrite_input=True)), variance]
            else:
                out += [0.0, 0.0, 0.0]
            out.append(1.0 - present.size / m)
    return np.asarray(out, dtype=float)
