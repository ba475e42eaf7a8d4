"""Load a policy file: parse, resolve ``extends``, validate, collect problems.

Validation is lazy: every problem in the file (and in the files it extends)
is collected and reported in one run as ``file:line:col: message``, with a
"did you mean" suggestion for misspelt keys, metrics, params and columns.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.core.suggest import suggest
from policycheck.io.files import sha256_file, stat_input
from policycheck.io.yaml_types import Located, PathKey
from policycheck.io.yamlio import load_yaml
from policycheck.metrics import registry
from policycheck.metrics.base import GRANTS, KNOWLEDGE_WORDS, AttackerView
from policycheck.policy.model import Attacker, Metadata, Policy, Rule, Threshold, Waiver
from policycheck.release.model import Release

Origin = tuple[str, int | None, int | None]


@dataclass
class Source:
    """A policy document after ``extends`` merging: data plus where each node came from."""

    data: dict[str, Any]
    origins: dict[PathKey, Origin]
    files: list[tuple[Path, str]]  # (path, sha256) of every file read, this one first

    def problem(self, path: PathKey, message: str, default_file: str) -> Problem:
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.origins:
                file, line, col = self.origins[path[:cut]]
                return Problem(file, message, line, col)
        return Problem(default_file, message)


@dataclass
class LoadedPolicy:
    """A validated policy, ready to compile."""

    policy: Policy
    path: Path
    source: Source
    #: Validated metric params per rule id.
    params: dict[str, BaseModel] = field(default_factory=dict)
    #: (path, sha256) of every file a rule's params name (ledgers, matrix files), hashed for provenance.
    referenced_files: list[tuple[Path, str]] = field(default_factory=list)
    #: Commit of the git checkout holding the policy, read when the policy is loaded (before any computation).
    git_revision: str | None = None

    @property
    def rules(self) -> list[Rule]:
        return [r for r in self.policy.rules if r.enabled]

    @property
    def attacker(self) -> AttackerView:
        a = self.policy.attacker
        return AttackerView(a.model, tuple(a.quasi_identifiers), tuple(a.secrets))

    def rule_origin(self, rule_id: str) -> Origin:
        for i, rule in enumerate(self.policy.rules):
            if rule.id == rule_id:
                return self.source.origins.get(("rules", i), (display_path(self.path), None, None))
        return (display_path(self.path), None, None)


def load_policy(path: Path, release: Release | None = None, today: dt.date | None = None) -> LoadedPolicy:
    """Load and validate ``path``; raise :class:`InvalidInput` listing every problem."""
    path = Path(path)
    source = _load_source(path, [])
    problems: list[Problem] = []
    name = display_path(path)
    policy: Policy | None = None
    try:
        policy = Policy.model_validate(source.data)
    except ValidationError as exc:
        problems.extend(_pydantic_problems(exc, source, name, ()))
    params, semantic = _check_semantics(source, name, release, today or dt.date.today())
    problems.extend(semantic)
    files, missing = _referenced_files(source, name, params, path.parent, release)
    problems.extend(missing)
    if problems or policy is None:
        raise InvalidInput(_dedupe(problems))
    from policycheck.io.git_revision import git_revision  # here: only a policy that loads needs it

    return LoadedPolicy(
        policy=policy,
        path=path,
        source=source,
        params=params,
        referenced_files=files,
        git_revision=git_revision(path.parent),
    )


def validate_for_release(loaded: LoadedPolicy, release: Release, today: dt.date | None = None) -> LoadedPolicy:
    """Check an already loaded policy against ``release``, without reading or parsing its files again.

    What only a release can show: the columns the attacker and the rules name
    exist and are analysed, a holdout where a metric needs one, a ledger that
    matches the release. Raises :class:`InvalidInput` listing every problem;
    returns the policy as :func:`load_policy` given the release would have.
    """
    name = display_path(loaded.path)
    params, problems = _check_semantics(loaded.source, name, release, today or dt.date.today())
    files, missing = _referenced_files(loaded.source, name, params, loaded.path.parent, release)
    problems.extend(missing)
    if problems:
        raise InvalidInput(_dedupe(problems))
    return dataclasses.replace(loaded, params=params, referenced_files=files)


#: Params that name a file (relative to the policy's folder) a rule reads.
FILE_PARAMS = ("ledger", "matrix")


def _referenced_files(
    source: Source, name: str, params_by_rule: dict[str, BaseModel], base_dir: Path, release: Release | None = None
) -> tuple[list[tuple[Path, str]], list[Problem]]:
    """Hash every file the rules' params name; a missing or invalid one is a problem now, not an evaluator error.

    With a release, a ledger is also checked against it (its original, the
    rule's accountant against the mechanisms it records).
    """
    from policycheck.methods.dp.ledger import LedgerError, load_ledger
    from policycheck.metrics.dp import check_ledger

    rules = source.data.get("rules")
    index = {
        r["id"]: i
        for i, r in enumerate(rules if isinstance(rules, list) else [])
        if isinstance(r, dict) and isinstance(r.get("id"), str)
    }
    files: list[tuple[Path, str]] = []
    problems: list[Problem] = []
    for rule_id, params in params_by_rule.items():
        for key in FILE_PARAMS:
            value = getattr(params, key, None)
            if not isinstance(value, str):
                continue
            at = ("rules", index.get(rule_id, 0), "params", key)
            file = base_dir / value
            try:
                stat_input(file, key)  # a FIFO or device is refused here, before anything reads it
            except InvalidInput as exc:
                refused = exc.problems[0]
                problems.append(
                    source.problem(
                        at,
                        f"{key} file {value!r} not found (paths are relative to the policy)"
                        if refused.message == f"{key} file not found"
                        else str(refused),
                        name,
                    )
                )
                continue
            if key == "ledger":
                try:
                    ledger = load_ledger(file)
                except LedgerError as exc:
                    problems.append(source.problem(at, str(exc), name))
                    continue
                if release is not None:
                    problems.extend(
                        source.problem(at[:-1] + param_path, message, name)
                        for param_path, message in check_ledger(params, ledger, file, release)
                    )
            files.append((file, sha256_file(file)))
    return list(dict.fromkeys(files)), problems


# --- extends ---------------------------------------------------------------


def _load_source(path: Path, stack: list[Path]) -> Source:
    resolved = path.resolve()
    if resolved in stack:
        chain = " -> ".join(display_path(p) for p in [*stack, resolved])
        raise InvalidInput(Problem(display_path(stack[-1]), f"extends cycle: {chain}"))
    located = load_yaml(path, "policy")
    if not isinstance(located.data, dict):
        raise InvalidInput(Problem(located.file, "a policy must be a YAML mapping (key: value)", 1, 1))
    sha = located.sha256
    own = Source(
        located.data,
        {p: (located.file, line, col) for p, (line, col) in located.marks.items()},
        [(path, sha)],
    )
    _check_unique_rule_ids(located)
    bases = located.data.get("extends")
    if bases is None:
        return own
    if isinstance(bases, str):
        bases = [bases]
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise InvalidInput(located.problem(("extends",), "extends must be a file path or a list of file paths"))
    if not bases:
        return own  # extends: [] (found by the fuzz suite)
    merged: Source | None = None
    for i, base in enumerate(bases):
        base_path = path.parent / base
        key = ("extends", i) if isinstance(located.data["extends"], list) else ("extends",)
        shown = base if len(base) <= 80 else base[:77] + "..."
        try:
            found = base_path.is_file()
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte
            raise InvalidInput(
                located.problem(
                    key, f"extended policy {shown!r} cannot be read: {getattr(exc, 'strerror', None) or exc}"
                )
            ) from None
        if not found:
            raise InvalidInput(located.problem(key, f"extended policy {shown!r} not found"))
        loaded = _load_source(base_path, [*stack, resolved])
        merged = loaded if merged is None else _merge(merged, loaded)
    assert merged is not None
    result = _merge(merged, own)
    result.files = [*own.files, *[f for f in result.files if f not in own.files]]
    return result


def _check_unique_rule_ids(located: Located) -> None:
    seen: dict[str, int] = {}
    problems = []
    rules = located.data.get("rules")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, dict) and isinstance(rule.get("id"), str):
            if rule["id"] in seen:
                problems.append(
                    located.problem(
                        ("rules", i, "id"), f"duplicate rule id {rule['id']!r} (first at rule {seen[rule['id']] + 1})"
                    )
                )
            seen.setdefault(rule["id"], i)
    if problems:
        raise InvalidInput(problems)


def _merge(base: Source, child: Source) -> Source:
    """Child over base: top-level keys replace, rules merge by id (params key by key)."""
    data: dict[str, Any] = {}
    origins: dict[PathKey, Origin] = {}

    def take(src: Source, key: str) -> None:
        data[key] = src.data[key]
        _graft(origins, (key,), _subtree(src.origins, (key,)))

    for key in base.data:
        if key not in ("rules", "waivers"):
            take(base, key)
    for key in child.data:
        if key not in ("rules", "waivers"):
            take(child, key)
    if () in child.origins:
        origins[()] = child.origins[()]

    rules: list[Any] = []
    index_of: dict[str, int] = {}
    for src in (base, child):
        # NOTE: a malformed rules/waivers value (rules: 5) is reported by validation.
        own_rules = src.data.get("rules")
        for i, rule in enumerate(own_rules if isinstance(own_rules, list) else []):
            sub = _subtree(src.origins, ("rules", i))
            rid = rule.get("id") if isinstance(rule, dict) else None
            if isinstance(rid, str) and rid in index_of:
                j = index_of[rid]
                merged = dict(rules[j])
                for k, v in rule.items():
                    if k == "params" and isinstance(v, dict) and isinstance(merged.get("params"), dict):
                        merged["params"] = {**merged["params"], **v}
                    else:
                        merged[k] = v
                rules[j] = merged
                _graft(origins, ("rules", j), {p: o for p, o in sub.items() if p})
            else:
                if isinstance(rid, str):
                    index_of[rid] = len(rules)
                _graft(origins, ("rules", len(rules)), sub)
                rules.append(rule)
    if rules or "rules" in base.data or "rules" in child.data:
        data["rules"] = rules
        origins[("rules",)] = child.origins.get(("rules",), base.origins.get(("rules",), ("", None, None)))

    waivers: list[Any] = []
    for src in (base, child):
        own_waivers = src.data.get("waivers")
        for i, waiver in enumerate(own_waivers if isinstance(own_waivers, list) else []):
            _graft(origins, ("waivers", len(waivers)), _subtree(src.origins, ("waivers", i)))
            waivers.append(waiver)
    if waivers:
        data["waivers"] = waivers
    for key in ("rules", "waivers"):
        for src in (base, child):  # keep a value that is not a list, so validation names it
            if key in src.data and not isinstance(src.data[key], list):
                data[key] = src.data[key]
                origins[(key,)] = src.origins.get((key,), ("", None, None))
    return Source(data, origins, [*child.files, *base.files])


def _subtree(origins: dict[PathKey, Origin], prefix: PathKey) -> dict[PathKey, Origin]:
    n = len(prefix)
    return {p[n:]: o for p, o in origins.items() if p[:n] == prefix}


def _graft(origins: dict[PathKey, Origin], prefix: PathKey, sub: dict[PathKey, Origin]) -> None:
    for p, o in sub.items():
        origins[prefix + p] = o


# --- structural problems (pydantic) -----------------------------------------

_MODEL_AT: list[tuple[tuple[str, ...], type[BaseModel]]] = [
    ((), Policy),
    (("metadata",), Metadata),
    (("attacker",), Attacker),
    (("rules", "*"), Rule),
    (("rules", "*", "threshold"), Threshold),
    (("waivers", "*"), Waiver),
]


def _model_at(path: PathKey) -> type[BaseModel] | None:
    shape = tuple("*" if isinstance(p, int) else p for p in path)
    for pattern, model in _MODEL_AT:
        if pattern == shape:
            return model
    return None


def _pydantic_problems(
    exc: ValidationError, source: Source, name: str, prefix: PathKey, model_fields: Iterable[str] | None = None
) -> list[Problem]:
    problems = []
    for err in exc.errors():
        loc = prefix + tuple(err["loc"])
        kind = err["type"]
        if kind == "extra_forbidden":
            model = _model_at(loc[:-1])
            fields = list(model_fields) if model_fields is not None else (list(model.model_fields) if model else [])
            msg = f"unknown key {loc[-1]!r}{suggest(str(loc[-1]), fields)}"
        elif kind == "missing":
            msg = f"missing required key {loc[-1]!r}"
            loc = loc[:-1]
        elif kind == "literal_error":
            expected = err.get("ctx", {}).get("expected", "")
            choices = [c.strip(" '") for c in expected.replace(" or ", ",").split(",")]
            msg = f"{loc[-1]}: {err['input']!r} is not one of {expected}{suggest(str(err['input']), choices)}"
        elif kind in ("value_error", "assertion_error"):
            msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
            if loc and not isinstance(loc[-1], int) and _model_at(loc) is None:
                msg = f"{loc[-1]}: {msg}"
        else:
            label = ".".join(str(p) for p in err["loc"] if not isinstance(p, int)) or "value"
            got = err.get("input")
            shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"
            msg = f"{label}: {err['msg'][0].lower()}{err['msg'][1:]}{shown}"
            if kind == "string_type" and isinstance(got, (int, float)) and not isinstance(got, bool):
                msg += f"; quote it: '{got}'"
        problems.append(source.problem(loc, msg, name))
    return problems


# --- semantic problems (registry, release, waivers) ---------------------------


def _check_semantics(
    source: Source, name: str, release: Release | None, today: dt.date
) -> tuple[dict[str, BaseModel], list[Problem]]:
    data = source.data
    problems: list[Problem] = []
    params_by_rule: dict[str, BaseModel] = {}
    catalogue = registry.metrics()

    attacker = None
    with contextlib.suppress(ValidationError):  # reported by the structural pass
        attacker = Attacker.model_validate(data.get("attacker"))
    columns = release.columns if release is not None else None
    # NOTE: id and ignore columns are dropped from the frames at load; say so
    # rather than "not in the release".
    roles = release.roles if release is not None else {}

    if attacker is not None and columns is not None:
        for key in ("quasi_identifiers", "secrets"):
            for i, col in enumerate(getattr(attacker, key)):
                if col not in columns or roles.get(col) in ("id", "ignore"):
                    problems.append(source.problem(("attacker", key, i), _missing_column(col, columns, roles), name))

    rule_ids: list[str] = []
    raw_rules = data.get("rules") if isinstance(data.get("rules"), list) else []
    for i, raw in enumerate(raw_rules):
        try:
            rule = Rule.model_validate(raw)
        except ValidationError:
            continue  # reported by the structural pass
        rule_ids.append(rule.id)
        if not rule.enabled:
            continue
        at = ("rules", i)
        spec = catalogue.get(rule.metric)
        if spec is None:
            problems.append(
                source.problem(
                    at + ("metric",), f"unknown metric {rule.metric!r}{suggest(rule.metric, catalogue)}", name
                )
            )
            continue
        raw_params = dict(rule.params)
        # NOTE: the policy's confidence level is the default of every metric
        # that reports intervals; a rule may still set its own.
        if "confidence" in spec.params.model_fields and "confidence" not in raw_params:
            policy_confidence = data.get("confidence", 0.95)
            if isinstance(policy_confidence, float) and 0 < policy_confidence < 1:
                raw_params["confidence"] = policy_confidence
        try:
            params = spec.params.model_validate(raw_params)
        except ValidationError as exc:
            problems.extend(
                _pydantic_problems(exc, source, name, at + ("params",), model_fields=spec.params.model_fields)
            )
            continue
        params_by_rule[rule.id] = params
        if attacker is not None:
            granted = GRANTS[attacker.model]
            missing = sorted(spec.knowledge - granted, key=lambda k: k.value)
            if missing:
                words = "; ".join(KNOWLEDGE_WORDS[k] for k in missing)
                problems.append(
                    source.problem(
                        at + ("metric",),
                        f"metric {rule.metric!r} assumes the attacker knows {words}, "
                        f"which the {attacker.model!r} attacker model does not grant",
                        name,
                    )
                )
        if rule.threshold.direction != spec.fail_direction:
            problems.append(
                source.problem(
                    at + ("threshold", f"fail_{rule.threshold.direction}"),
                    _direction_message(rule.metric, spec.fail_direction),
                    name,
                )
            )
        lo, hi = spec.value_range
        for level, value in rule.threshold.levels():
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                problems.append(
                    source.problem(
                        at + ("threshold", level),
                        f"{level} = {value} is outside the range of {rule.metric} [{lo}, {hi}]",
                        name,
                    )
                )
        if release is not None and "holdout" in spec.inputs and release.holdout is None:
            problems.append(
                source.problem(
                    at + ("metric",),
                    f"rule {rule.id!r}: metric {spec.name!r} needs a holdout set and the release has none",
                    name,
                )
            )
        if columns is not None and release is not None:
            missing = False
            for field_name in spec.column_params:
                value = getattr(params, field_name)
                names = value if isinstance(value, (list, tuple)) else [value]
                # A param may hold lists of columns (linkability's two auxiliary sets).
                names = [c for item in names for c in (item if isinstance(item, (list, tuple)) else [item])]
                for col in names:
                    if col is not None and (col not in columns or roles.get(col) in ("id", "ignore")):
                        missing = True
                        problems.append(
                            source.problem(at + ("params", field_name), _missing_column(col, columns, roles), name)
                        )
            # NOTE: a metric's own check runs only on params whose columns
            # exist, so one mistake gives one message.
            if spec.check is not None and attacker is not None and not missing:
                view = AttackerView(attacker.model, tuple(attacker.quasi_identifiers), tuple(attacker.secrets))
                for param_path, message in spec.check(params, release, view):
                    problems.append(source.problem(at + ("params", *param_path), message, name))

    raw_waivers = data.get("waivers") if isinstance(data.get("waivers"), list) else []
    waived: set[str] = set()
    for i, raw in enumerate(raw_waivers):
        try:
            waiver = Waiver.model_validate(raw)
        except ValidationError:
            continue
        at = ("waivers", i)
        if waiver.rule not in rule_ids:
            problems.append(
                source.problem(
                    at + ("rule",), f"waiver names unknown rule {waiver.rule!r}{suggest(waiver.rule, rule_ids)}", name
                )
            )
        if waiver.rule in waived:
            problems.append(source.problem(at + ("rule",), f"rule {waiver.rule!r} has more than one waiver", name))
        waived.add(waiver.rule)
        if waiver.expires < today:
            problems.append(
                source.problem(
                    at + ("expires",),
                    f"waiver for rule {waiver.rule!r} expired on {waiver.expires.isoformat()}: renew it or remove it",
                    name,
                )
            )
    return params_by_rule, problems


def _missing_column(col: str, columns: list[str], roles: dict[str, str]) -> str:
    role = roles.get(col)
    if role in ("id", "ignore"):
        return f"column {col!r} is declared type {role}: {role} columns enter no attack, query or distance; choose an analysed column"
    return f"column {col!r} is not in the release{suggest(col, columns)}"


def _direction_message(metric: str, fail_direction: str) -> str:
    if fail_direction == "below":
        return f"higher is safer for {metric}: a rule fails when the value is too low; use fail_below (and warn_below)"
    return f"higher is riskier for {metric}: a rule fails when the value is too high; use fail_above (and warn_above)"


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        if str(p) not in seen:
            seen.add(str(p))
            out.append(p)
    return sorted(out, key=lambda p: (p.file, p.line or 0, p.col or 0))
