"""``dp_total_epsilon``: the privacy budget of this release and the ledger's earlier ones, composed."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import Details, detail
from policycheck.metrics.dp.common import REFERENCE, claim_id, declared_mechanism, json_number
from policycheck.metrics.registry import Method, Params, metric
from policycheck.release.claims import Claim
from policycheck.release.model import Release

if TYPE_CHECKING:
    from policycheck.release.mechanism import Mechanism

COMPOSITION_REFERENCES = (
    "Kairouz, Oh, Viswanath. The composition theorem for differential privacy. IEEE Trans. Inf. Theory 2017.",
    "Google dp_accounting library (RDP and PLD accountants), https://github.com/google/differential-privacy.",
)

METHOD = Method(
    definition="Total epsilon at the given delta of this release's sets and the ledger's earlier releases, by "
    "basic, advanced, RDP or PLD composition (dp_accounting); best takes the tightest.",
    source="Kairouz, Oh, Viswanath 2017 (composition); Google dp_accounting (RDP, PLD)",
)


class TotalEpsilonParams(Params):
    delta: float = Field(ge=0, lt=1, description="Total delta the policy allows across every counted release.")
    ledger: str | None = Field(
        None,
        description="Ledger file of earlier releases of the same original (path relative to the policy file); "
        "omit to count this release only.",
    )
    accountant: Literal["best", "basic", "advanced", "rdp", "pld"] = Field(
        "best",
        description="Composition used for the value: 'best' is the smallest epsilon of every accountant that "
        "applies (each is a valid upper bound); basic, advanced (Kairouz-Oh-Viswanath), rdp (Renyi) and pld "
        "(privacy loss distributions) use dp_accounting where the accounting is not a closed formula.",
    )


class Contribution(Details):
    """One counted synthetic set: its declared mechanism and its own budget."""

    source: str = detail("Source", help="this release or ledger")
    release: str = detail("Release")
    set: str = detail("Synthetic set")
    released_on: str | None = detail("Released on", default=None)
    mechanism: str = detail("Declared mechanism")
    declared_epsilon: float | None = detail("Declared epsilon", default=None)
    declared_delta: float | None = detail("Declared delta", default=None)
    rho: float | None = detail("Declared rho (zCDP)", default=None)
    steps: int | None = detail("Steps", default=None)
    standalone_epsilon: float | None = detail("Epsilon on its own", default=None)
    standalone_delta: float | None = detail("Delta on its own", default=None)


class TotalEpsilonDetails(Details):
    target_delta: float = detail("Target delta")
    accountant: str = detail("Accountant of the value")
    total_epsilon: float | None = detail("Total epsilon", help="None when infinite.")
    infinite: bool = detail("Infinite")
    by_accountant: dict[str, float | None] = detail("Total by accountant", help="None: infinite or not applicable.")
    not_applicable: dict[str, str] = detail("Accountants that do not apply")
    contributions: list[Contribution] = detail("Counted sets")
    ledger: str | None = detail("Ledger")
    sets_counted: int = detail("Sets counted", unit="synthetic sets")


@dataclass(frozen=True)
class Counted:
    """One mechanism the total counts: this release's set or a ledger entry's."""

    source: str
    release: str
    set: str
    mechanism: Mechanism | None
    claim: Claim
    released_on: str | None = None


def _counted(ctx: EvaluationContext, params: TotalEpsilonParams) -> tuple[list[Counted], list[str]]:
    """Every counted mechanism, this release's sets first, then the ledger's releases."""
    from policycheck.methods.dp.ledger import LedgerError, load_ledger, original_mismatch

    rows: list[Counted] = []
    notes: list[str] = []
    for i, ds in enumerate(ctx.release.synthetic):
        mech = declared_mechanism(ds.synthesizer, f"synthetic set {ds.name!r}")
        rows.append(Counted("this release", ctx.release.id, ds.name, mech, claim_id(i)))
    if params.ledger:
        path = (Path(ctx.base_dir) / params.ledger).resolve()
        try:
            ledger = load_ledger(path)
        except LedgerError as exc:
            raise EvaluationError(str(exc)) from None
        mismatch = original_mismatch(ledger, path, ctx.release)
        if mismatch:
            raise EvaluationError(mismatch)
        for entry in ledger.releases:
            if entry.id == ctx.release.id:
                notes.append(f"The ledger already lists release {entry.id!r}; it was counted once, as this release.")
                continue
            for j, mech in enumerate(entry.mechanisms, start=1):
                rows.append(
                    Counted(
                        "ledger",
                        entry.id,
                        f"{entry.id}[{j}]",
                        mech,
                        Claim.of_ledger(entry.id, j),
                        entry.released_on.isoformat() if entry.released_on else None,
                    )
                )
    return rows, notes


def check_accountant(
    params: TotalEpsilonParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the chosen accountant must apply to every mechanism this release's sets declare.

    (The ledger's mechanisms are judged by :func:`policycheck.methods.dp.ledger.check_ledger`, where the
    policy loader reads the ledger.)
    """
    from policycheck.methods.dp import composition
    from policycheck.methods.dp.ledger import other_accountants, release_mechanisms

    if params.accountant == "best":
        return []
    declared = release_mechanisms(release)
    reason = composition.inapplicable(params.accountant, declared, params.delta) if declared else None
    if reason is None:
        return []
    return [
        (
            ("accountant",),
            f"accountant {params.accountant!r} cannot account for this release's declared "
            f"mechanisms: {reason}; use one of {other_accountants(params.accountant)}",
        )
    ]


