"""``policycheck init``: a commented starter policy that validates as written.

The starter holds the two membership rules every release should meet
(they need no column names), a commented list of every registered metric
to add more, and a commented waiver. Its first line is the
yaml-language-server modeline, so editors complete and check the file
against the policy schema as it is edited.

Its levels are placeholders: each starter rule's rationale carries
:data:`PLACEHOLDER`, and while it does, ``validate`` notes and every
check's report warns that the level was never chosen for the release
(:func:`placeholder_findings`).

``init --from-data`` (:func:`write_from_data`) also writes the release
manifest for the data files given, with every column's role settled (the
ones inference could not decide declared as the loader advises), so
``policycheck validate -r NAME.release.yaml NAME.policy.yaml`` accepts both
as written.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from policycheck.core.errors import InvalidInput, Problem, display_path

if TYPE_CHECKING:
    from policycheck.policy.load import LoadedPolicy
    from policycheck.release.model import Release

DEFAULT_NAME = "release.policy.yaml"
SCHEMA_PATH = Path("schemas") / "policy.schema.json"
#: The mark of a level ``init`` wrote and nobody has chosen yet, in a starter rule's rationale.
PLACEHOLDER = "(starter level)"
#: The starter's metadata a signer must not see in a signed report: ``validate`` notes and reports warn while kept.
STARTER_METADATA = {"owner": "Privacy team", "description": "What the release is, who receives it, and why."}
#: What a policy or release name may hold (the policy's metadata.id rule).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

STARTER = """\
# yaml-language-server: $schema={schema}
#
# Release policy for policycheck: which privacy risks a synthetic data release
# must keep below which levels. Validate it (no data needed):
#     policycheck validate {name}
# Check a release against it (writes report.json, report.html, report.md):
#     policycheck check {name} --release {manifest}
# `policycheck metrics` lists every metric with its parameters; `policycheck plan
# {name}` shows what a check would compute and with which attacker knowledge.
#
# The levels below are placeholders, marked {placeholder} in their rationale:
# choose each for this release, write why in the rationale and delete the mark.
# So are the owner and the description below: write this policy's own.
# Until then `validate` notes each and every report warns.

metadata:
  id: {policy_id}        # stable identifier: letters, digits, . _ -
  title: {title}
  version: "1.0"                  # a string: quote it, or YAML reads 1.10 as 1.1
  owner: {owner}             # person or team accountable for this policy
  description: >-
    {description}

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
{rules}
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


#: The starter's rules when the release has a holdout: the two membership rules every release should meet.
HOLDOUT_RULES = """\
  - id: dcr-share
    metric: dcr_share
    threshold: {dcr_share}
    severity: blocking            # blocking: a failure fails the release (exit 1); advisory: it warns
    rationale: >-
      {placeholder} About half of the synthetic records are closer to the training set than
      to an equally large holdout when the synthesizer generalises; a clear excess means it
      reproduces its training records.

  - id: mi-risk
    metric: mi_risk
    threshold: {mi_risk}
    rationale: >-
      {placeholder} An attacker holding a person's record must not be able to tell from the
      synthetic data whether that person was in the training data.
"""

#: The starter's rule when the release has no holdout (the membership rules above need one).
NO_HOLDOUT_RULES = """\
  # dcr_share and mi_risk compare with a holdout (real records the synthesizer never saw):
  # add one to the release manifest (`holdout:`) and see `policycheck init` for those rules.
  - id: dcr-baseline-protection
    metric: dcr_baseline_protection
    threshold: {{fail_below: 0.01, warn_below: 0.5}}
    severity: blocking            # blocking: a failure fails the release (exit 1); advisory: it warns
    rationale: >-
      {placeholder} Synthetic records must not sit on top of the training records. Real
      records crowd together, so safe releases score low too: copula, Bayesian-network and
      independent-marginals releases of 3,000 Adult records 0.10-0.29, and 5,000 real diamonds
      the synthesizer never saw (ggplot2's table) 0.04; copies score 0, a 1% jitter
      0.003-0.006. Without a holdout nothing tells a dense population
      from copying above that: with one, `params: {{baseline: holdout}}` compares with real
      people the synthesizer never saw.
"""


def _catalogue(shown: tuple[str, ...] = ("dcr_share", "mi_risk")) -> str:
    """A commented example rule per registered metric, with its required params."""
    from policycheck.metrics import registry

    lines = []
    for name, spec in sorted(registry.metrics().items()):
        if name in shown:
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


#: The starter's membership rules: metric and placeholder levels (fail, warn), all "above".
HOLDOUT_LEVELS = {"dcr_share": (0.55, 0.52), "mi_risk": (0.2, 0.1)}


