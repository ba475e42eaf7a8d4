"""Levels a release's sample cannot resolve, said before anything is computed (issue 28).

A rule decides on the interval of its estimate (``compare: interval``). When
a level sits closer to the metric's no-leak value than the interval's
half-width at this release's sizes, even a release that leaks nothing has an
interval reaching past the level: at the fail level it can at best be
*inconclusive*, at the warn level it can at best *warn*. ``validate -r`` and
``plan -r`` say so, with the number of records that would resolve the level,
before any computation. Judged on the estimate (``compare: estimate``), such a
release fails (or warns) by chance instead, and the note says how often.

Each metric declares how wide its interval is from sizes with the
``resolution`` hook of its registration (:class:`~policycheck.metrics.base.Resolution`);
a metric without one is not checked. Nothing here names a metric.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

from policycheck.core.errors import Problem
from policycheck.metrics import registry
from policycheck.metrics.base import Resolution

if TYPE_CHECKING:
    from policycheck.policy.load import LoadedPolicy
    from policycheck.policy.model import Rule
    from policycheck.release.model import Release


@dataclass(frozen=True)
class Unresolved:
    """One level of one rule that this release's sample cannot resolve."""

    rule: str
    #: "fail" or "warn".
    which: str
    level: float
    compare: str
    direction: str
    resolution: Resolution
    #: Records after which the interval at the no-leak value would clear the level (None: no number of records).
    needed: int | None

    @property
    def distance(self) -> float:
        """How far the level lies from the no-leak value, towards the fail side (<= 0: on or behind it)."""
        r = self.resolution
        return self.level - r.no_leak if self.direction == "above" else r.no_leak - self.level

    def chance_beyond(self) -> float:
        """How often a release with no leak has an estimate beyond the level (normal approximation)."""
        r = self.resolution
        z = NormalDist().inv_cdf(1 - (1 - r.confidence) / 2)
        if r.half_width <= 0:
            return 0.0 if self.distance > 0 else 0.5
        return 1.0 - NormalDist().cdf(z * self.distance / r.half_width)

    def message(self) -> str:
        r = self.resolution
        # "at most": the estimate leaves out what only narrows the interval, so the level may yet be resolved.
        certain = r.width_is != "at most"
        reach = {"at least": "at least", "about": "about", "at most": "up to"}[r.width_is]
        width = (
            f"at {r.records:,} {r.unit} the {_percent(r.confidence)} interval of a release with no leak "
            f"(value {_num(r.no_leak)}) would reach {reach} {_num(r.half_width)} from it"
        )
        if self.distance <= 0:
            where = (
                f"the {self.which} level {_num(self.level)} is not {self.direction} the no-leak value "
                f"{_num(r.no_leak)}, so no sample resolves it"
            )
        else:
            where = (
                f"the {self.which} level {_num(self.level)} {'is' if certain else 'may be'} below what this "
                f"sample can resolve: {width}, past the level ({_num(self.distance)} away)"
            )
        at_best = {"fail": "be inconclusive", "warn": "warn"}[self.which]
        if self.compare == "estimate" or _near_end(self.compare, self.direction):
            outcome = (
                ("fails" if self.which == "fail" else "warns") if self.compare == "estimate" else ("is inconclusive")
            )
            judged = "the estimate" if self.compare == "estimate" else f"the estimate and its {self.compare} end"
            then = (
                f"; judged on {judged}, such a release has its estimate beyond the level by chance "
                f"{'about' if certain else 'up to'} {self.chance_beyond():.0%} of the time, and then {outcome}"
            )
        else:
            then = f", so such a release can {'at best' if certain else 'perhaps only'} {at_best}"
        settle = ""
        if self.needed is not None and self.distance > 0:
            settle = f"; {reach} {self.needed:,} {r.unit} would resolve it"
        return f"rule {self.rule!r}: {where}{then}{settle} ({r.basis})."


def unresolved_levels(loaded: LoadedPolicy, release: Release) -> list[tuple[Unresolved, Problem]]:
    """Every level of ``loaded``'s rules that ``release``'s sizes cannot resolve, each with its place in the policy.

    The places are ``file:line:col`` of the level in the policy (``note:`` lines of ``validate -r``).
    """
    out = []
    for index, rule in enumerate(loaded.policy.rules):
        if not rule.enabled or rule.id not in loaded.params:
            continue
        resolution = resolution_of(rule, loaded, release)
        if resolution is None:
            continue
        t = rule.threshold
        for which, level in (("fail", t.fail), ("warn", t.warn)):
            if level is None:
                continue
            found = judge_resolution(rule, which, level, resolution)
            if found is not None:
                path = ("rules", index, "threshold", f"{which}_{t.direction}")
                out.append((found, loaded.source.problem(path, "note: " + found.message(), str(loaded.path))))
    return out


def resolution_of(rule: Rule, loaded: LoadedPolicy, release: Release) -> Resolution | None:
    """The metric's resolution at ``release``'s sizes, when it declares a hook and the release has its inputs."""
    spec = registry.get_metric(rule.metric)
    if spec.resolution is None or ("holdout" in spec.inputs and release.holdout is None):
        return None
    return spec.resolution(loaded.params[rule.id], release)


def judge_resolution(rule: Rule, which: str, level: float, resolution: Resolution) -> Unresolved | None:
    """The level as :class:`Unresolved` when the interval at the no-leak value reaches past it, else None.

    What matters is the end a release with no leak needs within the level: the far end for
    ``compare: interval`` (and ``upper`` on a risk, ``lower`` where higher is safer), the estimate
    otherwise, which such a release has beyond the level by chance.
    """
    t = rule.threshold
    unresolved = Unresolved(rule.id, which, float(level), t.compare, t.direction, resolution, None)
    if unresolved.distance > 0 and resolution.half_width <= unresolved.distance:
        return None
    if which == "warn" and _near_end(t.compare, t.direction):
        return None  # the warn level is judged on the near end: a release with no leak clears it
    return Unresolved(
        rule.id, which, float(level), t.compare, t.direction, resolution, resolution.records_for(unresolved.distance)
    )


def _near_end(compare: str, direction: str) -> bool:
    """Whether ``compare`` names the interval end nearer the safe side (lower on a risk)."""
    return (compare, direction) in (("lower", "above"), ("upper", "below"))


def _num(value: float) -> str:
    return f"{float(value):.4g}" if math.isfinite(value) else str(value)


def _percent(confidence: float) -> str:
    return f"{round(confidence * 100, 2):g}%"
