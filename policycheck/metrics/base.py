"""The contract between the engine and every metric family.

A metric family module (``policycheck/metrics/<family>.py``) registers its
metrics with :func:`policycheck.metrics.registry.metric` and its shared
intermediate results with :func:`policycheck.metrics.registry.intermediate`.
The compiler and the renderer only ever see the types defined here.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Generic, TYPE_CHECKING, TypeVar


from policycheck.core.errors import EvaluationError  # noqa: F401 - defined below methods/, re-exported for families
from policycheck.release.model import Dataset, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    # NOTE: the executor imports multiprocessing and concurrent.futures (about
    # 15 ms): commands that run nothing (validate, plan, metrics) never need it.
    from policycheck.execution.executor import Executor


class Knowledge(str, Enum):
    """What an attacker may know. The policy's attacker model grants a set."""

    SYNTHETIC = "synthetic"  # every released synthetic set
    TARGETS = "targets"  # the full record of each target whose membership is questioned
    ORIGINAL_QI = "original_quasi_identifiers"  # quasi-identifiers of every original record
    ORIGINAL = "original"  # every original record, secrets included
    DECLARED_MECHANISM = "declared_mechanism"  # the synthesizer's published algorithm and budget


#: Knowledge each attacker model of the policy language grants.
GRANTS: dict[str, frozenset[Knowledge]] = {
    # Sees the released sets; any membership question comes with its target record.
    "no-box": frozenset({Knowledge.SYNTHETIC, Knowledge.TARGETS, Knowledge.DECLARED_MECHANISM}),
    # Paper 001: also knows the quasi-identifiers of every original record.
    "partially-informed": frozenset(
        {Knowledge.SYNTHETIC, Knowledge.TARGETS, Knowledge.DECLARED_MECHANISM, Knowledge.ORIGINAL_QI}
    ),
    # Paper 000: knows the original data and every released set.
    "maximum-knowledge": frozenset(Knowledge),
}

KNOWLEDGE_WORDS: dict[Knowledge, str] = {
    Knowledge.SYNTHETIC: "every released synthetic set",
    Knowledge.TARGETS: "the full record of each target it tests",
    Knowledge.ORIGINAL_QI: "the quasi-identifiers of every original record",
    Knowledge.ORIGINAL: "every original record, secrets included",
    Knowledge.DECLARED_MECHANISM: "the synthesizer's published mechanism and privacy budget",
}


@dataclass(frozen=True)
class AttackerView:
    """The policy's attacker model as evaluators see it."""

    model: str
    quasi_identifiers: tuple[str, ...]
    secrets: tuple[str, ...]

    @property
    def knowledge(self) -> frozenset[Knowledge]:
        return GRANTS[self.model]


@dataclass(frozen=True)
class Need:
    """A request for a shared intermediate result, e.g. the DCRs of set 0.

    Two rules whose needs are equal share one computation.
    """

    intermediate: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, intermediate: str, **params: Any) -> Need:
        return cls(intermediate, tuple(sorted(params.items())))

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def label(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.intermediate}({args})"


