"""What synthpop's measures share: references, registration defaults, the key params and each set's measures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Need
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Convention, Params, intermediate, metric

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import pandas as pd

    from policycheck.methods.synthpop_disclosure import Disclosure, DisclosureCounts
    from policycheck.release.model import Release


REFERENCES = (
    "G. M. Raab, B. Nowok, C. Dibben: Practical privacy metrics for synthetic data, arXiv:2406.16826 (2024); "
    "synthpop 1.9 disclosure().",
    "J. Taub, M. Elliot, M. Pampaka, D. Smith: Differential correct attribution probability for synthetic data: "
    "an exploration, Privacy in Statistical Databases 2018.",
)


def check_keys_given(
    params: KeyLookupParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the lookup needs keys, from ``params.keys`` or the attacker's quasi-identifiers."""
    if params.keys or attacker.quasi_identifiers:
        return []
    return [(("keys",), "synthpop's measures need key columns: give params.keys or the attacker's quasi_identifiers")]


synthpop_metric = partial(
    metric,
    family="synthpop",
    check=check_keys_given,
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    value_range=(-1.0, 1.0),
    references=REFERENCES,
)

#: Where repU and DiSCO differ from synthpop: the holdout's share is subtracted (the methods section).
SYNTHPOP_BASELINE = Convention(
    topic="chance",
    peer="synthpop 1.9 disclosure()",
    theirs="the raw share of the original records",
    ours="minus the same measure with the holdout records in the original's place (baseline: none, the raw share)",
)


class KeyLookupParams(Params):
    keys: list[str] | None = Field(
        None, description="Quasi-identifying key columns; the attacker's quasi-identifiers when omitted."
    )
    group_numeric_keys: int | None = Field(
        None,
        ge=2,
        description="Group every numeric key into this many quantile groups before the lookup (synthpop's "
        "ngroups_keys): breaks at the quantiles of the original's and the synthetic sets' values (equal-width "
        "groups when the quantiles leave fewer than 3, as synthpop does), each group closed on the left, the last "
        "on both sides. A measurement or a price rarely repeats exactly, so exact lookups match almost nothing; "
        "none (the default): exact values.",
    )


class TargetParams(Params):
    target: str | None = Field(None, description="The target column; the attacker's first secret when omitted.")
    group_numeric_target: int | None = Field(
        None,
        ge=2,
        description="Group a numeric target into this many quantile groups before the lookup (synthpop's "
        "ngroups_target), as group_numeric_keys groups the keys: a target disclosed to within its group counts; "
        "none (the default): exact values.",
    )


