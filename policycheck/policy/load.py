"""Load a policy file: parse, resolve ``extends``, validate, collect problems.

Validation is lazy: every problem in the file (and in the files it extends)
is collected and reported in one run as ``file:line:col: message``, with a
"did you mean" suggestion for misspelt keys, metrics, params and columns.
The steps: :mod:`.source` reads the files and merges ``extends``;
:mod:`.structure` words the models' errors; :mod:`.semantics` runs the
validators of :mod:`.validators`; this module hashes the files the rules
name and hands over a :class:`LoadedPolicy`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from pydantic import BaseModel, ValidationError

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.io.files import sha256_file, stat_input
from policycheck.metrics.base import AttackerView
from policycheck.policy.model import Policy, Rule
from policycheck.policy.semantics import check_semantics
from policycheck.policy.source import Origin, Source, load_source
from policycheck.policy.structure import pydantic_problems
from policycheck.release.model import Release

__all__ = ["LoadedPolicy", "Source", "load_policy", "validate_for_release"]


@dataclass(frozen=True)
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
    source = load_source(path)
    problems: list[Problem] = []
    name = display_path(path)
    policy: Policy | None = None
    try:
        policy = Policy.model_validate(source.data)
    except ValidationError as exc:
        problems.extend(pydantic_problems(exc, source, name, ()))
    params, semantic = check_semantics(source, name, release, today or dt.date.today())
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
    params, problems = check_semantics(loaded.source, name, release, today or dt.date.today())
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
    from policycheck.methods.dp.ledger import Accounting, LedgerError, check_ledger, load_ledger

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
                        # A ledger is a param of the budget rule only, whose params say how to account.
                        for param_path, message in check_ledger(cast(Accounting, params), ledger, file, release)
                    )
            files.append((file, sha256_file(file)))
    return list(dict.fromkeys(files)), problems


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        if str(p) not in seen:
            seen.add(str(p))
            out.append(p)
    return sorted(out, key=lambda p: (p.file, p.line or 0, p.col or 0))
