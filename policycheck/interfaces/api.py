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
"""

from __future__ import annotations

import html
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union

from policycheck.core.errors import EXIT_PASS, InvalidInput, Problem

if TYPE_CHECKING:  # pandas and the engine load only when a check needs them
    import pandas as pd

    from policycheck.policy.load import LoadedPolicy
    from policycheck.release import model as release_model

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

#: Report formats :meth:`Report.write` and :meth:`Report.render` know.
FORMATS = ("json", "html", "md", "junit", "sarif")

#: A path to a data file, or a DataFrame.
Table = Union[str, Path, "pd.DataFrame"]

#: What every bad policy, manifest or data set raises (exit code 2 on the command line).
InputError = InvalidInput


class PolicyError(InvalidInput):
    """A policy file is invalid; ``.problems`` lists every problem with its ``file:line:col``."""


# --- policies -----------------------------------------------------------------


class Policy:
    """A validated release policy (see :func:`load_policy`)."""

    def __init__(self, loaded: LoadedPolicy) -> None:
        self._loaded = loaded

    @property
    def path(self) -> Path:
        return self._loaded.path

    @property
    def id(self) -> str:
        return self._loaded.policy.metadata.id

    @property
    def rules(self) -> list[str]:
        """Ids of the enabled rules, in policy order."""
        return [rule.id for rule in self._loaded.rules]

    @property
    def attacker_model(self) -> str:
        return self._loaded.policy.attacker.model

    def __repr__(self) -> str:
        return f"<Policy {self.id!r} from {self.path}: {len(self.rules)} rules, attacker model {self.attacker_model}>"


def load_policy(path: str | Path, release: Release | None = None) -> Policy:
    """Load and validate the policy at ``path`` (with its ``extends``).

    With a ``release``, also check that the columns the policy names exist.
    Raises :class:`PolicyError` listing every problem.
    """
    from policycheck.policy.load import load_policy as _load

    try:
        return Policy(_load(Path(path), release._release if release is not None else None))
    except PolicyError:
        raise
    except InvalidInput as exc:
        raise PolicyError(exc.problems) from None


def validate(path: str | Path, release: Release | None = None) -> list[Problem]:
    """Every problem of the policy at ``path`` (empty when it is valid); never raises for a bad policy."""
    try:
        load_policy(path, release)
    except PolicyError as exc:
        return list(exc.problems)
    return []


# --- releases -----------------------------------------------------------------


class Release:
    """A release to check: the original data, one or more synthetic sets, and an optional holdout.

    Each data set is a pandas DataFrame or a path to a data file (CSV, also
    ``.csv.gz``/``.csv.bz2``, Parquet or Feather). DataFrames are read as
    they are, never written to disk nor modified.

    - ``synthetic``: one set, a list of sets, or a mapping name -> set.
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

    def __repr__(self) -> str:
        r = self._release
        holdout = f", holdout {r.holdout.n_rows} rows" if r.holdout is not None else ""
        return (
            f"<Release {r.id!r}: original {r.original.n_rows} rows x {len(r.columns)} columns, "
            f"{len(r.synthetic)} synthetic set(s){holdout}>"
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
        raise InvalidInput(Problem("synthesizer", f"{len(per_set)} declarations for {count} synthetic set(s)"))
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
            errors = exc.errors() if isinstance(exc, ValidationError) else [{"loc": (), "msg": str(exc)}]
            raise InvalidInput([Problem(f"synthesizer[{i}]", _pydantic_words(e)) for e in errors]) from None
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
            raise InvalidInput([Problem(f"columns[{name!r}]", _pydantic_words(e)) for e in exc.errors()]) from None
    return out


def _pydantic_words(err: dict[str, Any]) -> str:
    where = ".".join(str(p) for p in err["loc"])
    message = err["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


# --- checking -----------------------------------------------------------------


def check(
    policy: Policy | str | Path,
    release: Release,
    *,
    seed: int | None = None,
    workers: int | None = None,
    executor: str = "local",
    progress: bool | Literal["plain"] | None = None,
    fail_on_warn: bool = False,
    command: Sequence[str] = (),
    scheduler: str | None = None,
) -> Report:
    """Check ``release`` against ``policy``; return the report (nothing is written).

    The policy is validated against the release's columns first (a loaded
    :class:`Policy` is not read again), so an invalid policy raises
    :class:`PolicyError` before any computation. ``seed`` overrides the
    policy's (same inputs and seed, same numbers); ``workers`` and
    ``executor`` choose where heavy work runs; ``progress`` shows progress on
    stderr: a live line per plan step on a terminal, plain lines elsewhere or
    with ``"plain"`` (default: when stderr is a terminal).
    """
    from policycheck.interfaces.check import CheckOptions
    from policycheck.interfaces.check import check as run_check

    loaded = _for_release(policy, release)
    options = CheckOptions(
        seed=seed,
        fail_on_warn=fail_on_warn,
        executor=executor,
        workers=workers,
        scheduler=scheduler,
        progress=sys.stderr.isatty() if progress is None else progress,
        command=tuple(command),
    )
    return Report(run_check(loaded, release._release, options))


def _for_release(policy: Policy | str | Path, release: Release) -> LoadedPolicy:
    """The policy validated against ``release``: a loaded one checked again without re-reading its files."""
    from policycheck.policy.load import validate_for_release

    if not isinstance(policy, Policy):
        return load_policy(policy, release)._loaded
    try:
        return validate_for_release(policy._loaded, release._release)
    except InvalidInput as exc:
        raise PolicyError(exc.problems) from None


class Report:
    """The outcome of a check: report.json's content with helpers to read and write it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @classmethod
    def read(cls, path: str | Path) -> Report:
        """A report.json written earlier (checked as ``verify`` reads it: raises :data:`InputError` if it is not one)."""
        from policycheck.interfaces.verify import read_report

        return cls(read_report(Path(path)))

    @property
    def verdict(self) -> str:
        """The release verdict: pass, warn, fail or error."""
        return self.data["verdict"]

    @property
    def exit_code(self) -> int:
        """What ``policycheck check`` exits with: 0 pass, 1 blocking failure, 3 evaluator error."""
        return self.data["exit_code"]

    @property
    def passed(self) -> bool:
        """Whether the release may go out: every blocking rule passes (exit code 0)."""
        return self.exit_code == EXIT_PASS

    @property
    def rules(self) -> list[dict[str, Any]]:
        return self.data["rules"]

    def to_dict(self) -> dict[str, Any]:
        """report.json as a fresh dict."""
        return json.loads(self.to_json())

    def to_json(self) -> str:
        return self.render("json")

    def to_frame(self) -> pd.DataFrame:
        """One row per rule: id, metric, severity, verdict, value, interval, its confidence, threshold, and the
        synthetic set that decided it (the worst, for a rule over several sets)."""
        import pandas as pd

        from policycheck.report.decision import interval_level, worst_set
        from policycheck.report.formatting import threshold_text

        rows = [
            {
                "id": r["id"],
                "metric": r["metric"],
                "severity": r["severity"],
                "verdict": r["verdict"],
                "value": r["value"],
                "interval": tuple(r["interval"]) if r["interval"] else None,
                "interval_level": interval_level(r) if r["interval"] else None,
                "threshold": threshold_text(r["threshold"]),
                "worst_set": worst_set(r),
            }
            for r in self.rules
        ]
        columns = [
            "id",
            "metric",
            "severity",
            "verdict",
            "value",
            "interval",
            "interval_level",
            "threshold",
            "worst_set",
        ]
        return pd.DataFrame(rows, columns=columns)

    def render(self, format: str) -> str:  # noqa: A002 - the CLI's word
        """The report as text in one of :data:`FORMATS`."""
        from policycheck.report.render import render_format

        if format not in FORMATS:
            raise ValueError(f"unknown report format {format!r}; choose from {', '.join(FORMATS)}")
        return render_format(format, self.data)

    def write(self, out_dir: str | Path, formats: Iterable[str] = ("json", "html", "md")) -> list[Path]:
        """Write the chosen formats into ``out_dir`` (atomically); return the paths written."""
        from policycheck.report.render import write_reports

        chosen = tuple(formats)
        unknown = [f for f in chosen if f not in (*FORMATS, "pdf")]  # pdf: the HTML printed by Chromium
        if unknown:
            raise ValueError(f"unknown report format(s) {unknown}; choose from {', '.join(FORMATS)}")
        return write_reports(self.data, Path(out_dir), chosen)

    def __repr__(self) -> str:
        s = self.data["summary"]
        return (
            f"<Report {self.data['policy']['id']!r} on {self.data['release']['id']!r}: {self.verdict} "
            f"({s['passed']} passed, {s['warned']} warned, {s['failed']} failed, {s['waived']} waived, "
            f"{s['errors']} errors)>"
        )

    def _repr_html_(self) -> str:
        """A compact version of the HTML report for Jupyter: the verdict and one row per rule."""
        from policycheck.report.formatting import VERDICT_WORDS, fmt, threshold_text

        colours = {
            "pass": "#1a7f37",
            "warn": "#9a6700",
            "fail": "#cf222e",
            "error": "#8250df",
            "waived": "#57606a",
            "inconclusive": "#9a6700",
        }
        e = html.escape
        rows = []
        for r in self.rules:
            interval = f" [{fmt(r['interval'][0])}, {fmt(r['interval'][1])}]" if r["interval"] else ""
            colour = colours.get(r["verdict"], "#57606a")
            rows.append(
                f"<tr><td><code>{e(r['id'])}</code></td><td>{e(r['metric'])}</td>"
                f'<td style="color:{colour};font-weight:bold">{e(r["verdict"])}</td>'
                f"<td>{e(fmt(r['value']))}{e(interval)}</td><td>{e(threshold_text(r['threshold']))}</td>"
                f"<td>{e(r['severity'])}</td></tr>"
            )
        d = self.data
        colour = colours.get(self.verdict, "#57606a")
        return (
            '<div class="policycheck-report">'
            f"<p><strong>{e(d['policy']['id'])}</strong> on <strong>{e(d['release']['id'])}</strong>: "
            f'<span style="color:{colour};font-weight:bold">{e(VERDICT_WORDS.get(self.verdict, self.verdict.upper()))}</span> '
            f"(exit code {self.exit_code}, seed {d['provenance']['seed']})</p>"
            "<table><thead><tr><th>rule</th><th>metric</th><th>verdict</th><th>value [interval]</th>"
            "<th>threshold</th><th>severity</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            "<p><small>Full report: <code>report.write(folder)</code> writes report.html.</small></p></div>"
        )
