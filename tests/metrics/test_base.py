"""The evaluator's result: its evidence is a typed details model, never a plain mapping."""

from __future__ import annotations

import pytest

from policycheck.metrics.base import MetricResult
from policycheck.metrics.details import Details, detail


class CountDetails(Details):
    closer: int = detail("Closer to a training record", unit="records")


def test_a_result_refuses_details_given_as_a_plain_mapping():
    with pytest.raises(TypeError, match="must be a Details model"):
        MetricResult(0.5, details={"closer": 3})  # type: ignore[arg-type]


def test_a_result_without_details_reports_no_field():
    result = MetricResult(0.5)
    assert (result.details.to_report(), type(result.details).field_labels()) == ({}, {})


def test_a_results_typed_details_report_their_values_and_labels():
    result = MetricResult(0.5, details=CountDetails(closer=3))
    assert result.details.to_report() == {"closer": 3}
    assert type(result.details).field_labels()["closer"]["label"] == "Closer to a training record"