def starter_policy(
    policy_path: Path,
    schema: Path | str | None = None,
    policy_id: str = "my-synthetic-release",
    title: str = "My synthetic data release",
    manifest: str = "release.yaml",
    holdout: bool = True,
    release: Release | None = None,
) -> str:
    """The starter policy's text for a file at ``policy_path`` (its rules need a holdout unless ``holdout`` is
    False), checking the release at ``manifest``; its warn levels are ones ``release``'s sizes resolve."""
    thresholds = {metric: starter_threshold(metric, release) for metric in HOLDOUT_LEVELS}
    rules = (HOLDOUT_RULES if holdout else NO_HOLDOUT_RULES).format(placeholder=PLACEHOLDER, **thresholds)
    return STARTER.format(
        schema=schema_reference(policy_path, schema),
        name=display_path(policy_path),
        manifest=manifest,
        policy_id=policy_id,
        title=title,
        placeholder=PLACEHOLDER,
        owner=STARTER_METADATA["owner"],
        description=STARTER_METADATA["description"],
        rules=rules,
        catalogue=_catalogue(("dcr_share", "mi_risk") if holdout else ("dcr_baseline_protection",)),
    )


def starter_threshold(metric: str, release: Release | None) -> str:
    """The starter rule's threshold as YAML: its placeholder levels, the warn level moved out when ``release``'s
    sizes surely cannot resolve it (a release with no leak could then at best warn: engine/resolution.py).

    The warn level goes to the nearest hundredth the sample resolves, and is left out when that is not
    short of the fail level; a comment says why. The fail level stays: ``validate -r`` says when the
    sample cannot resolve it either, with the records that would.
    """
    import math

    from policycheck.metrics import registry

    fail, starter_warn = HOLDOUT_LEVELS[metric]
    warn: float | None = starter_warn
    moved = ""
    spec = registry.get_metric(metric)
    resolution = spec.resolution
    r = resolution(spec.params(), release) if resolution and release and release.holdout is not None else None
    # A width known only as an upper bound ("at most") may yet resolve the level: left to validate's note.
    if r is not None and r.width_is != "at most" and starter_warn - r.no_leak < r.half_width:
        resolved = round(r.no_leak + math.ceil(round(r.half_width * 100, 9)) / 100, 2)
        sample = f"{r.records:,} {r.unit} resolve no closer to {r.no_leak:g} than {r.half_width:.3f}"
        if resolved < fail:
            moved = f"   # warn {resolved:g}, not {starter_warn:g}: {sample}"
            warn = resolved
        else:
            moved = f"   # no warn level: {sample}, and {resolved:g} is not short of the fail level"
            warn = None
    levels = f"fail_above: {fail:g}" + (f", warn_above: {warn:g}" if warn is not None else "")
    return "{" + levels + "}" + moved


