"""A release for the Python API: original, synthetic sets and holdout as DataFrames or files, or a manifest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from policycheck.core.errors import InvalidInput, Problem
from policycheck.core.plural import count_of

if TYPE_CHECKING:  # pandas and the engine load only when a check needs them
    import pandas as pd
    from pydantic import BaseModel

    from policycheck.release import model as release_model

#: A path to a data file, or a DataFrame.
Table = Union[str, Path, "pd.DataFrame"]


class Release:
    """A release to check: the original data, one or more synthetic sets, and an optional holdout.

    Each data set is a pandas DataFrame or a path to a data file (CSV, also
    ``.csv.gz``/``.csv.bz2``, Parquet or Feather). DataFrames are read as
    they are, never written to disk nor modified.

    - ``synthetic``: one set, a list of sets, or a mapping name -> set.
    - ``population``: records the membership game draws its training sets
      and targets from (a census, a register); by default the original and
      holdout records.
    - ``columns``: type overrides as in a manifest, ``{"age": "numeric"}`` or
      ``{"edu": {"type": "ordinal", "order": [...]}}``.
    - ``synthesizer``: what the synthesizer declares (``name``, ``epsilon``,
      ``delta``, ``mechanism``, ...): one mapping for every set, or a list
      with one mapping per set. It may also be the synthesizer itself, for
      the membership game to re-run in process (``synthesizer: release``): a
      callable ``fn(frame, rows, seed) -> DataFrame``, or any object with
      SDV's ``fit(frame)`` and ``sample(num_rows=...)``; alone, or as the
      mapping's ``entry`` beside its declaration (``{"name": ..., "epsilon":
      1.0, "entry": fn}``). A top-level function or class runs the game's
      rounds in parallel; a lambda runs them in this process.

    Raises :class:`InputError` with one problem per line when the data are unusable.
    """

    def __init__(
        self,
        original: Table,
        synthetic: Table | Sequence[Table] | Mapping[str, Table],
        holdout: Table | None = None,
        *,
        columns: Mapping[str, Any] | None = None,
        synthesizer: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        id: str = "release",  # noqa: A002 - the manifest's word
        population: Table | None = None,
    ) -> None:
        from policycheck.release.load import build_release

        sets = _named_sets(synthetic)
        infos = _synthesizer_infos(synthesizer, len(sets))
        self._release = build_release(
            release_id=id,
            original=_source(original, "original"),
            synthetic=[(_source(frame, name), name, info) for (name, frame), info in zip(sets, infos, strict=True)],
            holdout=_source(holdout, "holdout") if holdout is not None else None,
            columns=_column_decls(columns or {}),
            declared_by="api",
            population=_source(population, "population") if population is not None else None,
        )

    @classmethod
    def from_manifest(cls, path: str | Path) -> Release:
        """The release a manifest file describes (paths relative to the manifest)."""
        from policycheck.release.load import load_manifest

        return cls._wrap(load_manifest(Path(path)))

    @classmethod
    def _wrap(cls, internal: release_model.Release) -> Release:
        release = cls.__new__(cls)
        release._release = internal
        return release

    @property
    def id(self) -> str:
        return self._release.id

    @property
    def columns(self) -> dict[str, str]:
        """Every analysed column and its type."""
        return {name: kind.value for name, kind in self._release.column_types.items()}

    @property
    def synthetic_names(self) -> list[str]:
        return [d.name for d in self._release.synthetic]

    @property
    def roles(self) -> dict[str, str]:
        """Every input column's role (numeric, ordinal, categorical, datetime, id or ignore), in file order.

        A copy: changing it changes nothing in the release.
        """
        return dict(self._release.roles)

    @property
    def role_sources(self) -> dict[str, str]:
        """Where each column's role came from (``columns= (API)``, ``inferred from ...``, ...); a copy."""
        return dict(self._release.role_sources)

    def __repr__(self) -> str:
        r = self._release
        holdout = f", holdout {r.holdout.n_rows} rows" if r.holdout is not None else ""
        return (
            f"<Release {r.id!r}: original {r.original.n_rows} rows x {len(r.columns)} columns, "
            f"{count_of(len(r.synthetic), 'synthetic set')}{holdout}>"
        )


