"""Registry of metrics and shared intermediate results.

A family module registers what it offers at import time::

    @metric(
        name="dcr_share",
        family="membership",
        params=DcrShareParams,
        knowledge={Knowledge.SYNTHETIC},
        inputs={"original", "holdout", "synthetic"},
        value_range=(0.0, 1.0),
        needs=lambda params, release: [Need.of("gower_dcr", synthetic=i) ...],
        meaning="...", remedy="...",
        fail_direction="above",          # higher is riskier: thresholds use fail_above
        check=check_dcr_params,          # optional: params against a release's columns, before running
        method=Method(definition="...", source="paper 002, sec. 3", conventions=(Convention(...), ...)),
    )
    def dcr_share(ctx, params, needs) -> MetricResult: ...

``resolution(params, release)``, when given, returns a
:class:`~policycheck.metrics.base.Resolution`: the metric's no-leak value and
how far its interval would reach from it at this release's sizes, estimated
before anything is computed. ``validate -r`` and ``plan -r`` use it to say
when a level sits below what the sample can resolve, and how many records
would resolve it (:mod:`policycheck.engine.resolution`).

``check(params, release, attacker)`` returns ``[(param_path, message), ...]``
for params that cannot work on this release (a categorical secret without
an order, say); ``validate -r``, ``plan -r`` and ``check`` report them as
``file:line:col`` before anything is computed (exit 2).

Every package in ``policycheck.metrics`` (but the contract and its helpers,
:data:`INFRASTRUCTURE`) is a family, one metric per module
(``metrics/<family>/<metric>.py``); :func:`load_families` imports every
module of it. ``details=`` names the typed model of the evidence a metric
returns (:mod:`policycheck.metrics.details`). Third-party families are found through the
``policycheck.metrics`` entry-point group. Neither the compiler nor the
renderer names a metric, so adding one edits neither. A metric's
:class:`Method` (definition, source, and the conventions where it differs
from a peer implementation) is registered with it; reports carry the
methods of the metrics they used, with each convention's effect measured
on the demo (:func:`convention_effects`, written by
``bench/convention_effects.py``).
"""

from __future__ import annotations

import importlib
import json
import logging
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from policycheck.metrics.base import AttackerView, Evaluate, EvaluationContext, Knowledge, Need, Resolution
from policycheck.metrics.details import Details
from policycheck.release.model import Release

log = logging.getLogger(__name__)

#: Auditor-side inputs a metric may read (beside what the attacker knows).
INPUTS = frozenset({"original", "holdout", "synthetic", "population", "synthesizer", "ledger"})
#: The inputs that are data sets of the release (a rule reads an optional one only when the release has it).
DATA_SETS = frozenset({"original", "holdout", "synthetic", "population"})


class Params(BaseModel):
    """Base class of every metric's parameter model: unknown keys are errors."""

    # NOTE: defer_build: a model's validator is built when it first validates,
    # so a command builds only the models of the metrics its policy names
    # (building all forty costs more than the rest of `validate`).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


@dataclass(frozen=True)
class Convention:
    """One place where a metric differs on purpose from a peer implementation (or from its paper).

    ``effect``, when the demo can show it, names the entry of
    convention_effects.json that holds the metric's value on the demo's
    releases under ours and under the peer's convention, the rest held equal.
    """

    topic: str
    #: The peer implementation (or paper) and its version, e.g. "SURE (clearbox-sure 0.2.16)".
    peer: str
    #: What the peer does, in its own terms.
    theirs: str
    #: What we do, and why.
    ours: str
    effect: str | None = None


@dataclass(frozen=True)
class Method:
    """The methods-section entry of a metric: its definition, its source, and its conventions."""

    #: What the number is, as a formula in words.
    definition: str
    #: Where it comes from: paper number and section ("paper 002, sec. 4"), or the peer tool it follows.
    source: str
    conventions: tuple[Convention, ...] = ()


#: The committed effects of each convention on the demo (bench/convention_effects.py writes it).
EFFECTS_FILE = Path(__file__).with_name("convention_effects.json")


@cache
def convention_effects() -> dict[str, Any]:
    """Measured effects by ``Convention.effect`` key: per demo release, the value under ours and the peer's."""
    if not EFFECTS_FILE.is_file():  # pragma: no cover - an installation without package data
        return {}
    effects: dict[str, Any] = json.loads(EFFECTS_FILE.read_text(encoding="utf-8"))["effects"]
    return effects


