"""The JSON Schema of the policy language, from the pydantic models.

The policy schema is draft-07, the draft editors' yaml-language-server
understands: pydantic's ``$defs`` become ``definitions``, and each metric's
params model is attached to rules naming that metric with ``if``/``then``,
so editors complete and check params too.
"""

from __future__ import annotations

from typing import Any

from policycheck.core.json_schema import REF, draft07
from policycheck.metrics import registry
from policycheck.policy.model import Policy


def policy_schema() -> dict[str, Any]:
    """The policy language, including every registered metric's params."""
    schema = draft07(Policy, "urn:policycheck:schema:policy:1")
    definitions = schema["definitions"]
    rule = definitions["Rule"]
    specs = registry.metrics()
    rule["properties"]["metric"]["enum"] = sorted(specs)
    branches = []
    for name, spec in sorted(specs.items()):
        params = spec.params.model_json_schema(ref_template=REF)
        for key, sub in params.pop("$defs", {}).items():
            definitions.setdefault(key, sub)
        params.setdefault("description", spec.summary)
        key = f"params.{name}"
        definitions[key] = params
        branches.append(
            {
                "if": {"properties": {"metric": {"const": name}}, "required": ["metric"]},
                "then": {"properties": {"params": {"$ref": f"#/definitions/{key}"}}},
            }
        )
    if branches:
        rule["allOf"] = branches
    # A policy that extends another may restate a rule partially (only its
    # threshold, say): the full requirements apply only without `extends`.
    rule["required"] = [k for k in rule.get("required", []) if k not in ("metric", "threshold")]
    top_required = [k for k in schema.get("required", []) if k in ("metadata", "attacker", "rules")]
    schema["required"] = [k for k in schema.get("required", []) if k not in top_required]
    schema["if"] = {"not": {"required": ["extends"]}}
    schema["then"] = {
        "required": top_required,
        "properties": {"rules": {"items": {"required": ["metric", "threshold"]}}},
    }
    return schema
