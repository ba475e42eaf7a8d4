"""synthpop's disclosure measures and TCAP on a hand-computed example (Raab et al. 2024; Taub et al. 2018)."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.synthpop_disclosure import disclosure

# Keys (sex, age), target income. Original, 6 records:
#   (F,30,lo) unique; (F,40,hi) unique; (M,30,lo) x2 both lo; (M,50,hi), (M,50,lo) mixed;
#   and None key (F,None,hi) unique.
ORIGINAL = pd.DataFrame(
    {
        "sex": ["F", "F", "M", "M", "M", "M", "F"],
        "age": [30, 40, 30, 30, 50, 50, None],
        "income": ["lo", "hi", "lo", "lo", "hi", "lo", "hi"],
    }
)
# Synthetic, 6 records: (F,30,lo) once -> replicated unique, correct; (F,40,lo) once -> unique, wrong target;
# (M,30,lo) x2 -> disclosive, correct; (M,50,hi) once -> disclosive for one of the two; (F,None,hi) -> replicated.
SYNTHETIC = pd.DataFrame(
    {
        "sex": ["F", "F", "M", "M", "M", "F"],
        "age": [30, 40, 30, 30, 50, None],
        "income": ["lo", "lo", "lo", "lo", "hi", "hi"],
    }
)


def test_identity_measures_count_uniques_replicated_in_the_synthetic_data():
    c = disclosure(ORIGINAL, SYNTHETIC, ["sex", "age"], "income").counts
    # Unique in original: (F,30), (F,40), (F,None) -> UiO 3; all three keys unique in synthetic too -> repU 3.
    assert (c.UiO, c.UiOiS, c.repU) == (3, 3, 3)
    # Unique in synthetic: (F,30), (F,40), (M,50), (F,None) -> 4 of 6.
    assert c.UiS == 4
    assert c.shares()["repU"] == pytest.approx(3 / 7)


def test_attribute_measures_and_their_original_data_baselines():
    c = disclosure(ORIGINAL, SYNTHETIC, ["sex", "age"], "income").counts
    # DiO: key determines the target in the original: the three uniques and the two (M,30) -> 5 of 7.
    assert c.DiO == 5
    # iS: every original key occurs in the synthetic data -> 7.
    assert c.iS == 7
    # DiS: synthetic discloses some target for the key: all keys (each synthetic key group is pure) -> 7.
    assert c.DiS == 7
    # DiSCO: synthetic gives the record's own target: (F,30,lo), (M,30,lo) x2, (M,50,hi), (F,None,hi) -> 5;
    # (F,40,hi) gets lo, (M,50,lo) gets hi.
    assert c.DiSCO == 5
    # DiSDiO: DiSCO and DiO: all of them but (M,50,hi) -> 4.
    assert c.DiSDiO == 4
    assert c.shares()["DiSCO"] == pytest.approx(5 / 7) and c.shares()["synthpop_TCAP"] == pytest.approx(5 / 7)


def test_tcap_averages_the_synthetic_attribution_over_records_the_original_discloses():
    result = disclosure(ORIGINAL, SYNTHETIC, ["sex", "age"], "income")
    # Targeted: the 5 DiO records, all keys in synthetic; p_s: (F,30,lo) 1, (F,40,hi) 0, (M,30,lo) 1, 1, (F,None,hi) 1.
    assert result.counts.tcap_records == 5
    assert result.counts.tcap == pytest.approx(4 / 5)
    # Baseline: share of the record's income in the original: lo 4/7, hi 3/7 -> (4 + 3 + 4 + 4 + 3) / 7 / 5.
    assert result.counts.tcap_baseline == pytest.approx(18 / 35)


def test_quantile_breaks_are_r_type_7_quantiles_of_original_and_synthetic_values_together():
    from policycheck.methods.synthpop_disclosure import quantile_breaks

    # c(20, 40, 60, 21, 41, 61) at probs 0, 1/3, 2/3, 1 (R's type 7): sorted 20 21 40 41 60 61, positions
    # 0, 5/3, 10/3, 5 -> 20; 21 + (2/3)(40 - 21) = 33.667; 41 + (1/3)(60 - 41) = 47.333; 61.
    breaks = quantile_breaks([np.array([20.0, 40.0, 60.0, np.nan]), np.array([21.0, 41.0, 61.0])], 3)
    assert breaks == pytest.approx([20, 21 + 38 / 3, 41 + 19 / 3, 61])


def test_quantile_breaks_drop_repeats():
    from policycheck.methods.synthpop_disclosure import quantile_breaks

    # Ten values, four of them 0: the 0 and 1/4 quantiles are both 0 (position 2.25 of 0..9); 1/2 is
    # 2 + (1/2)(3 - 2) = 2.5 (position 4.5); 3/4 is 5 + (3/4)(6 - 5) = 5.75 (position 6.75); 1 is 9.
    values = np.array([0.0, 0, 0, 0, 2, 3, 5, 6, 8, 9])
    assert quantile_breaks([values], 4) == pytest.approx([0, 2.5, 5.75, 9])


def test_fewer_than_three_quantile_groups_give_way_to_equal_width_groups():
    from policycheck.methods.synthpop_disclosure import quantile_breaks

    # Six of eight values 0: the quantiles at 0, 1/4, 1/2 are all 0 and 3/4 is 0 + (1/4)(5 - 0) = 1.25, so the
    # breaks [0, 1.25, 9] leave 2 groups; synthpop's disclosure() then takes 4 equal-width groups of [0, 9].
    values = np.array([0.0, 0, 0, 0, 0, 0, 5, 9])
    assert quantile_breaks([values], 4) == pytest.approx([0, 2.25, 4.5, 6.75, 9])


def test_groups_are_closed_on_the_left_and_the_last_on_both_sides():
    from policycheck.methods.synthpop_disclosure import group_by_breaks

    # R: cut(c(20, 34, 35, 49.9, 50, NA, 10, 70), c(20, 35, 50), right = FALSE, include.lowest = TRUE) gives
    # [20,35) [20,35) [35,50] [35,50] [35,50] NA NA NA; outside the breaks we take the end groups, not NA.
    groups = group_by_breaks(np.array([20.0, 34, 35, 49.9, 50, np.nan, 10, 70]), np.array([20.0, 35, 50]))
    np.testing.assert_array_equal(groups, [0, 0, 1, 1, 1, np.nan, 0, 1])