@dataclass(frozen=True)
class MetricSpec:
    name: str
    family: str
    params: type[BaseModel]
    evaluate: Evaluate
    knowledge: frozenset[Knowledge]
    inputs: frozenset[str]
    #: Inputs read only when the release has them (e.g. a holdout used as a control).
    optional_inputs: frozenset[str] = frozenset()
    #: Whether ``params.baseline: holdout`` needs a holdout set (no raw measure on the same scale stands in).
    holdout_baseline_needs_holdout: bool = False
    #: Inclusive bounds of the metric's value; thresholds outside are rejected.
    value_range: tuple[float | None, float | None] = (None, None)
    #: Names of params fields that hold a column name or a list of them.
    column_params: tuple[str, ...] = ()
    needs: Callable[[Any, Release], list[Need]] = lambda params, release: []
    #: One line: what the number is.
    summary: str = ""
    #: Plain words for the report: how to read the number.
    meaning: str = ""
    #: What to do when the rule fails.
    remedy: str = ""
    references: tuple[str, ...] = ()
    #: Which way is unsafe: "above" (higher is riskier, thresholds use fail_above)
    #: or "below" (higher is safer, thresholds use fail_below).
    fail_direction: Literal["above", "below"] = "above"
    #: What a pass means when it means less than "safe", e.g. "not refuted by this test".
    pass_means: str = ""
    #: Checks of the params against a release, before anything is computed:
    #: check(params, release, attacker) -> [(param path, message), ...].
    check: Callable[[Any, Release, AttackerView], list[tuple[tuple[str | int, ...], str]]] | None = None
    #: The methods-section entry: definition, source, conventions against peers.
    method: Method | None = None
    #: Why a rule should decide on this metric's value (``compare: estimate``) rather than on its
    #: interval, when the value is itself a confidence bound; ``init`` writes that, with this reason.
    value_is_bound: str = ""
    #: The no-leak value and interval width at a release's sizes, before computing (see the module doc).
    resolution: Callable[[Any, Release], Resolution | None] | None = None
    #: The typed model of the evidence the evaluator returns (labels, units, formats for the report).
    details: type[Details] | None = None
    #: A membership measure over the release as a whole (a distance or density test averaged over the
    #: records), which passes releases that expose a few records (Yao et al., "The DCR Delusion", 2025):
    #: the decision page names such rules where no rule plays the membership game.
    release_level_membership: bool = False


@dataclass(frozen=True)
class IntermediateSpec:
    name: str
    compute: Callable[..., Any]  # compute(ctx, **need.params) -> Any
    description: str
    inputs: frozenset[str] = frozenset()
    # compute_batch(ctx, [need.params, ...]) -> [value or Exception, ...]
    compute_batch: Callable[..., list[Any]] | None = None
    # estimate(release, **need.params) -> cost_model.StepEstimate (time and memory, shown by `plan`)
    estimate: Callable[..., Any] | None = None


_METRICS: dict[str, MetricSpec] = {}
_INTERMEDIATES: dict[str, IntermediateSpec] = {}
_LOADED = False


def metric(
    *,
    name: str,
    family: str,
    params: type[BaseModel],
    knowledge: Iterable[Knowledge],
    inputs: Iterable[str],
    optional_inputs: Iterable[str] = (),
    holdout_baseline_needs_holdout: bool = False,
    value_range: tuple[float | None, float | None] = (None, None),
    column_params: Iterable[str] = (),
    needs: Callable[[Any, Release], list[Need]] | None = None,
    meaning: str = "",
    remedy: str = "",
    references: Iterable[str] = (),
    fail_direction: Literal["above", "below"] = "above",
    pass_means: str = "",
    check: Callable[[Any, Release, AttackerView], list[tuple[tuple[str | int, ...], str]]] | None = None,
    method: Method | None = None,
    value_is_bound: str = "",
    resolution: Callable[[Any, Release], Resolution | None] | None = None,
    details: type[Details] | None = None,
    release_level_membership: bool = False,
) -> Callable[[Evaluate], Evaluate]:
    """Register an evaluator under ``name`` (the policy's ``metric:`` value)."""

    def register(fn: Evaluate) -> Evaluate:
        if name in _METRICS:
            raise ValueError(f"metric {name!r} is registered twice")
        unknown = (set(inputs) | set(optional_inputs)) - INPUTS
        if unknown:
            raise ValueError(f"metric {name!r} names unknown inputs {sorted(unknown)}")
        for col in column_params:
            if col not in params.model_fields:
                raise ValueError(f"metric {name!r}: column param {col!r} is not a field of {params.__name__}")
        summary = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else name
        _METRICS[name] = MetricSpec(
            name=name,
            family=family,
            params=params,
            evaluate=fn,
            knowledge=frozenset(knowledge),
            inputs=frozenset(inputs),
            optional_inputs=frozenset(optional_inputs),
            holdout_baseline_needs_holdout=holdout_baseline_needs_holdout,
            value_range=value_range,
            column_params=tuple(column_params),
            needs=needs or (lambda p, r: []),
            summary=summary,
            meaning=meaning,
            remedy=remedy,
            references=tuple(references),
            fail_direction=fail_direction,
            pass_means=pass_means,
            check=check,
            method=method,
            value_is_bound=value_is_bound,
            resolution=resolution,
            details=details,
            release_level_membership=release_level_membership,
        )
        return fn

    return register


