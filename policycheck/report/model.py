"""The report.json interface (published as schemas/report.schema.json).

CI pipelines read this file; keep changes backward compatible and bump
``SCHEMA_VERSION`` (major for breaking changes). A field added within a major
version is optional, and verify accepts a report that lacks it
(:data:`policycheck.interfaces.verify.differences.RECORDED_SINCE`).

- 1.4: how each rule was decided (``decided_on``, ``decision``, ``unsettled``).
- 1.5: where each column's role came from (``release.role_sources``), detail labels
  (``rules[].detail_fields``), ``rules[].sample_unit`` and ``rules[].interval_of``,
  the synthesizer command's files, the report files' and policycheck's own
  SHA-256 (``provenance.integrity.report_files``, ``provenance.tool_source_sha256``).
- 1.6: the modules a synthesizer command's Python script imports from its folder, hashed
  beside the files the command names (``provenance.synthesizer_files[].imported_by``).
- 1.7: the files of a module a synthesizer command runs with ``python -m``, and the modules they
  import from the command's folder (``provenance.synthesizer_files[].module``).
- 1.8: the modules a synthesizer script imports with ``importlib.import_module("name")`` written out,
  hashed as ``import name``'s are, and a release finding (``synthesizer command: ...``) naming where its
  scripts import by a name computed when they run, which no hash covers.
"""

from __future__ import annotations

from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.8"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ThresholdOut(_Model):
    fail_above: float | None = None
    warn_above: float | None = None
    fail_below: float | None = None
    warn_below: float | None = None
    compare: Literal["interval", "estimate", "lower", "upper"] = Field(
        description="The decision rule the threshold names (interval since 1.4, the default)."
    )


class WaiverOut(_Model):
    rule: str
    reason: str
    approved_by: str
    expires: str
    ticket: str | None = None


class RuleOut(_Model):
    id: str
    metric: str
    family: str
    release_level_membership: bool | None = Field(
        default=None,
        description="Whether the metric measures membership over the release as a whole (a distance or density "
        "test averaged over the records), which passes releases that expose a few records; absent in reports "
        "written before it was recorded (the membership family's rules were those).",
    )
    severity: Literal["blocking", "advisory"]
    verdict: Literal["pass", "warn", "fail", "inconclusive", "waived", "error"] = Field(
        description="inconclusive: the sample shows the value neither beyond nor within the fail level (with "
        "compare: interval, the interval contains it; with upper or lower, the estimate and that end lie on "
        "opposite sides of it)."
    )
    verdict_before_waiver: Literal["pass", "warn", "fail", "inconclusive", "error"] | None = None
    verdict_reason: str | None = Field(
        default=None,
        description="Plain words for a verdict its name does not explain: why it is inconclusive (and how many "
        "records would settle it), why it fails on a claim another rule refuted, or what a pass means.",
    )
    on_inconclusive: Literal["fail", "warn"] = Field(
        default="warn", description="What an inconclusive verdict of this rule does to the release, if blocking."
    )
    records_to_settle: int | None = Field(
        default=None, description="Records that would settle the level in `unsettled`, if the estimate held."
    )
    decided_on: Literal["interval", "estimate", "upper", "lower", "refuted_claim"] | None = Field(
        default=None,
        description="The decision rule that decided the verdict: the interval's ends (compare: interval), the "
        "estimate (compare: estimate, or a value without an interval), the estimate and one interval end (upper, "
        "lower), or a declared claim another rule refuted. None when the rule could not be evaluated (since 1.4).",
    )
    decision: str | None = Field(
        default=None, description="Plain words: which numbers decided the verdict against which level (since 1.4)."
    )
    unsettled: Literal["fail", "warn"] | None = Field(
        default=None,
        description="The level this sample leaves unsettled: fail (the rule is inconclusive) or warn (the value is "
        "shown within the fail level, its interval contains the warn level, and the rule warns) (since 1.4).",
    )
    value: float | None = Field(description="The metric's point estimate.")
    compared_value: float | None = Field(
        description="The number that decided: the estimate, or the interval end that decided the verdict."
    )
    raw: float | None = Field(
        default=None, description="The rate before the baseline is subtracted, when value is the excess."
    )
    baseline: float | None = Field(
        default=None, description="What an attacker gets without the release's individual information."
    )
    baseline_label: str | None = Field(default=None, description="Plain words naming the baseline.")
    sample_size: int | None = Field(default=None, description="Records behind the interval.")
    sample_unit: str = Field(
        default="records",
        description="What `sample_size` and `records_to_settle` count: records, or a game's test rounds.",
    )
    refutes: list[str] = Field(default_factory=list, description="Declared claims this measurement refutes.")
    relies_on: list[str] = Field(default_factory=list, description="Declared claims the value relies on.")
    threshold: ThresholdOut
    value_range: list[float | None] | None = Field(
        default=None, description="The values the metric can take [lowest, highest] (None: unbounded); since 1.2."
    )
    interval: list[float] | None = Field(description="Confidence interval [lower, upper] of the estimate, if any.")
    interval_of: str | None = Field(
        default=None,
        description="What `interval` is of, when that is not the quantity `value` names, as the metric words it "
        "(its first clause, up to '; ', is what tables print beside the interval): a DP claim excess's interval "
        "bounds what its attack can show, not the mechanism's epsilon. Absent when the interval is the value's "
        "own, and in reports written before it was recorded.",
    )
    confidence: float | None = None
    summary: str
    meaning: str
    remedy: str
    rationale: str | None = None
    params: dict[str, Any]
    knowledge: list[str] = Field(description="Attacker knowledge the evaluator used.")
    knowledge_words: list[str]
    inputs: list[str] = Field(description="Data the evaluator read.")
    needs: list[str] = Field(description="Shared intermediate results the evaluator used.")
    policy_location: dict[str, Any] = Field(description="File, line and column of the rule in the policy.")
    details: dict[str, Any] = Field(default_factory=dict)
    detail_fields: dict[str, Any] = Field(
        default_factory=dict,
        description="Per key of details: its label, unit, format and help, from the metric's typed details model.",
    )
    charts: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    waiver: WaiverOut | None = None
    error: str | None = None
    seconds: float


