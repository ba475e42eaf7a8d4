"""``verify``: every field of a report checked, its files re-hashed, its check re-run and compared."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.interfaces.verify.command_files import rehash_command_files
from policycheck.interfaces.verify.differences import Difference, compare_reports
from policycheck.interfaces.verify.files import OUTSIDE, default_root, edited_after_the_run, read_report, rehash
from policycheck.interfaces.verify.rerun import rerun
from policycheck.io.files import reads_confined_to
from policycheck.release.load import sha256_file

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


#: Why no rule is re-run when ``--manifest`` names a manifest other than the report's.
NOT_THE_MANIFEST = (
    "the manifest given with --manifest is not the one the report was made from (its sha256 "
    "differs), so nothing it declares is run; give the report's manifest"
)


@dataclass
class Verification:
    """What ``verify`` found: the files it re-hashed and every difference."""

    report: dict[str, Any]
    #: (path, sha256, inside the root folder) of every file confirmed unchanged.
    files: list[tuple[str, str, bool]] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    rerun: dict[str, Any] | None = None
    #: Why the check could not be re-run (a changed file no longer loads, say).
    problems: list[Problem] = field(default_factory=list)
    #: What the auditor should know to read the differences (not differences themselves).
    notes: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences and not self.problems


def verify_report(
    path: Path,
    root: Path | None = None,
    *,
    executor: str = "local",
    workers: int | None = None,
    progress: bool = False,
    manifest: Path | None = None,
    show_external: bool = False,
    run_synthesizer: bool = False,
) -> Verification:
    """Check every field of the report at ``path``, re-hash its files and re-run its check.

    ``root``: the folder the report's relative paths start from (default: the
    folder holding the report). No file outside it is read unless ``show_external``.
    A synthesizer command runs only as ``manifest`` declares it, with ``run_synthesizer``,
    and when the files it names are recorded in the report and unchanged.
    """
    report = read_report(path)
    root_given = root is not None
    root = Path(root) if root is not None else default_root(path)
    result = Verification(report)
    result.differences += edited_after_the_run(path, report)
    foreign_manifest = False
    if manifest is not None:
        # The auditor named this manifest: it is read wherever it is (the files it names are not).
        manifest_sha = sha256_file(Path(manifest), "release manifest")
        if report["release"]["manifest_sha256"] != manifest_sha:
            foreign_manifest = True
            result.differences.append(
                Difference(
                    "file",
                    display_path(manifest),
                    "sha256",
                    report["release"]["manifest_sha256"],
                    manifest_sha,
                    at="release.manifest_sha256",
                )
            )
    # The manifest the auditor names is read wherever it is; the files it names are not.
    confined = (
        reads_confined_to(root, OUTSIDE, also=[manifest] if manifest is not None else [])
        if not show_external
        else _unconfined()
    )
    with confined:
        confirmed, changed, missing = rehash(report, root, show_external, root_given)
        # Before anything runs: the script a command names is a file the manifest's hash does not cover.
        command_confirmed, command_changed, command_missing = rehash_command_files(report, root, show_external)
        result.files = confirmed + command_confirmed
        result.differences += changed + command_changed
        changed = changed + command_changed
        missing = missing + command_missing
        if missing:
            result.problems = missing
            return result
        if foreign_manifest:
            # Not the manifest the report was made from: nothing it declares is run (its commands above all).
            result.differences += [Difference("not-rerun", rule["id"], NOT_THE_MANIFEST) for rule in report["rules"]]
            return result
        try:
            new, skipped = rerun(
                report,
                root,
                executor=executor,
                workers=workers,
                progress=progress,
                command=["policycheck", "verify", display_path(path)],
                manifest=manifest,
                run_synthesizer=run_synthesizer,
                changed_command_files=[d.subject for d in command_changed],
            )
        except InvalidInput as exc:
            # NOTE: keep the differences found so far: they usually say why.
            result.problems = exc.problems
            return result
    result.rerun = new
    result.differences += [Difference("not-rerun", rule_id, why) for rule_id, why in skipped.items()]
    # A file that changed shows once, as a file, not again as each field holding its hash.
    seen = {(d.old, d.new) for d in changed}
    rerun_differences = [
        d
        for d in compare_reports(report, new, skipped)
        if not (d.kind == "field" and isinstance(d.old, str) and isinstance(d.new, str) and (d.old, d.new) in seen)
    ]
    result.differences += rerun_differences
    if rerun_differences:
        result.notes += other_code(report)
    return result


def other_code(report: dict[str, Any]) -> list[str]:
    """Why a re-run may differ without the release changing: the report was made by other policycheck code."""
    from policycheck.core.version import source_sha256

    made_by, this = report["provenance"].get("tool_source_sha256"), source_sha256()
    if made_by == this:
        return []
    if made_by is None:
        return [
            "the report records no digest of the policycheck code that made it (written before one was "
            "recorded): a difference the re-run finds may come from changes to policycheck since"
        ]
    return [
        f"the report was made by other policycheck code (source sha256 {made_by}) than this one ({this}): "
        "a difference the re-run finds may come from changes to policycheck, not to the release"
    ]


def _unconfined() -> AbstractContextManager[None]:
    import contextlib

    return contextlib.nullcontext()