@dataclass(frozen=True)
class MetricResult:
    """What an evaluator measured for one rule.

    ``value`` is the number the rule's threshold is compared with (or the
    interval bound the rule names). ``details`` is JSON-serialisable evidence
    for the report (plain dicts, lists, str, int, float, bool, None; no numpy
    types). ``charts`` are chart specs the report layer renders as inline SVG;
    each is a dict with ``kind`` and ``title`` and, by kind:

    - ``"bar"``, ``"line"``, ``"scatter"``: ``x_label``, ``y_label``,
      ``series``: ``[{"name": str, "x": [...], "y": [...]}]`` (bar x may be
      category labels); optional ``reference_lines``:
      ``[{"axis": "y"|"x", "value": float, "label": str}]`` (e.g. a threshold);
    - ``"histogram"``: ``x_label``, ``series``: ``[{"name": str, "edges":
      [k+1 floats], "counts": [k ints]}]`` (overlaid, e.g. train vs holdout); optional
      ``counts_of``: what is counted, for the y axis ("share of <counts_of> in each bin"; default records);
    - ``"heatmap"``: ``row_labels``, ``col_labels``, ``values`` (2-D list,
      None for blank), optional ``marked``: ``[[row, col], ...]`` cells to
      outline (e.g. outputs that break a target epsilon).
    """

    value: float
    interval: tuple[float, float] | None = None
    confidence: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    charts: tuple[Mapping[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    #: What an attacker gets without the release's individual information
    #: (chance, or the same attack on holdout records), on the raw rate's scale.
    baseline: float | None = None
    #: The rate before the baseline is subtracted, when ``value`` is the excess.
    raw: float | None = None
    #: Plain words naming the baseline, e.g. "chance: sum of p^2 over the secret's values".
    baseline_label: str | None = None
    #: Records behind the interval; the verdict of an inconclusive rule uses it
    #: to say how many records would settle the question.
    sample_size: int | None = None
    #: Declared claims this measurement refutes ("synthetic[0]:epsilon"), and the
    #: declared claims the value relies on; a rule relying on a claim another
    #: rule refuted in the same run cannot pass.
    refutes: tuple[str, ...] = ()
    relies_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resolution:
    """What a release's sample sizes let a metric resolve, estimated before anything is computed.

    A metric's ``resolution`` hook (see :mod:`policycheck.metrics.registry`)
    returns it from the release's sizes and its params: the value a release
    without leakage is expected to have, and how far that value's confidence
    interval would reach towards the fail side. A level closer to the no-leak
    value than ``half_width`` cannot be resolved by this sample: even a
    release with no leak would have an interval reaching past it.
    """

    #: The value expected when nothing leaks (0.5 for the DCR share, 0 for an excess over a baseline).
    no_leak: float
    #: How far the interval of a value at ``no_leak`` reaches towards the fail side, at ``records``.
    half_width: float
    #: The sample size the width is for (what the metric's interval counts).
    records: int
    #: What ``records`` counts, e.g. "synthetic records".
    unit: str
    #: How the width was estimated, and what it assumes, in words.
    basis: str
    #: The confidence level of that interval (a rule over several sets: the Bonferroni level).
    confidence: float = 0.95
    #: How the real width relates to ``half_width``: "at least" (what the estimate leaves out only
    #: widens it), "about", or "at most" (what it leaves out, such as ties, only narrows it).
    width_is: str = "about"

    def records_for(self, distance: float) -> int | None:
        """Records after which the half-width shrinks to ``distance`` (as 1/sqrt(n)); None if none does."""
        import math

        if distance <= 0 or not math.isfinite(distance):
            return None
        if self.half_width <= distance:
            return self.records
        # NOTE: the tolerance keeps rounding noise from adding a record.
        return math.ceil(self.records * (self.half_width / distance) ** 2 - 1e-9)


def _serial_executor() -> Executor:
    from policycheck.execution.executor import SerialExecutor

    return SerialExecutor()


@dataclass
class EvaluationContext:
    """Everything an evaluator may use, handed over by the runner."""

    release: Release
    attacker: AttackerView
    seed: int
    executor: Executor = field(default_factory=_serial_executor)
    #: Folder of the policy file: relative paths in params resolve against it.
    base_dir: Path = field(default_factory=Path.cwd)
    #: Called with (label, done, total) during long steps; drives the progress bar.
    progress: Callable[[str, int, int], None] = lambda label, done, total: None

    def rng(self, *key: str | int) -> np.random.Generator:
        """A generator for one named random choice.

        Derived from the run's seed and the key only, so results do not depend
        on which rules run or in what order.
        """
        import numpy as np
        return np.random.default_rng(self.seed_for(*key))

    def seed_for(self, *key: str | int) -> np.random.SeedSequence:
        import numpy as np
        words = [zlib.crc32(str(k).encode()) for k in key]
        return np.random.SeedSequence(entropy=self.seed, spawn_key=tuple(words))


#: What a metric measures on one synthetic set (see :func:`worst_of_sets`).
T = TypeVar("T")


@dataclass(frozen=True)
class WorstOfSets(Generic[T]):
    """Every synthetic set's measurement, in the release's order, and the worst of them."""

    #: Confidence of each set's interval: the rule's, Bonferroni-corrected over the sets.
    level: float
    per_set: list[T]
    #: None when no set could be measured.
    worst: T | None


def worst_of_sets(
    ctx: EvaluationContext,
    confidence: float,
    measure: Callable[[int, Dataset, float], T],
    score: Callable[[T], float | None],
    higher_is_worse: bool = True,
) -> WorstOfSets[T]:
    """Measure every synthetic set at the Bonferroni level and pick the worst.

    A release discloses what its most disclosive set does, so a rule reports
    the worst set; as that is the worst of k intervals, each is taken at the
    Bonferroni level (:func:`policycheck.core.stats.bonferroni`), so the one
    reported holds at the rule's confidence. ``measure(i, set, level)``
    measures set ``i``; ``score`` gives the number compared (None: the set
    could not be measured and is passed over); ``higher_is_worse`` is False
    for protections, where the lowest is worst. Of equal scores the first
    set's wins.
    """
    import numpy as np
    from policycheck.core.stats import bonferroni
    sets = ctx.release.synthetic
    level = bonferroni(confidence, len(sets))
    per_set = [measure(i, dataset, level) for i, dataset in enumerate(sets)]
    scored = [(value, m) for m in per_set if (value := score(m)) is not None]
    if not scored:
        return WorstOfSets(level, per_set, None)
    values = [value for value, _ in scored]
    worst = np.argmax(values) if higher_is_worse else np.argmin(values)
    return WorstOfSets(level, per_set, scored[int(worst)][1])


#: Signature of a metric evaluator: (context, validated params, resolved needs) -> result.
Evaluate = Callable[[EvaluationContext, Any, Mapping[Need, Any]], MetricResult]
