"""Multiple rank-based record linkage (paper 000, sec. 3.2): fast search against brute force."""

import numpy as np
import pytest

from policycheck.methods.linkage.rank_linkage import link, link_brute_force, mid_ranks, own_mid_ranks


def _random_ranks(rng, n, p, levels):
    # Few levels make ties on purpose: duplicate vectors and tied criterion values.
    return rng.integers(0, levels, size=(n, p)) / 2.0


@pytest.mark.parametrize("criterion", ["sum", "max", "min"])
def test_fast_search_finds_exactly_the_brute_force_minimisers_ties_included(criterion):
    rng = np.random.default_rng(42)
    for _ in range(150):
        n, n_syn = (int(v) for v in rng.integers(1, 30, size=2))
        p, levels = int(rng.integers(1, 5)), int(rng.integers(2, 12))
        o, s = _random_ranks(rng, n, p, levels), _random_ranks(rng, n_syn, p, levels)
        fast = link(o, s, criterion)
        best, linked = link_brute_force(o, s, criterion)
        assert fast.distance.tolist() == best.tolist()
        assert [fast.candidates(i).tolist() for i in range(n)] == [b.tolist() for b in linked]
        assert fast.n_candidates().tolist() == [b.size for b in linked]


@pytest.mark.parametrize("criterion", ["sum", "max", "min"])
def test_fast_search_agrees_with_brute_force_on_permutation_ranks(criterion):
    rng = np.random.default_rng(3)
    n, p = 200, 3
    o = np.column_stack([rng.permutation(n) + 1.0 for _ in range(p)])
    s = np.column_stack([rng.permutation(n) + 1.0 for _ in range(p)])
    fast = link(o, s, criterion)
    _, linked = link_brute_force(o, s, criterion)
    assert all(np.array_equal(fast.candidates(i), linked[i]) for i in range(n))


@pytest.mark.parametrize("ufunc", [np.minimum, np.maximum])
@pytest.mark.parametrize("criterion", ["sum", "max", "min"])
def test_reduce_over_candidates_matches_brute_force(criterion, ufunc):
    rng = np.random.default_rng(5)
    o, s = _random_ranks(rng, 40, 2, 6), _random_ranks(rng, 35, 2, 6)
    values = rng.normal(size=35)
    _, linked = link_brute_force(o, s, criterion)
    expected = [ufunc.reduce(values[b]) for b in linked]
    assert link(o, s, criterion).reduce(values, ufunc).tolist() == expected


def test_criteria_on_a_hand_computed_example():
    # Original record (1, 1); synthetic records (2, 4), (4, 2), (3, 3), (1, 9).
    # |rank differences|: (1, 3), (3, 1), (2, 2), (0, 8)
    # sum: 4, 4, 4, 8 -> records 0, 1, 2 tie; max: 3, 3, 2, 8 -> record 2; min: 1, 1, 2, 0 -> record 3.
    o = np.array([[1.0, 1.0]])
    s = np.array([[2.0, 4.0], [4.0, 2.0], [3.0, 3.0], [1.0, 9.0]])
    assert link(o, s, "sum").candidates(0).tolist() == [0, 1, 2]
    assert link(o, s, "max").candidates(0).tolist() == [2]
    assert link(o, s, "min").candidates(0).tolist() == [3]
    assert link(o, s, "sum").distance.tolist() == [4.0]


def test_duplicate_synthetic_records_are_all_kept():
    o = np.array([[2.0, 2.0], [9.0, 9.0]])
    s = np.array([[2.0, 2.0], [5.0, 5.0], [2.0, 2.0]])
    linkage = link(o, s, "sum")
    assert linkage.candidates(0).tolist() == [0, 2]
    assert linkage.candidates(1).tolist() == [1]
    assert linkage.n_candidates().tolist() == [2, 1]


def test_mid_ranks_of_tied_values_share_their_average_rank():
    original = np.array([10.0, 20.0, 20.0, 30.0, 20.0])
    # 10 -> 1; 20 held by 3 records above 1 -> (2 + 3 + 4) / 3 = 3; 30 -> 5.
    assert mid_ranks(original, original).tolist() == [1.0, 3.0, 3.0, 5.0, 3.0]
    assert mid_ranks(original, np.array([30.0, 10.0])).tolist() == [5.0, 1.0]


def test_own_mid_ranks_equal_mid_ranks_with_ties_and_missing_values():
    values = np.array([3.0, np.nan, 1.0, 3.0, np.nan, 2.0, 3.0])
    # 1 -> 1, 2 -> 2, three 3s -> 4, two missing -> 6.5.
    assert own_mid_ranks(values).tolist() == [4.0, 6.5, 1.0, 4.0, 6.5, 2.0, 4.0]
    assert own_mid_ranks(values).tolist() == mid_ranks(values, values).tolist()


def test_unknown_criterion_is_refused():
    with pytest.raises(ValueError, match="unknown criterion"):
        link(np.zeros((1, 1)), np.zeros((1, 1)), "mean")


def test_fast_candidate_counts_bound_the_union_for_min_and_equal_it_otherwise():
    rng = np.random.default_rng(8)
    o, s = _random_ranks(rng, 40, 3, 5), _random_ranks(rng, 35, 3, 5)
    for criterion in ("sum", "max"):
        linkage = link(o, s, criterion)
        assert linkage.n_candidates(exact=False).tolist() == linkage.n_candidates().tolist()
    linkage = link(o, s, "min")
    # Hand check on one record: original (1, 1); synthetic (1, 5) and (3, 1) both at gap 0,
    # one group per attribute holding one record each, plus (1, 1) in both groups.
    one = link(np.array([[1.0, 1.0]]), np.array([[1.0, 5.0], [3.0, 1.0], [1.0, 1.0]]), "min")
    assert one.n_candidates().tolist() == [3] and one.n_candidates(exact=False).tolist() == [4]
    assert (linkage.n_candidates(exact=False) >= linkage.n_candidates()).all()
