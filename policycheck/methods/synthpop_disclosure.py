"""synthpop's identity and attribute disclosure measures (Raab, Nowok and Dibben 2024; Taub et al. 2018).

Raab, Nowok and Dibben, "Practical privacy metrics for synthetic data"
(arXiv:2406.16826), implemented in synthpop's ``disclosure()`` (1.9-2), take
quasi-identifying *keys* q and a *target* t. For an original record with key
k and target value t, let ``d(k)``, ``s(k)`` be the counts of records with key
k in the original and the synthetic data, and ``p_d(t|k)``, ``p_s(t|k)`` the
shares of those records carrying t. Every measure below is a share of the
``N_d`` original records (synthpop prints percentages):

- identity: ``UiO`` unique in the original (``d = 1``); ``UiOiS`` unique in
  the original with its key in the synthetic data; ``repU`` (replicated
  uniques) unique in the original *and* in the synthetic data (``d = s = 1``);
  ``UiS`` is a share of the synthetic records (``s = 1``);
- attribute: ``DiO`` the original itself discloses the target
  (``p_d(t|k) = 1``), the baseline of what the original data allows; ``iS``
  the key occurs in the synthetic data (``s > 0``); ``DiS`` the synthetic
  data discloses some target for the key; ``DiSCO`` it discloses the record's
  own target (``p_s(t|k) = 1``): disclosive in synthetic, correct in original;
  ``DiSDiO`` DiSCO and DiO together.

Keys and target are compared as exact values (synthpop's default, no
grouping of numbers), unless numeric keys are grouped first
(:func:`quantile_breaks`, :func:`group_by_breaks`: synthpop's
``ngroups_keys``); a missing value is a category of its own (synthpop's
``usekeysNA = usetargetNA = TRUE``); nothing is excluded (``denom_lim`` off).

TCAP, the targeted correct attribution probability (Taub, Elliot, Pampaka
and Smith 2018, sec. 3): over the original records whose key determines the
target in the original (``p_d(t|k) = 1``) and occurs in the synthetic data,
the mean of ``p_s(t|k)``; its baseline is the mean, over the same records,
of the target value's share in the original (a guess from the target's
distribution alone). synthpop 1.9's own "TCAP" column is a different
number, ``DiSCO / iS``; it is reported beside ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from policycheck.methods.cap_disclosure import tuple_codes


@dataclass(frozen=True)
class DisclosureCounts:
    """Record counts behind synthpop's measures (divide by ``n_original`` or ``n_synthetic``)."""

    n_original: int
    n_synthetic: int
    UiO: int
    UiS: int
    UiOiS: int
    repU: int
    DiO: int
    Dsyn: int
    iS: int
    DiS: int
    DiSCO: int
    DiSDiO: int
    tcap_records: int  # records TCAP averages over
    tcap_sum: float
    tcap_baseline_sum: float

    def shares(self) -> dict[str, float]:
        """Every measure as a share in [0, 1] (synthpop prints them times 100)."""
        n, m = self.n_original, self.n_synthetic
        return {
            "UiO": self.UiO / n,
            "UiS": self.UiS / m,
            "UiOiS": self.UiOiS / n,
            "repU": self.repU / n,
            "DiO": self.DiO / n,
            "Dsyn": self.Dsyn / m,
            "iS": self.iS / n,
            "DiS": self.DiS / n,
            "DiSCO": self.DiSCO / n,
            "DiSDiO": self.DiSDiO / n,
            "synthpop_TCAP": self.DiSCO / self.iS if self.iS else float("nan"),
        }

    @property
    def tcap(self) -> float:
        return self.tcap_sum / self.tcap_records if self.tcap_records else float("nan")

    @property
    def tcap_baseline(self) -> float:
        return self.tcap_baseline_sum / self.tcap_records if self.tcap_records else float("nan")


@dataclass(frozen=True)
class Disclosure:
    counts: DisclosureCounts
    tcap_per_record: np.ndarray  # p_s(t|k) of each TCAP record
    tcap_baseline_per_record: np.ndarray


