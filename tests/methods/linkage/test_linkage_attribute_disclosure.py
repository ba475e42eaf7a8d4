"""The attribute disclosure scenario (paper 000, sec. 4): Table 3 and the paper's reading of it."""

import numpy as np
import pytest

from policycheck.methods.linkage.range_narrowing import AttributeDisclosure, identified_secret
from policycheck.methods.linkage.rank_linkage import link

# Table 3 of paper 000, IDs 1..20: original X3, and the X3 ranks the attacker
# identifies in synthetic sets 1, 2, 3 (ties listed as the paper prints them).
X3 = [
    2228,
    2299,
    2534,
    2526,
    2336,
    2598,
    2736,
    2557,
    2704,
    2513,
    2942,
    2737,
    2559,
    2809,
    2195,
    2655,
    2963,
    2298,
    2382,
    2428,
]
X3_RANK = [2, 4, 10, 9, 5, 13, 16, 11, 15, 8, 19, 17, 12, 18, 1, 14, 20, 3, 6, 7]
IDENTIFIED = [
    ([11], [9], [8]),
    ([12], [18], [4]),
    ([1], [8], [12, 17]),
    ([5], [17], [11]),
    ([16], [13], [2]),
    ([19], [19], [3]),
    ([2], [9], [8]),
    ([12], [3], [10, 9]),
    ([17, 4, 5], [16], [12, 2]),
    ([5], [17], [13]),
    ([17], [3], [10]),
    ([18], [7], [3]),
    ([2], [2], [8]),
    ([8], [16], [16]),
    ([4, 5], [16], [11]),
    ([6, 19], [11], [4]),
    ([15], [5], [15]),
    ([3], [7], [7]),
    ([11], [9], [8]),
    ([15], [15], [3, 14]),
]


def table3() -> AttributeDisclosure:
    """The attack's outcome as Table 3 prints it: identified ranks read as values x_(k)."""
    ordered = np.sort(np.array(X3, dtype=float))
    low = np.array([[ordered[min(r) - 1] for r in row] for row in IDENTIFIED])
    high = np.array([[ordered[max(r) - 1] for r in row] for row in IDENTIFIED])
    return AttributeDisclosure(np.array(X3, dtype=float), low, high, span=float(max(X3) - min(X3)))


def test_table3_ranks_match_the_printed_x3_values():
    ordered = np.sort(X3)
    assert [int(ordered[r - 1]) for r in X3_RANK] == X3


@pytest.mark.parametrize(
    ("record", "low", "high"),
    [(18, 2298, 2428), (4, 2336, 2737), (20, 2298, 2704), (2, 2299, 2809)],
)
def test_table3_identified_ranges_are_those_the_paper_states(record, low, high):
    # Sec. 4: record 18 "between 2298 and 2428", record 4 "between 2336 and 2737",
    # record 20 "between 2298 and 2704", record 2 "between ranks 4 and 18".
    lo, hi = table3().identified_range()
    assert (lo[record - 1], hi[record - 1]) == (low, high)


def test_table3_consistently_misled_records():
    # Hand check of the identified rank ranges against the true ranks: records 1, 7, 15, 17
    # (named by the paper) and 11, 13, 14, 19 have every identified rank on one wrong side.
    misled = np.flatnonzero(table3().consistently_misled()) + 1
    assert misled.tolist() == [1, 7, 11, 13, 14, 15, 17, 19]


def test_table3_exact_disclosure_is_record_2_in_set_3_and_record_18_in_set_1():
    exact = table3().exact_by_set()
    assert {(i + 1, m + 1) for i, m in zip(*np.nonzero(exact), strict=False)} == {(2, 3), (18, 1)}
    assert table3().exactly_disclosed(k=1).sum() == 2
    assert table3().exactly_disclosed(k=2).sum() == 0


def test_table3_narrowing_counts_only_correct_ranges_within_the_fraction():
    d = table3()
    # Range of X3: 2963 - 2195 = 768. Record 18: (2428 - 2298) / 768 = 0.169;
    # record 8: ranks 3..12, (2559 - 2298) / 768 = 0.340; every other correct range is wider.
    assert d.width()[17] == pytest.approx(130 / 768)
    assert np.flatnonzero(d.narrowed(0.2)).tolist() == [17]
    assert np.flatnonzero(d.narrowed(0.35)).tolist() == [7, 17]


def test_table3_with_the_first_set_alone():
    d = table3()
    # Set 1 alone: record 18 is hit exactly (width 0); records 9 (ranks 4..17 around 15)
    # and 16 (ranks 6..19 around 14) hold the truth in wide ranges.
    assert np.flatnonzero(d.holds_true(sets=1)).tolist() == [8, 15, 17]
    assert np.flatnonzero(d.narrowed(0.2, sets=1)).tolist() == [17]
    assert np.flatnonzero(d.only_set(0).narrowed(0.2)).tolist() == [17]


def test_identified_secret_reads_the_extremes_over_tied_candidates():
    # Original record (0, 0) ties with synthetic records 0 and 2 (sum 2); record (9, 9) links to 1.
    linkage = link(np.array([[0.0, 0.0], [9.0, 9.0]]), np.array([[1.0, 1.0], [8.0, 9.0], [2.0, 0.0]]), "sum")
    low, high = identified_secret(linkage, np.array([30.0, 50.0, 10.0]))
    assert low.tolist() == [10.0, 50.0] and high.tolist() == [30.0, 50.0]
