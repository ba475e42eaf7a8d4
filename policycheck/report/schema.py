"""The JSON Schema of report.json (draft-07), from the report's pydantic models."""

from __future__ import annotations

from typing import Any

from policycheck.core.json_schema import draft07


def report_schema() -> dict[str, Any]:
    # NOTE: imported here: the report's models cost as much to build as the policy's,
    # and `policycheck schema` prints only the policy's.
    from policycheck.report.model import Report

    return draft07(Report, "urn:policycheck:schema:report:1")
