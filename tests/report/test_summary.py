"""report/summary.py: the one counts line every format shows, in good English for one rule too."""

from policycheck.report.summary import summarize_rules


def test_the_counts_line_of_a_one_rule_report_says_1_rule():
    summary = summarize_rules([{"id": "only", "verdict": "pass", "severity": "blocking"}], [])
    assert summary.counts_text() == (
        "1 rule: blocking failures 0, advisory failures 0, warned 0, inconclusive 0, waived 0, passed 1, errors 0"
    )
