"""The evaluator's result (its evidence a typed details model, never a plain mapping) and the Needs it names."""

from __future__ import annotations

import pytest

from policycheck.metrics.base import MetricResult, Need
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


def test_a_need_label_reads_its_parameters_as_users_write_them_not_as_python_reprs():
    need = Need.of("reconstruction_attacks", attacks=("lp", "dcr"), n_queries=None, records="original")
    assert need.label == "reconstruction_attacks(attacks=[lp, dcr], n_queries=none, records=original)"


def test_a_need_without_parameters_is_labelled_by_its_intermediate_alone():
    assert Need.of("three_way_marginal_errors").label == "three_way_marginal_errors"