def load_release(path: str | Path) -> Release:
    """The release a manifest file describes (same as :meth:`Release.from_manifest`)."""
    return Release.from_manifest(path)


def _source(table: Table, label: str) -> Any:
    from policycheck.release.memory import InMemoryTable

    if isinstance(table, (str, Path)):
        return Path(table)
    return InMemoryTable(f"{label} (DataFrame)", table)


def _named_sets(synthetic: Any) -> list[tuple[str, Any]]:
    if isinstance(synthetic, Mapping):
        return [(str(name), frame) for name, frame in synthetic.items()]
    if isinstance(synthetic, (list, tuple)):
        return [(f"synthetic[{i}]", frame) for i, frame in enumerate(synthetic)]
    return [("synthetic[0]", synthetic)]


def _synthesizer_infos(declared: Any, count: int) -> list[Any]:
    """Validate declarations as a manifest's ``synthesizer:`` blocks are validated."""
    from pydantic import ValidationError

    from policycheck.release.manifest import SynthesizerDecl
    from policycheck.release.model import SynthesizerInfo

    if declared is None:
        return [SynthesizerInfo() for _ in range(count)]
    per_set = list(declared) if isinstance(declared, (list, tuple)) else [declared] * count
    if len(per_set) != count:
        raise InvalidInput(
            Problem("synthesizer", f"{count_of(len(per_set), 'declaration')} for {count_of(count, 'synthetic set')}")
        )
    infos = []
    for i, item in enumerate(per_set):
        entry = None
        if _is_synthesizer(item):
            entry, item = item, {"name": _entry_name(item)}
        elif isinstance(item, Mapping) and "entry" in item:
            item = dict(item)
            entry = item.pop("entry")
            if not _is_synthesizer(entry):
                raise InvalidInput(
                    Problem(
                        f"synthesizer[{i}].entry",
                        "must be a callable fn(frame, rows, seed) or an "
                        "object with fit(frame) and sample(num_rows=...)",
                    )
                )
            item.setdefault("name", _entry_name(entry))
        try:
            decl = SynthesizerDecl.model_validate(dict(item))
        except (ValidationError, TypeError, ValueError) as exc:
            errors = (
                exc.errors()
                if isinstance(exc, ValidationError)
                else [{"loc": (), "msg": str(exc), "type": "value_error"}]
            )
            raise InvalidInput([Problem(f"synthesizer[{i}]", _worded(e, SynthesizerDecl)) for e in errors]) from None
        infos.append(
            SynthesizerInfo(
                name=decl.name,
                epsilon=decl.epsilon,
                delta=decl.delta,
                params=dict(decl.model_extra or {}),
                command=decl.command,
                entry=entry,
            )
        )
    return infos


def _is_synthesizer(obj: Any) -> bool:
    """A Python synthesizer: SDV's fit/sample, or a callable that is not a declaration."""
    if isinstance(obj, Mapping):
        return False
    return (hasattr(obj, "fit") and hasattr(obj, "sample")) or callable(obj)


def _entry_name(obj: Any) -> str:
    kind = obj if callable(obj) and not hasattr(obj, "fit") else type(obj)
    return f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', type(obj).__name__)}"


def _column_decls(columns: Mapping[str, Any]) -> dict[str, Any]:
    from pydantic import ValidationError

    from policycheck.release.manifest import ColumnDecl

    out = {}
    for name, decl in columns.items():
        try:
            out[str(name)] = ColumnDecl.model_validate({"type": decl} if isinstance(decl, str) else dict(decl))
        except ValidationError as exc:
            raise InvalidInput([Problem(f"columns[{name!r}]", _worded(e, ColumnDecl)) for e in exc.errors()]) from None
    return out


def _worded(err: Mapping[str, Any], model: type[BaseModel]) -> str:
    """One validation error of a declaration in the words a manifest's would have (Python values: no quoting advice)."""
    from policycheck.io.pydantic_words import worded

    _, message = worded(err, fields_at=lambda path: list(model.model_fields) if not path else None, yaml=False)
    return message