def disclosure(original: pd.DataFrame, synthetic: pd.DataFrame, keys: Sequence[str], target: str) -> Disclosure:
    """synthpop's disclosure measures and TCAP for one synthetic set (Raab et al. 2024, sec. 3; Taub et al. 2018)."""
    o = original[[*keys, target]].astype(object)
    s = synthetic[[*keys, target]].astype(object)
    key_o, key_s = tuple_codes(o, s, keys)
    tgt_o, tgt_s = tuple_codes(o, s, [target])
    n_keys = int(max(key_o.max(initial=-1), key_s.max(initial=-1))) + 1
    n_tgt = int(max(tgt_o.max(initial=-1), tgt_s.max(initial=-1))) + 1
    d = np.bincount(key_o, minlength=n_keys)
    sy = np.bincount(key_s, minlength=n_keys)
    pair_d = np.bincount(key_o * n_tgt + tgt_o, minlength=n_keys * n_tgt).reshape(n_keys, n_tgt)
    pair_s = np.bincount(key_s * n_tgt + tgt_s, minlength=n_keys * n_tgt).reshape(n_keys, n_tgt)

    d_i, s_i = d[key_o], sy[key_o]
    dis_o = pair_d[key_o, tgt_o] == d_i  # p_d(t|k) = 1 (d_i >= 1 always)
    in_s = s_i > 0
    dis_s = in_s & (pair_s[key_o, tgt_o] == s_i)  # p_s(t|k) = 1
    any_dis_s = in_s & (pair_s[key_o].max(axis=1) == s_i)
    syn_dis = pair_s[key_s, tgt_s] == sy[key_s]

    targeted = dis_o & in_s
    p_s = pair_s[key_o[targeted], tgt_o[targeted]] / s_i[targeted]
    marginal = np.bincount(tgt_o, minlength=n_tgt) / len(tgt_o)
    base = marginal[tgt_o[targeted]]
    counts = DisclosureCounts(
        n_original=len(o),
        n_synthetic=len(s),
        UiO=int(np.sum(d_i == 1)),
        UiS=int(np.sum(sy[key_s] == 1)),
        UiOiS=int(np.sum((d_i == 1) & in_s)),
        repU=int(np.sum((d_i == 1) & (s_i == 1))),
        DiO=int(np.sum(dis_o)),
        Dsyn=int(np.sum(syn_dis)),
        iS=int(np.sum(in_s)),
        DiS=int(np.sum(any_dis_s)),
        DiSCO=int(np.sum(dis_s)),
        DiSDiO=int(np.sum(dis_s & dis_o)),
        tcap_records=int(np.sum(targeted)),
        tcap_sum=float(np.sum(p_s)),
        tcap_baseline_sum=float(np.sum(base)),
    )
    return Disclosure(counts, p_s.astype(np.float64), base.astype(np.float64))


def quantile_breaks(values: Sequence[np.ndarray], groups: int) -> np.ndarray:
    """The breaks that cut a numeric key into ``groups`` groups, as synthpop's ``disclosure()`` derives them.

    synthpop 1.9's ``disclosure(ngroups_keys = n)`` calls ``group_num``, which
    takes ``classIntervals(c(x_original, x_synthetic), n, style = "quantile")``:
    R's type-7 quantiles (NumPy's ``linear``) at ``0, 1/n, ..., 1`` of the
    present values of the original and every synthetic set together, repeated
    breaks dropped (a value held by many records can span several quantiles).
    When that leaves fewer than 3 groups, ``disclosure()`` groups again with
    ``style = "equal"``: ``n`` groups of equal width between the smallest and
    the largest value (kept even if they too are fewer than 3).
    """
    present = np.concatenate([v[~np.isnan(v)] for v in values])
    if present.size == 0:
        return np.zeros(0)
    breaks: np.ndarray = np.unique(np.quantile(present, np.linspace(0.0, 1.0, groups + 1)))
    if breaks.size - 1 < 3:
        breaks = np.unique(np.linspace(present.min(), present.max(), groups + 1))
    return breaks


def group_by_breaks(values: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """Each value's group: ``i`` for ``breaks[i] <= x < breaks[i + 1]``, the last group closed on both sides.

    R's ``cut(x, breaks, right = FALSE, include.lowest = TRUE)``, as
    ``group_num`` cuts. Missing stays missing (NaN). A value outside the
    breaks (a holdout record beyond the original's and synthetic data's
    range, where ``cut`` gives NA) joins the nearest end group rather than
    the missing values.
    """
    if breaks.size < 2:  # one value in all: one group
        return np.where(np.isnan(values), np.nan, 0.0)
    group = np.clip(np.searchsorted(breaks, values, side="right") - 1, 0, breaks.size - 2)
    return np.where(np.isnan(values), np.nan, group.astype(np.float64))
