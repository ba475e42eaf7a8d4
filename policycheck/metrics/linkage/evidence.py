"""The evidence the three linkage rules share: who links on what, per set and per number of sets, listed records.

:class:`LinkageDetails` holds the fields every linkage rule reports; each
metric's details model extends it with its own counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from policycheck.core.plural import count_of, noun
from policycheck.metrics.base import EvaluationContext
from policycheck.metrics.combinators import BonferroniNote
from policycheck.metrics.details import Details, detail
from policycheck.metrics.linkage.baseline import BaselineDetails

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.linkage.attack import LinkageAttack
    from policycheck.methods.linkage.reverse_mapping import AttributeOrder

#: Most-narrowed records listed in the report.
TOP_RECORDS = 10
#: Tied ranks listed per set and record before the list is cut short.
TOP_RANKS = 10

MISSING_VALUES = (
    "records whose secret is missing are left out of every rate; a linked synthetic record with a missing "
    "secret identifies nothing; a missing linkage attribute ranks above every value"
)
TIE_BREAKING = (
    "Reverse mapping ranks equal synthetic values in row order; linkage compares mid-ranks in the "
    "original (a value as released is placed at its mid-rank there), so equal values are at distance 0, "
    "and keeps every tied closest record."
)


class Ranking(Details):
    """How one attribute's values are ranked."""

    kind: str = detail("Kind of attribute", help="numeric, ordinal or nominal")
    ranked_by: str = detail("Ranked by")


class Presampling(Details):
    """What pre-sampling did to one synthetic set (paper 000, sec. 3.1), and the random stream it drew from."""

    set: str = detail("Synthetic set")
    action: str = detail("Pre-sampling", help="unchanged, sub-sampled or super-sampled to the original's size")
    from_rows: int = detail("Rows released", unit="rows")
    to_rows: int = detail("Rows linked", unit="rows")
    seed: int = detail("Run seed")
    rng_key: list[str | int] = detail("Random stream key")


class SetRate(Details):
    """The rule's raw rate with one synthetic set alone."""

    set: str = detail("Synthetic set")
    value: float = detail("Rate with this set alone", format="share")


class SetsRate(Details):
    """The rule's raw rate with the first ``sets`` synthetic sets (sec. 3.2: more sets, more risk)."""

    sets: int = detail("Sets used", unit="sets")
    value: float = detail("Rate with the first sets", format="share")


class MappingRow(Details):
    """The rule's result when the attacker reads the sets one way."""

    value: float = detail("Value")
    interval: tuple[float, float] = detail("Interval")
    raw: float | None = detail("Raw rate", format="share")
    baseline: float = detail("Baseline", format="share")


class RecordView(Details):
    """One real person's outcome: the row always; the secret's ranks and values only if the policy allows."""

    row: int = detail("Row", help="1 is the first data row of the original")
    width: float = detail("Width of the identified range", help="as a fraction of the secret's range")
    holds_true_value: bool = detail("Range holds the true value")
    exact_in_sets: list[str] = detail("Sets revealing the exact value")
    linked_records: list[int] = detail("Linked synthetic records per set", unit="records")
    true_rank: int | float | None = detail("True rank", default=None, help="mid-rank in the original")
    true_value: Any = detail("True value", default=None)
    ranks_identified: list[list[int | float | str]] | None = detail("Ranks identified per set", default=None)
    values_identified: list[list[Any]] | None = detail("Values identified per set", default=None)
    identified_range: list[Any] | None = detail("Identified range", default=None)


class LinkageDetails(Details):
    """The evidence every linkage rule reports (each metric's details add its own counts)."""

    secret: str = detail("Secret attacked")
    attributes: list[str] = detail("Attributes linked on")
    criterion: str = detail("Linkage criterion", help="how rank differences combine: sum, max or min")
    mapping: str = detail(
        "Mapping reported", help="reverse (paper 000, sec. 3.1) or released: the worse for the releaser"
    )
    sets: int = detail("Synthetic sets linked", unit="sets")
    single_set: bool = detail("Only one set released")
    records: int = detail("Original records with a secret", unit="records")
    records_without_secret: int = detail("Original records without a secret", unit="records")
    missing_values: str = detail("Missing values")
    ranking: dict[str, Ranking] = detail("How each attribute is ranked")
    presampling: list[Presampling] = detail("Pre-sampling per set")
    tie_breaking: str = detail("Ties")
    per_set: list[SetRate] = detail("Each set alone")
    by_number_of_sets: list[SetsRate] = detail("By number of sets released")
    baseline: BaselineDetails = detail("Baseline")
    mappings: dict[str, MappingRow] = detail("Each mapping")
    bonferroni: BonferroniNote = detail("Worse mapping, at the Bonferroni level")


def attack_evidence(ctx: EvaluationContext, attack: LinkageAttack) -> dict[str, Any]:
    """The fields of :class:`LinkageDetails` that describe the attack: who links on what, what pre-sampling did."""
    import numpy as np

    names = set_names(ctx)
    return {
        "secret": attack.secret,
        "attributes": list(attack.attributes),
        "criterion": attack.criterion,
        "mapping": attack.mapping,
        "sets": len(attack.sets),
        "single_set": len(attack.sets) == 1,
        "records": int(np.count_nonzero(attack.disclosure.known)),
        "records_without_secret": int(np.count_nonzero(~attack.disclosure.known)),
        "missing_values": MISSING_VALUES,
        "ranking": {col: Ranking(kind=order.kind, ranked_by=order.source) for col, order in attack.orders.items()},
        "presampling": [
            Presampling(
                set=name,
                action=record.action,
                from_rows=record.from_rows,
                to_rows=record.to_rows,
                seed=ctx.seed,
                rng_key=["linkage", "presample", m],
            )
            for m, (name, record) in enumerate(zip(names, attack.presampling, strict=False))
        ],
        "tie_breaking": TIE_BREAKING,
    }


