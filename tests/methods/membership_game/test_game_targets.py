"""Target choice of the membership game: isolation scores and rarest values, by hand."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.gower import fit_gower
from policycheck.methods.membership_game.targets import choose_targets, rarest_value_counts, vulnerability_scores
from policycheck.release.model import ColumnType


def test_isolation_is_the_mean_distance_to_the_five_nearest_other_records():
    frame = pd.DataFrame({"x": [0.0, 1, 2, 3, 4, 5, 20]})
    enc = fit_gower([frame], {"x": ColumnType.NUMERIC}, {}, ["x"])
    scores = vulnerability_scores(enc.encode(frame), enc.kinds)
    # range 20: the outlier at 20 is 0.75, 0.80, 0.85, 0.90, 0.95 from its five nearest (5, 4, 3, 2, 1)
    assert scores[6] == np.float64(np.mean([0.75, 0.80, 0.85, 0.90, 0.95]))
    # the record at 0: 0.05, 0.10, 0.15, 0.20, 0.25 from 1..5
    assert abs(scores[0] - 0.15) < 1e-12


def test_a_duplicate_counts_as_a_neighbour_at_distance_zero():
    frame = pd.DataFrame({"c": ["a", "a", "b", "b", "b", "b", "b"]})
    enc = fit_gower([frame], {"c": ColumnType.CATEGORICAL}, {}, ["c"])
    scores = vulnerability_scores(enc.encode(frame), enc.kinds)
    # an 'a': its twin at 0, then four 'b's at 1; a 'b': its four twins at 0, then an 'a' at 1
    assert scores[0] == 0.8 and scores[2] == 0.2


def test_the_rarest_value_is_counted_over_the_population_with_missing_as_a_value():
    frame = pd.DataFrame({"c": ["a", "a", "b", None, None], "x": [1.0, 2.0, 1.0, 1.0, 1.0]})
    counts, column = rarest_value_counts(frame)
    # row 0: a (2), 1.0 (4) -> 2 in c; row 1: a (2), 2.0 (1) -> 1 in x; row 2: b (1); rows 3-4: missing (2), 1.0 (4)
    assert counts.tolist() == [2, 1, 1, 2, 2] and column.tolist() == [0, 1, 0, 0, 0]


def test_named_then_vulnerable_then_rare_then_random_targets_never_repeat():
    scores = np.array([0.1, 0.9, 0.5, 0.8, 0.2, 0.3])
    rarity = np.array([5, 5, 1, 5, 1, 5])
    choice = choose_targets(scores, 2, 2, np.array([3]), np.random.default_rng(0), rare=1, rarity=rarity)
    # named row 3; vulnerable: 1 (0.9) and 2 (0.5), as 3 is taken; rare: row 4 (count 1, row 2 taken)
    assert choice.rows[:4].tolist() == [3, 1, 2, 4]
    assert choice.reasons == ("id", "vulnerable", "vulnerable", "rare", "random", "random")
    assert set(choice.rows[4:]) <= {0, 5} and len(set(choice.rows)) == 6


def test_ties_go_to_the_earlier_row_and_rare_ties_to_the_more_isolated():
    scores = np.array([0.5, 0.9, 0.9, 0.9, 0.2, 0.9])
    rarity = np.array([1, 3, 1, 1, 1, 2])
    choice = choose_targets(scores, 2, 0, np.array([], dtype=np.int64), np.random.default_rng(0), rare=2, rarity=rarity)
    # vulnerable: rows 1 and 2 of the four at 0.9; rare: of rows 0, 3, 4 (count 1; 2 is taken) the
    # most isolated first, 3 (0.9) then 0 (0.5)
    assert choice.rows.tolist() == [1, 2, 3, 0]


def test_targets_are_distinct_people_where_rows_name_people():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    rarity = np.array([1, 1, 1, 1, 5, 5, 5, 5])
    people = np.array([0, 0, 1, 2, 2, 3, 3, -1])  # rows 0-1 one person, 3-4 another, row 7 of none
    choice = choose_targets(scores, 2, 2, np.array([3]), np.random.default_rng(0), 1, rarity, people)
    # named row 3 (person 2); vulnerable: 0 (person 0), 1 passed over (person 0), 2 (person 1); rare: rows 0-3
    # have count 1 but are taken or of taken people, so 4 (count 5, 0.5) is person 2's too: 5 (person 3);
    # random: the only rows left of an untaken person or none are 7, and 6 is person 3's
    assert choice.rows.tolist() == [3, 0, 2, 5, 7]
    assert choice.reasons == ("id", "vulnerable", "vulnerable", "rare", "random")


def test_a_records_isolation_is_from_other_people_where_rows_name_people():
    from policycheck.methods.gower import SCALED

    # Two men of two records each at 0 and 0.01, one at 0.5 and 0.51, and four single people at 0.9-0.93.
    rows = np.array([[0.0], [0.01], [0.5], [0.51], [0.9], [0.91], [0.92], [0.93]])
    people = np.array([0, 0, 1, 1, 2, 3, 4, 5])
    scores = vulnerability_scores(rows, np.array([SCALED]), people=people)
    # Record 0's five nearest other people's records: 0.5, 0.51, 0.9, 0.91, 0.92 (its own 0.01 passed over).
    assert scores[0] == pytest.approx((0.5 + 0.51 + 0.9 + 0.91 + 0.92) / 5)
    # Record 4 (0.9): 0.91, 0.92, 0.93 (0.01-0.03 away), then 0.51 and 0.5 (0.39, 0.4).
    assert scores[4] == pytest.approx((0.01 + 0.02 + 0.03 + 0.39 + 0.4) / 5)
    # By record, record 0's nearest is its own other year, 0.01 away.
    assert vulnerability_scores(rows, np.array([SCALED]))[0] == pytest.approx((0.01 + 0.5 + 0.51 + 0.9 + 0.91) / 5)
