"""The release manifest: which files make up the release, and what the
synthesizer behind each synthetic set declares.

Example::

    release:
      id: adult-2026-q4
      description: Public-use synthetic extract
    original: data/original.csv
    holdout: data/holdout.csv          # optional; real records the synthesizer never saw
    population: data/census.parquet    # optional; where the membership game draws its records from
    synthetic:
      - path: data/synthetic-1.parquet
        name: ctgan-run-1              # optional
        synthesizer:
          name: ctgan
          epsilon: 1.0
          delta: 1e-6
          mechanism: approximate       # any further key is kept as a declared parameter
          command: python synth.py --input {input} --output {output} --rows {rows} --seed {seed}
    metadata: metadata.json            # optional: an SDV metadata file giving column types
    columns:                           # optional: column roles, over the metadata and inference
      seqn: id                         # a record identifier: kept out of every analysis
      comment: ignore                  # dropped
      visit: {type: datetime, format: "%d/%m/%Y"}
      age: numeric
      education: {type: ordinal, order: [Preschool, 1st-4th, ...]}

Paths are relative to the manifest's folder. CSV (UTF-8, header row, empty
cell = missing) and Parquet are read, by file extension.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class SynthesizerDecl(BaseModel):
    """Declared metadata of the synthesizer behind one set; extra keys are parameters."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    name: str = Field(default="unknown", description="Synthesizer name and version.")
    epsilon: float | None = Field(default=None, gt=0, description="Declared epsilon of the set's mechanism.")
    delta: float | None = Field(default=None, ge=0, lt=1, description="Declared delta of the set's mechanism.")
    command: str | None = Field(
        default=None,
        description="Command template to re-run the synthesizer: {input}, {output}, {rows}, {seed}.",
    )

    @model_validator(mode="after")
    def _mechanism(self) -> SynthesizerDecl:
        # A DP claim no mechanism fits is refused where it is written, not
        # when a DP rule reads it (an evaluator error, exit 3, after computing).
        from policycheck.release.mechanism import declared_mechanism

        fields = dict(self.model_extra or {})
        fields.update({k: v for k, v in (("epsilon", self.epsilon), ("delta", self.delta)) if v is not None})
        declared_mechanism(fields)  # raises InvalidMechanism, a ValueError naming the key
        return self


class SyntheticDecl(_Strict):
    path: str = Field(description="Synthetic data file (CSV or Parquet).")
    name: str | None = Field(default=None, description="Name shown in reports.")
    synthesizer: SynthesizerDecl = Field(default_factory=SynthesizerDecl)


ColumnRole = Literal["numeric", "categorical", "ordinal", "datetime", "id", "ignore"]


class ColumnDecl(_Strict):
    type: ColumnRole = Field(
        description="numeric, categorical, ordinal (with `order`), datetime (compared as days since "
        "1970-01-01), id (a record identifier: only checked for ids shared with the original) or ignore."
    )
    order: list[Any] | None = Field(default=None, description="Ordinal categories, lowest first.")
    format: str | None = Field(
        default=None, description="strftime format of a datetime column, e.g. '%d/%m/%Y' (default: ISO 8601)."
    )

    @model_validator(mode="after")
    def _order(self) -> ColumnDecl:
        if self.type == "ordinal" and not self.order:
            raise ValueError("an ordinal column needs `order`: its categories, lowest first")
        if self.type != "ordinal" and self.order is not None:
            raise ValueError("`order` is only for ordinal columns")
        if self.type != "datetime" and self.format is not None:
            raise ValueError("`format` is only for datetime columns")
        return self


class ReleaseInfo(_Strict):
    id: str = Field(min_length=1)
    description: str | None = None


class Manifest(_Strict):
    release: ReleaseInfo
    original: str
    holdout: str | None = None
    population: str | None = Field(
        default=None,
        description="Records the membership game draws training sets and targets from (a census, a register); "
        "by default the original and holdout records.",
    )
    synthetic: list[SyntheticDecl] = Field(min_length=1)
    metadata: str | None = Field(
        default=None, description="SDV metadata JSON giving column types (sdtypes); `columns` overrides it."
    )
    columns: dict[str, ColumnDecl] = Field(
        default_factory=dict,
        description="Each column's role: a mapping (type, order, format) or, short, the type alone (`age: numeric`).",
    )

    @field_validator("columns", mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        # `age: numeric` is `age: {type: numeric}`: one model, so a wrong value is told in one message, at
        # its key, not once per form a union would try.
        if isinstance(value, dict):
            return {k: {"type": v} if isinstance(v, str) else v for k, v in value.items()}
        return value
