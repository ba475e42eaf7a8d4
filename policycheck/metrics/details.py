"""Typed evidence: each metric's details as a model whose fields carry a label, a unit and a format.

A metric returns its evidence as a subclass of :class:`Details` (one per
metric module, beside its params model). The report renders every field
from the same declaration (:meth:`Details.field_labels`): the HTML and
Markdown show the label, the value in its format and its unit; report.json
holds the values under ``details`` and the labels under ``detail_fields``,
so no renderer ever prints a raw key or formats another module's dict.

::

    class DcrShareDetails(Details):
        closer_to_training: int = detail("Closer to a training record", unit="records")
        strict_share: float = detail("Share with ties counted as not closer", format="share")
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: How a renderer writes a value: a plain number, a count, a share in [0, 1] (printed as is), a
#: percentage, text, or structured data (lists and tables: kept out of the scalar table).
Format = Literal["number", "count", "share", "percent", "text", "data"]


def detail(
    label: str,
    *,
    unit: str | None = None,
    format: Format | None = None,  # noqa: A002 - the report's word
    help: str | None = None,  # noqa: A002 - the report's word
    default: Any = ...,
) -> Any:
    """A details field: ``label`` is what the report prints instead of the field's name.

    ``unit`` follows the value ("records", "seconds"); ``format`` says how to
    write it (inferred from the field's type when omitted); ``help`` is one
    sentence a reader may need to understand it.
    """
    return Field(default, title=label, description=help, json_schema_extra={"unit": unit, "format": format})


class Details(BaseModel):
    """Base class of every metric's details: frozen, no undeclared key."""

    # NOTE: defer_build, as for params models: only the models of metrics that run are built.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True, arbitrary_types_allowed=False)

    def to_report(self) -> dict[str, Any]:
        """The values as report.json holds them (JSON types only)."""
        return self.model_dump(mode="json")

    @classmethod
    def field_labels(cls) -> dict[str, dict[str, Any]]:
        """Per field: its label, unit, format and help, as report.json's ``detail_fields`` holds them."""
        out = {}
        for name, info in cls.model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            out[name] = {
                "label": info.title or name.replace("_", " "),
                "unit": extra.get("unit"),
                "format": extra.get("format") or _format_of(info.annotation),
                "help": info.description,
            }
        return out


def _format_of(annotation: Any) -> Format:
    """The format a field's type implies when it declares none."""
    text = str(annotation)
    if annotation is int or text in ("int", "int | None", "typing.Optional[int]"):
        return "count"
    if annotation is float or text in ("float", "float | None", "typing.Optional[float]"):
        return "number"
    if annotation is str or text in ("str", "str | None", "typing.Optional[str]"):
        return "text"
    if annotation is bool:
        return "text"
    return "data"