class Summary(_Model):
    """Counts by kind (policycheck/report/summary.py); the kinds add up to ``total``."""

    total: int
    passed: int
    warned: int = Field(
        description="Rules whose own verdict is warn. The release also warns on advisory failures and inconclusive "
        "rules that do not fail it: `warnings` lists all of them, so it can be longer than this count."
    )
    failed: int = Field(description="Rules beyond their fail level: blocking_failed + advisory_failed.")
    blocking_failed: int | None = Field(default=None, description="Blocking rules beyond their fail level (since 1.2).")
    advisory_failed: int | None = Field(
        default=None, description="Advisory rules beyond their fail level; they make the release warn (since 1.2)."
    )
    inconclusive: int = 0
    waived: int
    errors: int
    blocking_failures: list[str] = Field(
        description="Rules that fail the release: blocking fails, and blocking inconclusive rules under "
        "on_inconclusive: fail."
    )
    warnings: list[str] = Field(
        description="Rules that make the release warn: those whose verdict is warn (counted in `warned`), advisory "
        "fails (in `advisory_failed`), and inconclusive rules that do not fail it (in `inconclusive`)."
    )
    inconclusive_rules: list[str] = Field(default_factory=list)
    waived_rules: list[str]
    unused_waivers: list[str]


class DatasetOut(_Model):
    role: Literal["original", "holdout", "synthetic", "population"]
    name: str
    path: str | None
    sha256: str | None
    rows: int
    #: People among the records, where an id column names people with several records (original, holdout).
    people: int | None = None
    synthesizer: dict[str, Any] | None = None


