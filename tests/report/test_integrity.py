from policycheck.report.integrity import without_run_context


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
