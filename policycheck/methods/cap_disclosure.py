"""Correct attribution probability (CAP) and SDMetrics' disclosure protection.

CAP (Elliot 2014; Taub et al. 2018): an attacker who knows a real person's
key columns looks up the synthetic records with the same key and attributes
to the person the sensitive values those records carry. For a real record
``r`` whose key occurs in the synthetic data, ``CAP_r`` is the share of the
synthetic records with that key that carry ``r``'s sensitive values; real
records whose key the synthetic data lacks are left out (SDMetrics' 'cap'
method). SDMetrics 0.32's ``DisclosureProtection`` reports

- ``cap_protection = 1 - mean_r CAP_r``;
- ``baseline_protection = 1 - 1 / prod_s nunique(real[s])``, the protection
  against a guess uniform over the sensitive combinations;
- ``score = min(cap_protection / baseline_protection, 1)`` (undefined when
  the baseline is 0).

Continuous columns are cut into ``bins`` equal-width bins fitted on the real
data (``pandas.cut``, its outer edges then opened to infinity for the
synthetic data); a missing value is a category of its own. These are
SDMetrics' conventions, kept so that our numbers equal its numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

NULL = "__NULL_VALUE__"


@dataclass(frozen=True)
class CapOutcome:
    """Per matched real record its CAP, and the protection numbers."""

    cap: np.ndarray  # CAP of every real record whose key the synthetic data holds
    matched: int
    total: int
    baseline_protection: float

    @property
    def cap_protection(self) -> float:
        return float(1.0 - self.cap.mean()) if self.cap.size else float("nan")

    def score(self, cap: np.ndarray | None = None) -> float:
        """``min(cap_protection / baseline_protection, 1)``; NaN when undefined."""
        values = self.cap if cap is None else cap
        if self.baseline_protection == 0 or values.size == 0:
            return float("nan")
        return min((1.0 - float(values.mean())) / self.baseline_protection, 1.0)


def discretize(real: pd.Series, synthetic: pd.Series, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal-width bins fitted on the real values; the synthetic values cut on the same edges, opened at both ends."""
    labels = [str(i) for i in range(bins)]
    real_binned, edges = pd.cut(pd.to_numeric(real.to_numpy()), bins, labels=labels, retbins=True)
    edges[0], edges[-1] = -np.inf, np.inf
    synthetic_binned = pd.cut(pd.to_numeric(synthetic.to_numpy()), edges, labels=labels)
    return np.asarray(real_binned, dtype=object), np.asarray(synthetic_binned, dtype=object)


def prepare(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    columns: Sequence[str],
    continuous: Sequence[str],
    bins: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Copies of the used columns with continuous ones binned and missing values made a category."""
    r = real[list(columns)].copy()
    s = synthetic[list(columns)].copy()
    for col in continuous:
        r[col], s[col] = discretize(real[col], synthetic[col], bins)
    for col in columns:
        seen = set(r[col].dropna().unique()) | set(s[col].dropna().unique())
        null = NULL
        while null in seen:
            null += "_"
        r[col] = r[col].astype(object).where(r[col].notna(), null)
        s[col] = s[col].astype(object).where(s[col].notna(), null)
    return r, s


def cap_disclosure(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    known: Sequence[str],
    sensitive: Sequence[str],
    continuous: Sequence[str] = (),
    bins: int = 10,
) -> CapOutcome:
    """Per-record CAP of the real records against the synthetic data (SDMetrics' DisclosureProtection, 'cap')."""
    columns = list(dict.fromkeys([*known, *sensitive]))
    r, s = prepare(real, synthetic, columns, [c for c in continuous if c in columns], bins)
    baseline = 1.0 - 1.0 / float(np.prod([r[c].nunique(dropna=False) for c in sensitive]))
    key_r, key_s = tuple_codes(r, s, known)
    sens_r, sens_s = tuple_codes(r, s, sensitive)
    # Synthetic records per key, and per (key, sensitive values).
    n_keys = int(max(key_r.max(initial=-1), key_s.max(initial=-1))) + 1
    n_sens = int(max(sens_r.max(initial=-1), sens_s.max(initial=-1))) + 1
    per_key = np.bincount(key_s, minlength=n_keys)
    pair_s = key_s.astype(np.int64) * n_sens + sens_s
    pairs, pair_counts = np.unique(pair_s, return_counts=True)
    matched = per_key[key_r] > 0
    pair_r = key_r[matched].astype(np.int64) * n_sens + sens_r[matched]
    at = np.searchsorted(pairs, pair_r)
    at_valid = np.minimum(at, max(len(pairs) - 1, 0))
    hits = (
        np.where((at < len(pairs)) & (pairs[at_valid] == pair_r), pair_counts[at_valid], 0)
        if len(pairs)
        else np.zeros(len(pair_r))
    )
    cap = hits / per_key[key_r[matched]]
    return CapOutcome(
        cap=cap.astype(np.float64), matched=int(matched.sum()), total=len(real), baseline_protection=baseline
    )


def tuple_codes(r: pd.DataFrame, s: pd.DataFrame, columns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """One integer per distinct tuple of ``columns`` values, shared by both frames (equal as Python values)."""
    both = pd.concat([r[list(columns)], s[list(columns)]], ignore_index=True)
    codes = np.zeros(len(both), dtype=np.int64)
    for col in columns:
        c, uniques = pd.factorize(both[col].astype(object))
        # Re-number after each column so the combined codes never overflow.
        _, codes = np.unique(codes * (len(uniques) + 1) + c, return_inverse=True)
        codes = codes.reshape(-1).astype(np.int64)
    return codes[: len(r)], codes[len(r) :]