def contribution(row: Counted, pair: tuple[float, float] | None) -> Contribution:
    """One counted set as the report lists it; ``pair`` is its own (epsilon, delta) when it claims DP."""
    mech = row.mechanism
    return Contribution(
        source=row.source,
        release=row.release,
        set=row.set,
        released_on=row.released_on,
        mechanism=mech.describe() if mech else "none declared (not differentially private)",
        declared_epsilon=mech.epsilon if mech else None,
        declared_delta=mech.delta if mech else None,
        rho=mech.rho if mech else None,
        steps=mech.steps if mech else None,
        standalone_epsilon=json_number(pair[0]) if pair else None,
        standalone_delta=json_number(pair[1]) if pair else None,
    )


@metric(
    name="dp_total_epsilon",
    method=METHOD,
    family="dp",
    params=TotalEpsilonParams,
    details=TotalEpsilonDetails,
    check=check_accountant,
    knowledge={Knowledge.DECLARED_MECHANISM},
    inputs={"synthetic", "ledger"},
    value_range=(0.0, None),
    meaning="The total privacy budget (epsilon, at the policy's delta) spent on the original data by every "
    "synthetic set of this release together with the earlier releases in the ledger. Smaller is more private; "
    "a set that claims no differential privacy makes the total infinite. The total is only as true as the claims "
    "it sums: when another rule refutes one of them in the same run, this rule fails (the release is unaccounted).",
    remedy="Release fewer synthetic sets, generate them with a smaller epsilon, or retire earlier releases from "
    "the same original before publishing; record every release in the ledger.",
    references=(REFERENCE, *COMPOSITION_REFERENCES),
)
def dp_total_epsilon(ctx: EvaluationContext, params: TotalEpsilonParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Total epsilon at the policy's delta of this release and the ledger's earlier releases, composed."""
    from policycheck.methods.dp import composition

    rows, notes = _counted(ctx, params)
    private = [r for r in rows if r.mechanism is not None]
    not_private = [r.set for r in rows if r.mechanism is None]
    by: dict[str, float | None] = dict.fromkeys(composition.ACCOUNTANTS, math.inf)
    reasons: dict[str, str] = {}
    pairs: list[tuple[float, float] | None] = [None] * len(rows)
    if private:
        try:
            comp = composition.compose([r.mechanism for r in private if r.mechanism is not None], params.delta)
        except ValueError as exc:
            raise EvaluationError(f"cannot compose the declared budgets: {exc}") from None
        reasons = dict(comp.reasons)
        if not not_private:
            by = dict(comp.by_accountant)
        it = iter(comp.pairs)
        pairs = [next(it) if r.mechanism is not None else None for r in rows]
    if not_private:
        notes.append(
            "Not differentially private (no epsilon declared): " + ", ".join(not_private) + "; the total is infinite."
        )
    usable = {k: v for k, v in by.items() if v is not None}
    if params.accountant == "best":
        accountant = min(usable, key=lambda k: (usable[k], composition.ACCOUNTANTS.index(k)))
    else:
        accountant = params.accountant
        if by.get(accountant) is None:
            raise EvaluationError(
                f"param accountant {accountant!r} cannot account for these releases: {reasons.get(accountant, '')}"
            )
    value = float(usable[accountant])
    details = TotalEpsilonDetails(
        target_delta=params.delta,
        accountant=accountant,
        total_epsilon=json_number(value),
        infinite=not math.isfinite(value),
        by_accountant={k: json_number(v) for k, v in by.items()},
        not_applicable=reasons,
        contributions=[contribution(r, p) for r, p in zip(rows, pairs, strict=True)],
        ledger=params.ledger,
        sets_counted=len(rows),
    )
    labels = [r.set for r, p in zip(rows, pairs, strict=True) if p and math.isfinite(p[0])]
    heights = [float(p[0]) for p in pairs if p and math.isfinite(p[0])]
    series: list[dict[str, Any]] = [
        {"name": "each set on its own (basic-composition share)", "x": labels, "y": heights}
    ]
    if math.isfinite(value):
        series.append({"name": f"total ({accountant})", "x": ["total"], "y": [value]})
    chart = {
        "kind": "bar",
        "title": f"Privacy budget per synthetic set and in total, at delta = {params.delta:g}",
        "x_label": "synthetic set",
        "y_label": "epsilon",
        "series": series,
    }
    # NOTE: the total is only as true as every claim it sums; a claim another
    # rule refutes in the same run fails this rule (see runner.py).
    relies_on = tuple(r.claim for r in rows if r.mechanism is not None)
    return MetricResult(value=value, details=details, charts=(chart,), notes=tuple(notes), relies_on=relies_on)