def notes(attack: LinkageAttack) -> tuple[str, ...]:
    """What a reader must know to read the rule: records left out, one set only, pre-sampling, nominal attributes."""
    import numpy as np

    found = []
    missing = int(np.count_nonzero(~attack.disclosure.known))
    if missing:
        found.append(f"{missing} original records have no value of {attack.secret!r}; they are left out of every rate.")
    if len(attack.sets) == 1:
        found.append(
            "Only one synthetic set was released, so the attacker links once; releasing more sets from the same "
            "data can narrow ranges further."
        )
    resized = [r for r in attack.presampling if r.action != "unchanged"]
    if resized:
        found.append(
            f"{count_of(len(resized), 'synthetic set')} {noun(len(resized), 'differs', 'differ')} in size from the "
            f"original and {noun(len(resized), 'was', 'were')} randomly "
            f"{'/'.join(sorted({r.action for r in resized}))} to its size before linkage."
        )
    nominal: dict[str, list[str]] = {}
    for col in attack.attributes:
        if attack.orders[col].kind == "nominal":
            nominal.setdefault(attack.orders[col].source, []).append(col)
    for source, cols in nominal.items():
        found.append(
            f"Categorical {noun(len(cols), 'attribute')} {', '.join(cols)} {noun(len(cols), 'has', 'have')} no natural "
            f"order and {noun(len(cols), 'is', 'are')} ranked by {source}: equal "
            "categories always match exactly, while the distance between different ones depends on that order."
        )
    return tuple(found)


def set_names(ctx: EvaluationContext) -> list[str]:
    return [d.name for d in ctx.release.synthetic]


def rate(flags: np.ndarray, known: np.ndarray) -> float:
    """Share of the records with a known secret that are flagged."""
    import numpy as np

    return float(np.count_nonzero(flags & known) / max(int(np.count_nonzero(known)), 1))


def risk_by_sets(attack: LinkageAttack, flags_for: Callable[[int], np.ndarray], start: int = 1) -> list[SetsRate]:
    """The rate with the first ``m`` sets, ``m = start..M``: how risk changes as more sets are released (sec. 3.2)."""
    known = attack.disclosure.known
    return [SetsRate(sets=m, value=rate(flags_for(m), known)) for m in range(start, len(attack.sets) + 1)]


def single_set(
    attack: LinkageAttack, ctx: EvaluationContext, flags_of_set: Callable[[int], np.ndarray]
) -> list[SetRate]:
    """The rate with each set alone, as if only it were released."""
    return [
        SetRate(set=name, value=rate(flags_of_set(m), attack.disclosure.known)) for m, name in enumerate(set_names(ctx))
    ]


def top_records(
    attack: LinkageAttack, flags: np.ndarray, show_values: bool, ctx: EvaluationContext
) -> list[RecordView]:
    """The flagged records with the narrowest identified ranges, by row number among equals."""
    import numpy as np

    rows = np.flatnonzero(flags)
    widths = attack.disclosure.width()[rows]
    chosen = rows[np.lexsort((rows, widths))][:TOP_RECORDS]
    return [record_view(attack, int(i), show_values, ctx) for i in chosen]


def record_view(attack: LinkageAttack, i: int, show_values: bool, ctx: EvaluationContext) -> RecordView:
    """One real person's outcome: row number (1 = first data row) always; secret ranks and values if allowed.

    Ranks are mid-ranks in the original, so equal values show equal ranks.
    """
    import numpy as np

    from policycheck.methods.linkage.rank_linkage import mid_ranks

    d = attack.disclosure
    exact = d.exact_by_set()[i]
    view: dict[str, Any] = {
        "row": i + 1,
        "width": float(d.width()[i]),
        "holds_true_value": bool(d.holds_true()[i]),
        "exact_in_sets": [name for name, hit in zip(set_names(ctx), exact, strict=False) if hit],
        "linked_records": [int(s.linkage.n_candidates_of(i)) for s in attack.sets],
    }
    if show_values:
        order = attack.orders[attack.secret]
        ranks, values = [], []
        for s in attack.sets:
            # Distinct values identified in this set, with their mid-ranks in the original.
            found = np.unique(s.secret[s.linkage.candidates(i)])
            found = found[~np.isnan(found)]
            shown = found[:TOP_RANKS]
            more = [f"... {found.size - TOP_RANKS} more"] if found.size > TOP_RANKS else []
            ranks.append([number(r) for r in mid_ranks(attack.sorted_secret, shown)] + more)
            values.append([decode(order, v) for v in shown] + more)
        low, high = d.identified_range()
        view.update(
            true_rank=number(mid_ranks(attack.sorted_secret, d.true[i : i + 1])[0]),
            true_value=decode(order, d.true[i]),
            ranks_identified=ranks,
            values_identified=values,
            identified_range=[decode(order, low[i]), decode(order, high[i])],
        )
    return RecordView(**view)


def number(value: float) -> int | float:
    """A whole number as an int, else the float."""
    value = float(value)
    return int(value) if value.is_integer() else value


def decode(order: AttributeOrder, code: float) -> Any:
    """A secret code as the report shows it: the number, or the category label."""
    return number(code) if order.labels is None else order.labels[int(code)]
