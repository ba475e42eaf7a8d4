"""The contract between the engine and every metric family.

A metric family module (``policycheck/metrics/<family>.py``) registers its
metrics with :func:`policycheck.metrics.registry.metric` and its shared
intermediate results with :func:`policycheck.metrics.registry.intermediate`.
The compiler and the renderer only ever see the types defined here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import EvaluationError  # noqa: F401 - defined below methods/, re-exported for families
from policycheck.core.seeds import generator, seed_sequence
from policycheck.metrics.details import Details
from policycheck.release.claims import Claim
from policycheck.release.model import Release

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
        """As users read it (report timings, error messages): ``gower_dcr(columns=[age, sex], synthetic=0)``."""
        return self.text()

    def text(self, shown: Collection[str] | None = None) -> str:
        """The intermediate and the parameters in ``shown`` (default: all), values as users write them."""
        args = ", ".join(f"{k}={value_text(v)}" for k, v in self.params if shown is None or k in shown)
        return f"{self.intermediate}({args})" if args else self.intermediate


def value_text(value: Any) -> str:
    """A parameter's value as users write it: ``[age, sex]`` for a tuple of columns, never a Python repr."""
    if isinstance(value, (tuple, list, frozenset, set)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return "[" + ", ".join(value_text(v) for v in items) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "none"
    return str(value)


@dataclass(frozen=True)
class MetricResult:
    """What an evaluator measured for one rule.

    ``value`` is the number the rule's threshold is compared with (or the
    interval bound the rule names). ``details`` is the evidence for the report,
    the metric's typed :class:`~policycheck.metrics.details.Details` model (its
    fields JSON types: dicts, lists, str, int, float, bool, None; no numpy
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
    #: The evidence: the metric's typed :class:`~policycheck.metrics.details.Details` (none: no field).
    details: Details = field(default_factory=Details)
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
    #: What ``sample_size`` counts, in the plural ("test rounds" for a game).
    sample_unit: str = "records"
    #: Declared claims this measurement refutes (``Claim.of_synthetic_set(0)``), and the
    #: declared claims the value relies on; a rule relying on a claim another
    #: rule refuted in the same run cannot pass.
    refutes: tuple[Claim, ...] = ()
    relies_on: tuple[Claim, ...] = ()
    #: What ``interval`` is of, when that is not the quantity ``value`` names, as a phrase a report prints
    #: beside the interval ("of <phrase>"): its first clause (up to the first "; ") is what a table shows,
    #: the whole phrase where there is room. None: the interval is the value's own. (Last, so results
    #: built with positional fields keep their meaning.)
    interval_of: str | None = None

    @property
    def interval_of_short(self) -> str | None:
        """``interval_of``'s first clause: what a table, or a sentence already long, shows beside the interval."""
        return self.interval_of.split("; ", 1)[0] if self.interval_of else None

    def __post_init__(self) -> None:
        # A plugin written against the untyped details of earlier versions fails here, inside its
        # evaluator, as that rule's error, rather than when the report is built.
        if not isinstance(self.details, Details):
            raise TypeError(
                f"MetricResult.details must be a Details model (policycheck.metrics.details), "
                f"not {type(self.details).__name__}"
            )


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
        on which rules run or in what order (:mod:`policycheck.core.seeds`).
        """
        return generator(self.seed, *key)

    def seed_for(self, *key: str | int) -> np.random.SeedSequence:
        return seed_sequence(self.seed, *key)


#: Signature of a metric evaluator: (context, validated params, resolved needs) -> result.
Evaluate = Callable[[EvaluationContext, Any, Mapping[Need, Any]], MetricResult]
