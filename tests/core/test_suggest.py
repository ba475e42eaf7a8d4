"""Did-you-mean prefers a name that begins or contains the typed one over a near spelling (issue 25)."""

from policycheck.core.suggest import suggest

METRICS = ["dcr_share", "dcr_baseline_protection", "disco", "mi_risk", "inference_risk", "tcap"]


def test_a_known_name_that_begins_the_word_wins_over_edit_distance():
    # difflib alone offers mi_risk (ratio 0.71) before disco (0.67)
    assert suggest("disco_risk", METRICS) == " (did you mean 'disco'?)"


def test_a_word_that_begins_a_known_name_gets_the_closest_such_name():
    assert suggest("dcr", METRICS) == " (did you mean 'dcr_share'?)"


def test_a_name_containing_the_word_comes_before_a_near_spelling():
    assert suggest("baseline_protection", METRICS) == " (did you mean 'dcr_baseline_protection'?)"


def test_a_misspelling_without_overlap_still_gets_the_closest_spelling():
    assert suggest("titel", ["title", "owner", "version"]) == " (did you mean 'title'?)"
    assert suggest("dcr_shar", METRICS) == " (did you mean 'dcr_share'?)"


def test_a_short_word_does_not_match_every_name_containing_it():
    assert suggest("mi", ["mi_risk", "tcap"]) == ""


def test_nothing_close_suggests_nothing():
    assert suggest("zzz", METRICS) == ""
