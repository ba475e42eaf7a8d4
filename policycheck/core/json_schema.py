"""A pydantic model as a draft-07 JSON Schema, the draft editors' yaml-language-server understands."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
#: Where definitions live in draft-07 (pydantic writes ``$defs``).
REF = "#/definitions/{model}"


def draft07(model: type[BaseModel], schema_id: str) -> dict[str, Any]:
    """``model``'s schema with ``$defs`` moved to ``definitions`` and the draft and id named."""
    schema = model.model_json_schema(ref_template=REF)
    definitions = schema.pop("$defs", {})
    return {"$schema": DRAFT_07, "$id": schema_id, **schema, "definitions": definitions}