class KeysParams(KeyLookupParams):
    baseline: Literal["holdout", "none"] = Field(
        "holdout",
        description="holdout: the value is the excess over the same measure with the holdout records in the "
        "original's place (what the synthetic data matches by chance); none: synthpop's raw share.",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Clopper-Pearson interval.")


class SynthpopMeasures(Details):
    """synthpop's table for one synthetic set, every measure a share in [0, 1] (synthpop prints percentages).

    Raab, Nowok and Dibben 2024, sec. 3: shares of the original records, but
    UiS and Dsyn, shares of the synthetic records.
    """

    UiO: float = detail("Unique in the original (UiO)", format="share")
    UiS: float = detail("Unique in the synthetic data (UiS)", format="share", help="A share of the synthetic records.")
    UiOiS: float = detail("Unique in the original, key in the synthetic data (UiOiS)", format="share")
    repU: float = detail("Replicated uniques (repU)", format="share")
    DiO: float = detail("Target disclosed by the original (DiO)", format="share")
    Dsyn: float = detail(
        "Synthetic records whose key fixes the target (Dsyn)", format="share", help="A share of the synthetic records."
    )
    iS: float = detail("Key in the synthetic data (iS)", format="share")
    DiS: float = detail("Some target disclosed by the synthetic data (DiS)", format="share")
    DiSCO: float = detail("Disclosive in synthetic, correct in original (DiSCO)", format="share")
    DiSDiO: float = detail("DiSCO and DiO together (DiSDiO)", format="share")
    synthpop_TCAP: float = detail("synthpop 1.9's TCAP column: DiSCO / iS", format="share")

    @classmethod
    def of(cls, counts: DisclosureCounts) -> SynthpopMeasures:
        return cls(**counts.shares())


#: The intermediate repU, DiSCO and TCAP read: rules with the same keys, target and grouping share one lookup.
KEY_LOOKUP = "synthpop_key_lookup"


@dataclass(frozen=True)
class KeyLookup:
    """synthpop's counts of every synthetic set against the original's (or the holdout's) records."""

    keys: list[str]
    target: str
    results: list[Disclosure]
    #: Keys the synthetic data rarely repeats, with the share of the records whose value it does.
    unmatched: dict[str, float]
    #: The breaks of each grouped numeric key and target (none without ``group_numeric_keys`` and
    #: ``group_numeric_target``).
    groups: dict[str, list[float]]


def lookup_need(params: KeyLookupParams, records: str) -> Need:
    """The lookup a rule with ``params`` reads, on ``records`` ("original" or "holdout"); repU names no target."""
    return Need.of(
        KEY_LOOKUP,
        keys=tuple(params.keys) if params.keys else None,
        target=getattr(params, "target", None),
        groups=params.group_numeric_keys,
        target_groups=getattr(params, "group_numeric_target", None),
        records=records,
    )


def lookup_needs(params: KeyLookupParams, release: Release, control: bool) -> list[Need]:
    """The lookup on the original records, and on the holdout's when ``control`` asks and the release has one."""
    records = ["original", *(["holdout"] if control and release.holdout is not None else [])]
    return [lookup_need(params, r) for r in records]


def lookups(params: KeyLookupParams, needs: Mapping[Need, Any]) -> tuple[KeyLookup, KeyLookup | None]:
    """The lookup on the original records and, when the rule asked for it, the holdout's (None otherwise)."""
    original: KeyLookup = needs[lookup_need(params, "original")]
    return original, needs.get(lookup_need(params, "holdout"))


@intermediate(
    name=KEY_LOOKUP,
    description="synthpop's key lookup: the counts behind repU, DiSCO and TCAP for every synthetic set, against "
    "the original's records or the holdout's.",
    inputs={"original", "synthetic"},
)
def key_lookup(
    ctx: EvaluationContext,
    keys: tuple[str, ...] | None,
    target: str | None,
    groups: int | None,
    target_groups: int | None,
    records: str,
) -> KeyLookup:
    """synthpop's counts of every synthetic set against ``records`` ("original" or "holdout").

    Keys default to the attacker's quasi-identifiers and the target to its
    first secret; a target among the keys leaves them. With ``groups``,
    numeric keys are looked up by quantile group, and with ``target_groups``
    a numeric target (:func:`key_breaks`).
    """
    from policycheck.methods.synthpop_disclosure import disclosure

    used = list(keys or ctx.attacker.quasi_identifiers)
    if not used:
        raise EvaluationError(
            "synthpop's measures need key columns: give params.keys or the attacker's quasi-identifiers."
        )
    if target is None:
        if ctx.attacker.secrets:
            target = ctx.attacker.secrets[0]
        else:
            # Identity disclosure needs no target; any non-key column serves the shared computation.
            target = next((c for c in ctx.release.columns if c not in used), used[0])
    used = [k for k in used if k != target]
    source = ctx.release.holdout if records == "holdout" else ctx.release.original
    assert source is not None  # lookup_needs asks for the holdout's only when the release has one
    real = source.frame
    synthetic = [d.frame for d in ctx.release.synthetic]
    breaks = key_breaks(ctx, used, groups) if groups else {}
    if target_groups:
        breaks.update(key_breaks(ctx, [target], target_groups))
    if breaks:
        real, *synthetic = (grouped_keys(frame, breaks) for frame in (real, *synthetic))
    results = [disclosure(real, frame, used, target) for frame in synthetic]
    unmatched = unmatched_keys(real, synthetic, used) if records == "original" else {}
    return KeyLookup(used, target, results, unmatched, breaks)


def key_breaks(ctx: EvaluationContext, keys: list[str], groups: int) -> dict[str, list[float]]:
    """Each numeric key's group breaks, from the original's and every synthetic set's values (synthpop's
    ``group_num``: :func:`policycheck.methods.synthpop_disclosure.quantile_breaks`)."""
    from policycheck.methods.synthpop_disclosure import quantile_breaks
    from policycheck.release.model import ColumnType

    frames = [ctx.release.original.frame, *(d.frame for d in ctx.release.synthetic)]
    return {
        key: quantile_breaks([f[key].to_numpy(dtype=float, na_value=float("nan")) for f in frames], groups).tolist()
        for key in keys
        if ctx.release.column_types.get(key) == ColumnType.NUMERIC
    }


def grouped_keys(frame: pd.DataFrame, breaks: dict[str, list[float]]) -> pd.DataFrame:
    """``frame`` with each key of ``breaks`` replaced by its group number (missing stays missing)."""
    import numpy as np

    from policycheck.methods.synthpop_disclosure import group_by_breaks

    values = {k: frame[k].to_numpy(dtype=float, na_value=float("nan")) for k in breaks}
    return frame.assign(**{k: group_by_breaks(v, np.asarray(breaks[k])) for k, v in values.items()})


#: A key whose values the synthetic data repeats for fewer original records than this share is named in a note.
RARELY_MATCHED = 0.5


class KeyLookupDetails(Details):
    """What every exact-key measure reports beside its own details: the keys its lookups can barely match."""

    unmatched_keys: dict[str, float] = detail(
        "Keys the synthetic data rarely repeats exactly",
        format="data",
        help="Per key, the share of original records whose value of it occurs in some synthetic set (under half).",
    )
    key_groups: dict[str, list[float]] = detail(
        "Breaks of the grouped numeric keys and target",
        format="data",
        help="group_numeric_keys, group_numeric_target: per grouped column, the breaks of its groups (each group "
        "closed on the left).",
        default={},
    )


def unmatched_keys(original: pd.DataFrame, synthetic: list[pd.DataFrame], keys: list[str]) -> dict[str, float]:
    """The keys whose exact values the synthetic data rarely repeats, each with the share of original records it does.

    synthpop's measures look keys up by exact value: a key of continuous
    values (a measurement, a price) matches almost no synthetic record, so
    repU, DiSCO and TCAP are near 0 whatever the synthesizer keeps. For each
    key, the share of ``original`` records whose value of it occurs in some
    synthetic set (missing matches missing); those under :data:`RARELY_MATCHED`.
    A grouped key is given by its groups (:func:`key_lookup`).
    """
    import pandas as pd

    shares = {}
    for key in keys:
        seen = pd.concat([frame[key] for frame in synthetic], ignore_index=True)
        shares[key] = float(original[key].isin(seen).mean())
    return {k: v for k, v in shares.items() if v < RARELY_MATCHED}


def unmatched_keys_note(unmatched: dict[str, float]) -> tuple[str, ...]:
    """The note of :func:`unmatched_keys`' keys (none when every key matches)."""
    if not unmatched:
        return ()
    listed = ", ".join(f"{k} ({v:.0%})" for k, v in unmatched.items())
    return (
        f"Key values the synthetic data rarely repeats exactly (share of original records whose value occurs in "
        f"it): {listed}. Keys are looked up by exact value, so few records can match and this measure says little; "
        "group them (params.group_numeric_keys, synthpop's ngroups_keys), or choose categorical keys.",
    )