def write_starter(path: Path | None = None, schema: Path | str | None = None) -> Path:
    """Write the starter policy at ``path`` (a folder gets ``release.policy.yaml``); never overwrite."""
    path = Path(path) if path is not None else Path(DEFAULT_NAME)
    if path.is_dir():
        path = path / DEFAULT_NAME
    text = starter_policy(path, schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_new(path, text)
    return path


def _write_new(path: Path, text: str) -> None:
    """Write ``text`` to a new file at ``path``; an existing file is never replaced."""
    try:
        # NOTE: mode "x" fails if the file exists, atomically: an existing
        # file is never replaced, even by a concurrent init.
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise InvalidInput(
            Problem(display_path(path), "already exists; not overwritten (choose another path)")
        ) from None


def placeholders(loaded: LoadedPolicy) -> list[tuple[tuple[str | int, ...], str]]:
    """``(place in the policy, sentence)`` for each text ``init`` wrote that nobody has chosen since.

    A rule whose rationale still holds :data:`PLACEHOLDER` keeps a starter
    level; metadata equal to :data:`STARTER_METADATA` names no owner and
    describes no release, and would print as is in a report someone signs.
    """
    out: list[tuple[tuple[str | int, ...], str]] = []
    metadata = loaded.policy.metadata
    for key, starter in STARTER_METADATA.items():
        if (getattr(metadata, key, None) or "").strip() == starter:
            out.append(
                (
                    ("metadata", key),
                    f"metadata {key} is still the text `policycheck init` wrote ({starter!r}): "
                    f"write this policy's own {key}",
                )
            )
    for i, rule in enumerate(loaded.policy.rules):
        if rule.enabled and rule.rationale and PLACEHOLDER in rule.rationale:
            levels = rule.threshold.model_dump(exclude_none=True, exclude_defaults=True)
            said = ", ".join(f"{k} {v}" for k, v in levels.items())
            out.append(
                (
                    ("rules", i),
                    f"rule {rule.id!r} keeps the placeholder level `policycheck init` wrote ({said}): choose the "
                    f"level for this release, say why in its rationale and delete {PLACEHOLDER!r} there",
                )
            )
    return out


def placeholder_notes(loaded: LoadedPolicy) -> list[Problem]:
    """:func:`placeholders` as notes at their place in the policy (``validate`` prints them; exit 0)."""
    notes = []
    for place, said in placeholders(loaded):
        file, line, col = loaded.source.origins.get(place, (display_path(loaded.path), None, None))
        notes.append(Problem(file, f"note: {said}", line, col))
    return notes


def placeholder_findings(loaded: LoadedPolicy) -> list[str]:
    """:func:`placeholders` as findings, which every report shows as warnings beside the verdicts."""
    return [f"policy: {said}" for _, said in placeholders(loaded)]


def write_from_data(
    name: str,
    original: Path,
    synthetic: list[Path],
    holdout: Path | None = None,
    out_dir: Path | None = None,
    schema: Path | str | None = None,
    population: Path | None = None,
) -> tuple[Path, Path, Release]:
    """Write ``NAME.policy.yaml`` and ``NAME.release.yaml`` into ``out_dir`` for these data files.

    The manifest declares every column's role: as the loader inferred it from
    every file, or, for a column it could not decide, as its problem's
    remedy says (an identifier ``id``, numbers with a few odd values
    ``categorical``, an empty or constant column ``ignore``). Nothing is
    written when either file exists or the data cannot be read.
    """
    if not NAME.fullmatch(name):
        raise InvalidInput(Problem("--name", f"{name!r}: use letters, digits, '.', '_' and '-' (a file name stem)"))
    folder = Path(out_dir) if out_dir is not None else Path(".")
    policy_path, manifest_path = folder / f"{name}.policy.yaml", folder / f"{name}.release.yaml"
    for path in (policy_path, manifest_path):
        if path.exists():
            raise InvalidInput(Problem(display_path(path), "already exists; not overwritten (choose another --name)"))
    release, settled = settled_release(name, original, synthetic, holdout, population)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = manifest_text(name, folder, original, synthetic, holdout, release, settled, population)
    policy = starter_policy(
        policy_path, schema, name, f"{name} synthetic data release", manifest_path.name, holdout is not None, release
    )
    _write_new(manifest_path, manifest)
    _write_new(policy_path, policy)
    return policy_path, manifest_path, release


def settled_release(
    name: str, original: Path, synthetic: list[Path], holdout: Path | None, population: Path | None = None
) -> tuple[Release, dict[str, str]]:
    """The release of these files, each column the loader could not decide declared as it advises.

    A ``population`` file is read as the check will read it, so its values count in every inferred role.
    """
    from policycheck.release.load import UndecidedColumns, build_release
    from policycheck.release.manifest import ColumnDecl
    from policycheck.release.model import SynthesizerInfo

    sets = [(Path(p), Path(p).stem, SynthesizerInfo()) for p in synthetic]
    settled: dict[str, str] = {}
    while True:
        columns = {c: ColumnDecl(type=t) for c, t in settled.items()}  # type: ignore[arg-type]
        try:
            return build_release(name, Path(original), sets, holdout, columns, population=population), settled
        except UndecidedColumns as exc:
            if set(exc.settle) <= set(settled):
                raise  # declaring did not settle it: a problem no declaration settles
            settled.update(exc.settle)


def manifest_text(
    name: str,
    folder: Path,
    original: Path,
    synthetic: list[Path],
    holdout: Path | None,
    release: Release,
    settled: dict[str, str],
    population: Path | None = None,
) -> str:
    """The release manifest for these files, paths relative to ``folder``, every column's role declared."""

    def path(p: Path) -> str:
        return json.dumps(Path(os.path.relpath(Path(p).resolve(), folder.resolve())).as_posix())

    def key(column: str) -> str:
        return column if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", column) else json.dumps(column)

    lines = [
        "# Release manifest written by `policycheck init --from-data`: the files of one release",
        "# and each column's role. Check it with:",
        f"#     policycheck validate -r {name}.release.yaml {name}.policy.yaml",
        f"release: {{id: {json.dumps(name)}}}",
        f"original: {path(original)}",
    ]
    if holdout is not None:
        lines.append(f"holdout: {path(holdout)}               # real records the synthesizer never saw")
    if population is not None:
        lines.append(f"population: {path(population)}            # where the membership game draws its records from")
    lines.append("synthetic:")
    for p in synthetic:
        lines += [
            f"  - path: {path(p)}",
            f"    name: {json.dumps(Path(p).stem)}",
            "    synthesizer: {name: unknown}   # its name and version; epsilon, delta if differentially private",
        ]
    lines.append("columns:                         # every column's role: change any that is wrong")
    width = max(len(key(c)) for c in release.roles) + len(": categorical")
    for column, role in release.roles.items():
        why = "decided here: " + _why(role) if column in settled else release.role_sources.get(column, "")
        lines.append(f"  {f'{key(column)}: {role}':<{width}}  # {why}")
    return "\n".join(lines) + "\n"


def _why(role: str) -> str:
    return {
        "id": "it looks like a record identifier",
        "categorical": "numbers but for a few values, read as labels",
        "ignore": "empty or constant",
    }.get(role, role)
