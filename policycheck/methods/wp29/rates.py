"""Success rates and residual risk with anonymeter's intervals (Giomi et al. 2023, sec. 3.3).

A success rate is the Wilson score estimate of a Bernoulli rate with its
half-width (Wilson 1927); the residual risk ``(main - control) / (1 - control)``
carries the two half-widths by first-order error propagation; the reported
risk and its interval are clipped to [0, 1]. These are anonymeter 1.1's
definitions (``anonymeter.stats.confidence``), so its numbers and ours agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm


@dataclass(frozen=True)
class SuccessRate:
    """A Wilson-score success rate: the estimate and the half-width of its interval."""

    value: float
    error: float


@dataclass(frozen=True)
class Risk:
    """A risk clipped to [0, 1] with its (clipped) interval."""

    value: float
    interval: tuple[float, float]


def success_rate(n_total: int, n_success: float, confidence: float) -> SuccessRate:
    """Wilson score estimate ``(k + z²/2) / (n + z²)`` and half-width ``z/(n+z²)·sqrt(k(n-k)/n + z²/4)``.

    ``z`` is the two-sided normal quantile of ``confidence``. ``n_success`` may
    be fractional (a control count rescaled to the original's size).
    """
    if n_total <= 0:
        raise ValueError("a success rate needs at least one attack")
    z = float(norm.ppf(0.5 * (1.0 + confidence)))
    z2 = z * z
    denominator = n_total + z2
    variance = n_success * (n_total - n_success) / n_total
    rate = (n_success + 0.5 * z2) / denominator
    error = z / denominator * math.sqrt(max(variance, 0.0) + 0.25 * z2)
    return SuccessRate(rate, error)


def residual_success(attack: SuccessRate, control: SuccessRate) -> SuccessRate:
    """``(attack - control) / (1 - control)``, its error propagated to first order.

    Negative when the control records are easier to attack than the original
    ones; :func:`bound` clips it.
    """
    margin = 1.0 - control.value
    residual = (attack.value - control.value) / margin
    d_attack = 1.0 / abs(margin)
    d_control = (attack.value - 1.0) / margin**2
    error = math.sqrt((attack.error * d_attack) ** 2 + (control.error * d_control) ** 2)
    return SuccessRate(residual, error)


def bound(rate: SuccessRate) -> Risk:
    """The estimate and ``estimate ± error``, each clipped to [0, 1]."""

    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return Risk(clip(rate.value), (clip(rate.value - rate.error), clip(rate.value + rate.error)))


@dataclass(frozen=True)
class AttackCounts:
    """Successes of the three attacks of one criterion.

    ``n_attacks`` is the number of main (and control) attacks made;
    ``n_baseline_attacks`` that of the random-guess attack (they differ only
    when fewer singling-out queries could be generated than requested).
    """

    n_attacks: int
    n_success: int
    n_baseline: int
    n_control: float | None
    n_baseline_attacks: int

    def rates(self, confidence: float) -> dict[str, SuccessRate | None]:
        return {
            "main": success_rate(self.n_attacks, self.n_success, confidence),
            "baseline": success_rate(self.n_baseline_attacks, self.n_baseline, confidence),
            "control": None if self.n_control is None else success_rate(self.n_attacks, self.n_control, confidence),
        }

    def risk(self, confidence: float) -> Risk:
        """The residual risk with a control, else the main attack's rate (as anonymeter)."""
        r = self.rates(confidence)
        main, control = r["main"], r["control"]
        assert main is not None  # only the control may be missing
        if control is None:
            return bound(main)
        return bound(residual_success(main, control))
