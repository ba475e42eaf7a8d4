"""What to do about a rule: more data first where only the sample leaves it unsettled."""

from policycheck.report.formatting import remedy_text

REMEDY = "Remove synthetic records that copy training records."


def rule(**fields):
    return {"verdict": "warn", "remedy": REMEDY, "unsettled": None, **fields}


def test_a_rule_shown_beyond_its_level_gets_its_metrics_remedy():
    assert remedy_text(rule()) == REMEDY


def test_a_rule_the_sample_leaves_unsettled_asks_for_more_data_first():
    unsettled = rule(unsettled="warn", records_to_settle=6392, sample_size=3000, sample_unit="records")
    assert remedy_text(unsettled) == (
        "This sample cannot settle the warn level: about 6,392 records would (this run used 3,000), if the "
        f"estimate held. If the value is beyond it: {REMEDY}"
    )


def test_the_sample_is_counted_in_the_rules_unit():
    game = rule(verdict="inconclusive", unsettled="fail", records_to_settle=294, sample_size=150)
    game["sample_unit"] = "test rounds"
    assert remedy_text(game).startswith("This sample cannot settle the fail level: about 294 test rounds would")
