"""``policycheck init``: a commented starter policy that validates as written.

The starter holds the two membership rules every release should meet
(they need no column names), a commented list of every registered metric
to add more, and a commented waiver. Its first line is the
yaml-language-server modeline, so editors complete and check the file
against the policy schema as it is edited.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from policycheck.core.errors import InvalidInput, Problem, display_path

DEFAULT_NAME = "release.policy.yaml"
SCHEMA_PATH = Path("schemas") / "policy.schema.json"

STARTER = """\
# yaml-language-server: $schema={schema}
#
# Release policy for policycheck: which privacy risks a synthetic data release
# must keep below which levels. Validate it (no data needed):
#     policycheck validate {name}
# Check a release against it (writes report.json, report.html, report.md):
#     policycheck check {name} --release release.yaml
# `policycheck metrics` lists every metric with its parameters; `policycheck plan
# {name}` shows what a check would compute and with which attacker knowledge.

metadata:
  id: my-synthetic-release        # stable identifier: letters, digits, . _ -
  title: My synthetic data release
  version: "1.0"                  # a string: quote it, or YAML reads 1.10 as 1.1
  owner: Privacy team             # person or team accountable for this policy
  description: >-
    What the release is, who receives it, and why.

# What the attacker is assumed to know. Choose the weakest model that is still
# realistic for the audience:
#   no-box              sees only the released synthetic data (and the record of any target it tests)
#   partially-informed  also knows the quasi-identifiers of every original record
#   maximum-knowledge   knows the original data and every released set (open publication)
# A rule whose metric needs more knowledge than the model grants is refused.
attacker:
  model: no-box
  quasi_identifiers: []           # columns an attacker can learn elsewhere, e.g. [age, sex, zip_code]
  secrets: []                     # sensitive columns the release must not disclose, e.g. [income]

seed: 0                           # seed of every random choice; --seed overrides it; recorded in reports
confidence: 0.95                  # confidence level of the intervals reported with estimates

rules:
  # A rule decides on the confidence interval of its estimate (compare: interval, the
  # default): it fails when the whole interval is beyond the fail level, passes when the
  # whole interval is within every level, warns when it is within the fail level but
  # reaches beyond the warn level, and is inconclusive when the interval holds the fail
  # level: this sample cannot tell (on_inconclusive: warn | fail; the report says how
  # many records would settle it). A value without an interval is judged as it is.
  # Another rule (compare: estimate, upper or lower) needs a reason: write it in the
  # rule's rationale.
  - id: dcr-share
    metric: dcr_share
    threshold: {{fail_above: 0.55, warn_above: 0.52}}
    severity: blocking            # blocking: a failure fails the release (exit 1); advisory: it warns
    rationale: >-
      About half of the synthetic records are closer to the training set than to an
      equally large holdout when the synthesizer generalises; a clear excess means it
      reproduces its training records.

  - id: mi-risk
    metric: mi_risk
    threshold: {{fail_above: 0.2, warn_above: 0.1}}
    rationale: >-
      An attacker holding a person's record must not be able to tell from the synthetic
      data whether that person was in the training data.

  # More rules: copy one of these, set its parameters (`policycheck metrics` describes
  # them) and a threshold in the metric's units.
{catalogue}

# Approved exceptions: a failing or warning rule is reported as waived until the
# waiver expires; after that the policy no longer validates until it is renewed.
# waivers:
#   - rule: mi-risk
#     reason: Accepted for the internal pilot only; regenerate before publication
#     approved_by: Jane Roe (data protection officer)
#     expires: 2027-06-30
#     ticket: PRIV-123
"""


def _catalogue() -> str:
    """A commented example rule per registered metric, with its required params."""
    from policycheck.metrics import registry

    lines = []
    for name, spec in sorted(registry.metrics().items()):
        if name in ("dcr_share", "mi_risk"):
            continue
        required = [f for f, info in spec.params.model_fields.items() if info.is_required()]
        params = ", ".join(f"{f}: ..." for f in required)
        lines.append(f"  # {name} ({spec.family}): {spec.summary}")
        lines.append(f"  # - id: {name.replace('_', '-')}")
        lines.append(f"  #   metric: {name}")
        if params:
            lines.append(f"  #   params: {{{params}}}")
        # NOTE: a metric where higher is safer fails below its level.
        if spec.value_is_bound:
            # A value that is itself a confidence bound decides as it is, with the reason in the rule.
            lines.append(f"  #   threshold: {{fail_{spec.fail_direction}: ..., compare: estimate}}")
            lines.append(f"  #   rationale: {json.dumps(spec.value_is_bound)}")
        else:
            lines.append(f"  #   threshold: {{fail_{spec.fail_direction}: ...}}")
    return "\n".join(lines) if lines else "  # (no other metric is registered)"


def schema_reference(policy_path: Path, schema: Path | str | None = None) -> str:
    """What the modeline names: ``schema`` if given, else ``schemas/policy.schema.json``
    under the current folder, relative to the policy's folder."""
    if schema is not None and "://" in str(schema):
        return str(schema)
    target = Path(schema) if schema is not None else Path.cwd() / SCHEMA_PATH
    return Path(os.path.relpath(target.resolve(), Path(policy_path).resolve().parent)).as_posix()


def starter_policy(policy_path: Path, schema: Path | str | None = None) -> str:
    """The starter policy's text for a file at ``policy_path``."""
    return STARTER.format(
        schema=schema_reference(policy_path, schema), name=display_path(policy_path), catalogue=_catalogue()
    )


def write_starter(path: Path | None = None, schema: Path | str | None = None) -> Path:
    """Write the starter policy at ``path`` (a folder gets ``release.policy.yaml``); never overwrite."""
    path = Path(path) if path is not None else Path(DEFAULT_NAME)
    if path.is_dir():
        path = path / DEFAULT_NAME
    text = starter_policy(path, schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # NOTE: mode "x" fails if the file exists, atomically: an existing
        # policy is never replaced, even by a concurrent init.
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise InvalidInput(
            Problem(display_path(path), "already exists; not overwritten (choose another path)")
        ) from None
    return path
