import json

from policycheck.engine.verdicts import Verdict


def test_a_verdict_is_written_and_printed_as_its_word():
    assert (json.dumps([Verdict.INCONCLUSIVE]), f"{Verdict.FAIL}", Verdict.WAIVED.upper()) == (
        '["inconclusive"]',
        "fail",
        "WAIVED",
    )


def test_a_verdict_equals_its_word_from_a_report():
    assert Verdict("warn") is Verdict.WARN and Verdict.WARN == "warn"