def intermediate(
    *,
    name: str,
    description: str,
    inputs: Iterable[str] = (),
    batch: Callable[..., list[Any]] | None = None,
    estimate: Callable[..., Any] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a shared intermediate result computed once per distinct Need.

    ``batch(ctx, [kwargs, ...])``, when given, computes several Needs of the
    intermediate at once and returns, per Need, its value or the exception
    that stopped it: their work then goes to the executor in one call, so
    small jobs (one LP each, say) run side by side instead of one by one.
    ``estimate(release, **kwargs)``, when given, returns the step's
    :class:`policycheck.methods.cost_model.StepEstimate`, which ``plan`` prints.
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in _INTERMEDIATES:
            raise ValueError(f"intermediate {name!r} is registered twice")
        _INTERMEDIATES[name] = IntermediateSpec(name, fn, description, frozenset(inputs), batch, estimate)
        return fn

    return register


#: Modules of the metrics package that are the contract and its helpers, not families.
INFRASTRUCTURE = frozenset({"base", "registry", "details", "combinators"})


def load_families() -> None:
    """Import every family module once (built-in, then entry points)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import policycheck.metrics as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name in INFRASTRUCTURE:
            continue
        family = importlib.import_module(f"{pkg.__name__}.{info.name}")
        if info.ispkg:
            # A family package: every module in it registers what it defines (one metric per module).
            for sub in pkgutil.walk_packages(family.__path__, prefix=f"{family.__name__}."):
                importlib.import_module(sub.name)
    for ep in entry_points(group="policycheck.metrics"):
        # NOTE: one broken plugin must not take the built-in metrics down.
        try:
            ep.load()
        except Exception as exc:  # pragma: no cover - depends on installed plugins
            log.warning("could not load metric plugin %s: %s", ep.name, exc)


def metrics() -> dict[str, MetricSpec]:
    load_families()
    return dict(_METRICS)


def get_metric(name: str) -> MetricSpec:
    load_families()
    return _METRICS[name]


def intermediates() -> dict[str, IntermediateSpec]:
    load_families()
    return dict(_INTERMEDIATES)


def compute_intermediate(ctx: EvaluationContext, need: Need) -> Any:
    load_families()
    return _INTERMEDIATES[need.intermediate].compute(ctx, **need.kwargs)


def can_batch(need: Need) -> bool:
    """Whether Needs of this intermediate may be computed together."""
    load_families()
    return _INTERMEDIATES[need.intermediate].compute_batch is not None


def compute_intermediates(ctx: EvaluationContext, needs: list[Need]) -> list[Any]:
    """Several Needs of one batching intermediate: per Need, its value or its exception."""
    load_families()
    spec = _INTERMEDIATES[needs[0].intermediate]
    if spec.compute_batch is None or any(n.intermediate != spec.name for n in needs):
        raise ValueError("compute_intermediates takes Needs of one intermediate that batches")
    return spec.compute_batch(ctx, [n.kwargs for n in needs])


def imported_where_used(module: str, names: dict[str, tuple[str, str | None]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for the heavy names a family imports inside its functions.

    ``names`` maps a name to ``(module, attribute)`` (attribute None for the
    module itself), so ``from policycheck.metrics.<family> import name`` keeps
    working while the registry, and every command that reads no data, loads
    without numpy, scipy or numba.
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            source, attribute = names[name]
            found = importlib.import_module(source)
            return found if attribute is None else getattr(found, attribute)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