class ReleaseOut(_Model):
    id: str
    manifest: str | None
    manifest_sha256: str | None
    columns: dict[str, str]
    #: Every input column's role (numeric, categorical, ordinal, datetime, id, ignore).
    roles: dict[str, str] = Field(default_factory=dict)
    #: Where each column's role came from: "declared in the manifest", "--column-type", "columns= (API)",
    #: "SDV metadata FILE" or "inferred from FILE, ..." (empty in reports written before it was recorded).
    role_sources: dict[str, str] = Field(default_factory=dict)
    #: strftime formats of datetime columns that declare one.
    formats: dict[str, str] = Field(default_factory=dict)
    #: What loading the release found beside the verdicts (shared ids, holdout overlap, extreme values).
    findings: list[str] = Field(default_factory=list)
    #: The id column whose ids name people with several records (panel data): the membership measures
    #: and the linkage and reconstruction intervals go by person. Absent where no id column does.
    person_key: str | None = None
    datasets: list[DatasetOut]


class PolicyOut(_Model):
    id: str
    title: str
    version: str
    owner: str
    description: str | None
    path: str
    attacker_model: str
    attacker_knowledge: list[str]
    quasi_identifiers: list[str]
    secrets: list[str]


class FileHash(_Model):
    path: str
    sha256: str


class ReportFile(_Model):
    name: Literal["report.html", "report.md", "report.junit.xml", "report.sarif", "report.pdf"] = Field(
        description="File name, beside report.json."
    )
    sha256: str | None = Field(
        None,
        description="SHA-256 of its bytes, which verify checks it by (every file since it was recorded for each; "
        "before, report.pdf's alone, the renders being compared with what report.json renders to).",
    )


class CommandFile(_Model):
    file: str = Field(description="As the command names it, relative to the folder it runs in (the policy's).")
    sha256: str
    imported_by: str | None = Field(
        None,
        description="The Python file that imports this module from its folder: a script as the command names it, or a "
        "file of the module the command runs (`module`); "
        "absent for a file the command names itself (since 1.6).",
    )
    module: str | None = Field(
        None,
        description="The module the command runs with `python -m` that brings this file in: a package's "
        "`__init__.py` on the way, the module's own file (a package's `__main__.py`), or, with `imported_by`, "
        "a module one of those imports from the command's folder (since 1.7).",
    )


class Integrity(_Model):
    algorithm: Literal["sha256"]
    fields: dict[str, str] = Field(description="SHA-256 of the canonical JSON of each run-context field, by JSON path.")
    report_sha256: str = Field(description="SHA-256 of the canonical JSON of the report without this block.")
    report_files: list[ReportFile] | None = Field(
        None,
        description="The report files written with report.json as one set (absent in reports written before it "
        "was recorded, and where report.json was not written to a folder); sealed in fields like a context field.",
    )


class Provenance(_Model):
    tool: str
    tool_version: str
    tool_source_sha256: str | None = Field(
        None,
        description="SHA-256 over the policycheck package's files (code, templates), by relative path: reports "
        "with the same digest were made by the same code, which a version string between releases does not "
        "tell. Absent in reports written before it was recorded.",
    )
    python: str
    platform: str
    libraries: dict[str, str]
    policy_files: list[FileHash] = Field(description="The policy, then every file it extends.")
    data_files: list[FileHash]
    manifest: FileHash | None
    metadata: FileHash | None = Field(
        None, description="The SDV metadata file the column roles were read from (since 1.2)."
    )
    seed: int
    confidence: float
    effective_policy: dict[str, Any] = Field(description="The policy after extends, as evaluated.")
    executor: str
    command: list[str]
    fail_on_warn: bool = Field(description="Whether warnings were turned into failures (--fail-on-warn).")
    working_directory: str = Field(description="Folder the check ran in; relative paths resolve against it.")
    output_folder: str | None = Field(
        None,
        description="Folder the check wrote the reports to, relative to working_directory when inside it; "
        "None when not written by the check (the Python API, -o -). Since 1.4.",
    )
    git_revision: str | None = Field(description="Commit of the git checkout holding the policy, if any.")
    started_at: str
    finished_at: str
    intermediate_seconds: dict[str, float]
    run_id: str | None = Field(None, description="Id of the run; every report file it wrote carries it.")
    referenced_files: list[FileHash] = Field(
        default_factory=list, description="Files the policy's rules read (DP ledgers, transition matrices)."
    )
    synthesizer_files: list[CommandFile] | None = Field(
        None,
        description="Files the synthesizer command the check ran names (its script, ...) and the modules its "
        "Python scripts import from their folder (since 1.6), hashed when it ran; verify re-hashes them before "
        "it runs the command. Absent when no command ran (since 1.5).",
    )
    integrity: Integrity | None = Field(
        None, description="Digests verify checks: each run-context field, and the whole report (see verify)."
    )


