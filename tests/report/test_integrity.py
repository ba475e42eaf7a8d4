import pytest

from policycheck.report.integrity import is_context, without_run_context


def test_without_run_context_keeps_results_and_drops_clocks_paths_timings_and_digests():
    report = {
        "generated_at": "2026-11-23T16:00:00+00:00",
        "verdict": "fail",
        "release": {"manifest": "release.yaml", "datasets": [{"path": "a.csv", "rows": 12}]},
        "rules": [{"id": "r", "value": 0.25, "seconds": 1.5, "details": {"solver_seconds": 0.3, "cells": 4}}],
        "provenance": {
            "seed": 7,
            "run_id": "abc",
            "command": ["policycheck"],
            "integrity": {"report_sha256": "x"},
            "policy_files": [{"path": "p.yaml", "sha256": "f00"}],
        },
    }
    assert without_run_context(report) == {
        "verdict": "fail",
        "release": {"datasets": [{"rows": 12}]},
        "rules": [{"id": "r", "value": 0.25, "details": {"cells": 4}}],
        "provenance": {"policy_files": [{"sha256": "f00"}]},
    }


@pytest.mark.parametrize(
    ("path", "context"),
    [
        (("provenance", "data_files", 2, "path"), True),  # provenance.data_files.*.path
        (("provenance", "data_files", 2, "sha256"), False),  # a digest of the data is re-derived
        (("provenance", "data_files", "2", "path"), False),  # * stands for a list index only
        (("provenance", "libraries", "numpy"), True),  # under provenance.libraries
        (("rules", 3, "policy_location", "file"), True),
        (("rules", 3, "policy_location", "line"), False),
        (("rules", 3, "details", "solver_seconds"), True),  # a timing leaf wherever it is
        (("rules", 3, "details", "seconds_total"), False),
        (("generated_at",), True),
        (("release",), False),
        ((), False),
    ],
)
def test_a_path_is_context_when_it_or_an_ancestor_is_a_context_field_or_it_is_a_timing(path, context):
    assert is_context(path) is context
