"""The Python API: check a synthetic release from a notebook or a pipeline.

::

    import policycheck as pc
    policy = pc.load_policy("policies/demo.policy.yaml")     # raises pc.PolicyError
    release = pc.Release(original=df, synthetic=[syn1, syn2], holdout=hold,
                         synthesizer={"name": "ctgan", "epsilon": 1.0})
    report = pc.check(policy, release, seed=7, workers=2, progress=False)
    report.verdict, report.passed, report.exit_code
    report.to_frame()
    report.write("reports/run1", formats=["json", "html", "md"])

The ``policycheck check`` command is a thin layer over :func:`check` and
:meth:`Report.write`, so the two cannot drift apart. Nothing here writes a
file unless asked (:meth:`Report.write`). docs/api.md is the guide.

One module per part: :mod:`.policy` (loading and validating a policy),
:mod:`.release` (a release from DataFrames, files or a manifest),
:mod:`.checking` (the check) and :mod:`.report` (reading, rendering and
writing its report).
"""

from __future__ import annotations

from policycheck.core.errors import InvalidInput, Problem
from policycheck.interfaces.api.checking import check
from policycheck.interfaces.api.policy import Policy, PolicyError, load_policy, validate
from policycheck.interfaces.api.release import Release, load_release
from policycheck.interfaces.api.report import FORMATS, Report

__all__ = [
    "FORMATS",
    "InputError",
    "Policy",
    "PolicyError",
    "Problem",
    "Release",
    "Report",
    "check",
    "load_policy",
    "load_release",
    "validate",
]

#: What every bad policy, manifest or data set raises (exit code 2 on the command line).
InputError = InvalidInput
