"""The DCR share: synthetic records closer to training than to holdout (paper 002, sec. 3).

The paper defines ``DCR_share = #(DCR_synth_train < DCR_synth_holdout) /
#synthetic`` in percent, with 50 % as the ideal. Training and holdout must have
the same size, or the larger set wins more nearest neighbours by its size
alone.

Ties. On coarse categorical data many synthetic records are exactly as close
to a training record as to a holdout record (often both at distance 0: a
common combination of categories). The strict share of the paper (and of
SDMetrics' ``DCROverfittingProtection`` and SURE's ``validation_dcr_test``)
counts them as not closer to training, so its no-leak line is
``(1 - tie share) / 2``, not 0.5: a release with 20 % verbatim training rows
scored 0.518 on a census extract and passed. A tie says nothing about
membership, so our share is taken among the records that are *not* tied:
``closer / (closer + farther)``. When the synthesizer saw training and holdout
records alike, each untied record is as likely to sit closer to either, so
0.5 is the expected share under no leakage whatever the tie rate, and copies
are not diluted by ties. The strict share and the half-ties share
``(closer + ties / 2) / #synthetic`` are reported beside it.

Clusters. With no leakage the split of the real records into training and
holdout is a random relabelling of the same people, and an untied synthetic
record counts as closer to training exactly when its nearest real record
landed in training. Synthetic records with the same nearest real record share
that one coin; on coarse data a thousand synthetic records may hang on ten
people. So the share's interval counts clusters, not records: synthetic
records grouped by their nearest real record (:func:`nearest_real_record`,
:func:`policycheck.core.stats.effective_trials`). With distinct nearest records it
is the plain exact interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Quantile levels of the DCR distributions shown in reports.
QUANTILE_LEVELS = (0.0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0)


@dataclass(frozen=True)
class DcrShareCounts:
    """Counts behind a DCR share.

    Attributes
    ----------
    closer_to_training : int
        Synthetic records strictly closer to training than to holdout.
    ties : int
        Synthetic records exactly as close to both.
    closer_to_holdout : int
        Synthetic records strictly closer to holdout.
    total : int
        Synthetic records compared.
    """

    closer_to_training: int
    ties: int
    closer_to_holdout: int
    total: int

    @property
    def untied(self) -> int:
        """Synthetic records closer to one of the two sets: the records the share is taken over."""
        return self.closer_to_training + self.closer_to_holdout

    @property
    def share(self) -> float:
        """``closer / (closer + farther)``: the share among untied records (0.5 with no leakage)."""
        return self.closer_to_training / self.untied if self.untied else 0.5

    @property
    def strict_share(self) -> float:
        """``closer / #synthetic``: the paper's, SDMetrics' and SURE's share (ties count as not closer)."""
        return self.closer_to_training / self.total if self.total else float("nan")

    @property
    def half_ties_share(self) -> float:
        """``(closer + ties / 2) / #synthetic``: ties split evenly between the two sets."""
        return (self.closer_to_training + self.ties / 2) / self.total if self.total else float("nan")


def dcr_share_counts(dcr_to_training: np.ndarray, dcr_to_holdout: np.ndarray) -> DcrShareCounts:
    """Count synthetic records by which real set holds their closest record (paper 002, sec. 3).

    Parameters
    ----------
    dcr_to_training, dcr_to_holdout : numpy.ndarray
        Each synthetic record's DCR to the training set and to the (equal-size)
        holdout set, computed with the same Gower convention.

    Returns
    -------
    DcrShareCounts
    """
    closer = int(np.sum(dcr_to_training < dcr_to_holdout))
    ties = int(np.sum(dcr_to_training == dcr_to_holdout))
    return DcrShareCounts(closer, ties, int(dcr_to_training.size) - closer - ties, int(dcr_to_training.size))


def equal_size_subsample(n_training: int, n_holdout: int, rng: np.random.Generator) -> tuple[str, np.ndarray] | None:
    """Pick which rows of the larger real set stand against the smaller one.

    Returns ``None`` when the sizes are equal, else the role of the larger set
    (``"original"`` or ``"holdout"``) and the sorted indices of a seeded sample
    without replacement of the smaller set's size.
    """
    if n_training == n_holdout:
        return None
    role, larger, smaller = (
        ("original", n_training, n_holdout) if n_training > n_holdout else ("holdout", n_holdout, n_training)
    )
    return role, np.sort(rng.choice(larger, size=smaller, replace=False))


def dcr_quantiles(dcr: np.ndarray) -> dict[str, float]:
    """Quantiles of a DCR distribution at :data:`QUANTILE_LEVELS`, JSON-ready."""
    if dcr.size == 0:
        return {}
    values = np.quantile(dcr, QUANTILE_LEVELS)
    return {f"q{level:g}": float(v) for level, v in zip(QUANTILE_LEVELS, values, strict=True)}


def nearest_real_record(
    dcr_to_training: np.ndarray,
    dcr_to_holdout: np.ndarray,
    training_index: np.ndarray,
    holdout_index: np.ndarray,
    people: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """A cluster id per synthetic record: its nearest real record, training or holdout.

    Whether an untied synthetic record is closer to training is decided by
    the set its nearest real record landed in, so records with the same
    nearest real record are one trial of :func:`policycheck.core.stats.effective_trials`
    and records with different ones depend, to first order, on different
    people. Training records are numbered first, holdout records after them;
    a tied record takes its nearest training record (ties are no trial of the
    share). The spread this gives matches the share's spread over random
    re-splits of the real records (docs/metrics.md, ``dcr_share``). With
    ``people`` (each training and holdout record's person, one numbering for
    both) the cluster is the nearest real record's person: synthetic records
    near a man's different years hang on one man.
    """
    training = np.asarray(training_index, dtype=np.int64).reshape(-1)
    holdout = np.asarray(holdout_index, dtype=np.int64).reshape(-1)
    if training.size == 0:
        return np.zeros(0, dtype=np.int64)
    offset = int(training.max()) + 1  # holdout records follow the training records
    closer_to_holdout = np.asarray(dcr_to_holdout) < np.asarray(dcr_to_training)
    if people is not None:
        return np.where(closer_to_holdout, people[1][holdout], people[0][training])
    return np.where(closer_to_holdout, offset + holdout, training)