class EffectOnDemo(_Model):
    release: str = Field(description="The demo release (policycheck demo) the effect was measured on.")
    ours: float | None = Field(description="The value under our convention.")
    theirs: float | None = Field(description="The value under the peer's convention, everything else held equal.")


class ConventionEffect(_Model):
    measure: str = Field(description="What number moves, in words.")
    demo: list[EffectOnDemo]


class ConventionOut(_Model):
    topic: str
    peer: str = Field(description="The peer implementation (or paper) we differ from.")
    theirs: str
    ours: str
    effect: ConventionEffect | None = Field(
        description="Measured on the demo data (bench/convention_effects.py), if it can show it."
    )


class MethodOut(_Model):
    metric: str
    family: str
    definition: str
    source: str = Field(description="Paper and section, or the peer tool the metric follows.")
    conventions: list[ConventionOut]


class Report(_Model):
    """A policycheck compliance report."""

    model_config = ConfigDict(extra="forbid", title="policycheck report")

    schema_version: str = SCHEMA_VERSION
    verdict: Literal["pass", "warn", "fail", "error"]
    exit_code: int
    generated_at: str
    policy: PolicyOut
    release: ReleaseOut
    summary: Summary
    rules: list[RuleOut]
    waivers: list[WaiverOut]
    methods: list[MethodOut] = Field(
        default_factory=list, description="Per metric used: definition, source, conventions against peers (since 1.3)."
    )
    provenance: Provenance


def _models_in(annotation: Any) -> tuple[str, type[BaseModel]] | None:
    """How a field holds a model: ("object" | "list" | "dict", the model), or None (a free value)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object", annotation
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, UnionType):
        return next((held for a in args if (held := _models_in(a))), None)
    inner = _models_in(args[-1]) if origin in (list, dict) and args else None
    if inner is None or inner[0] != "object":
        return None
    return ("list" if origin is list else "dict"), inner[1]


def _children(how: str, key: str, value: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    if how == "list" and isinstance(value, list):
        return [((key, i), item) for i, item in enumerate(value)]
    if how == "dict" and isinstance(value, dict):
        return [((key, k), item) for k, item in value.items()]
    return [((key,), value)] if how == "object" else []


def first_key_out_of_order(report: dict[str, Any]) -> tuple[tuple[str | int, ...], str, str] | None:
    """Where ``report``'s keys first leave the order policycheck writes them: (object's path, earlier key, later key).

    policycheck writes each object of the schema with its keys in the order of its model's
    fields (the published schema's properties); a report re-serialised with sorted keys
    (``jq -S``) keeps its values but not that order. Free-form objects (libraries, columns,
    a rule's details) have no fixed order and are not judged. None when every object is in order.
    """

    def walk(node: dict[str, Any], model: type[BaseModel], path: tuple[str | int, ...]) -> Any:
        order = {name: i for i, name in enumerate(model.model_fields)}
        latest: str | None = None
        for key in node:
            if key in order:
                if latest is not None and order[key] < order[latest]:
                    return path, latest, key
                latest = key
        for key, value in node.items():
            held = _models_in(model.model_fields[key].annotation) if key in order else None
            if held is None:
                continue
            how, inner = held
            for at, item in _children(how, key, value):
                found = walk(item, inner, (*path, *at)) if isinstance(item, dict) else None
                if found:
                    return found
        return None

    found: tuple[tuple[str | int, ...], str, str] | None = walk(report, Report, ())
    return found
