"""The ``check`` use case: a loaded policy + a release -> plan -> run -> report.

:func:`check` is the one code path: the Python API's
:func:`policycheck.interfaces.api.check`, the CLI's ``check`` and ``demo``
(through :func:`check_release`) all call it with parsed objects, so they
produce the same reports the same way and read each policy once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from policycheck.policy.load import LoadedPolicy
from policycheck.release.model import Release

if TYPE_CHECKING:
    from policycheck.engine.compiler import Plan

#: The seed of a run whose policy and options name none.
DEFAULT_SEED = 0


@dataclass(frozen=True)
class CheckOptions:
    """How to run a check; none of it changes a number (the seed aside, which the report records)."""

    #: Seed of every random choice; None: the policy's, else :data:`DEFAULT_SEED`.
    seed: int | None = None
    #: Whether a warning release exits 1 (recorded in the report's exit code).
    fail_on_warn: bool = False
    #: Where heavy work runs: local processes, serial, or a Dask cluster.
    executor: str = "local"
    #: Workers (None: the cores available).
    workers: int | None = None
    #: With the Dask executor: the scheduler address, or None/"local" for local processes.
    scheduler: str | None = None
    #: Progress on stderr: True or "auto" (live on a terminal, plain lines elsewhere), "plain", "bar"
    #: (live anywhere), or False or "none" (nothing).
    progress: bool | Literal["auto", "plain", "bar", "none"] = False
    #: The command line the report records as what ran.
    command: tuple[str, ...] = field(default_factory=tuple)
    #: Whether a rule may run the synthesizer command the release declares (``--run-synthesizer``).
    run_synthesizer: bool = False
    #: The folder the reports are written to, recorded so the report can say how to verify it;
    #: None when they are not written by the check (``-o -``, the Python API).
    output: Path | None = None


def check(loaded: LoadedPolicy, release: Release, options: CheckOptions = CheckOptions()) -> dict[str, Any]:
    """Compile ``loaded`` against ``release``, run the plan and return report.json's content.

    ``loaded`` must have been validated against ``release``
    (:func:`policycheck.policy.load.load_policy` given the release, or
    :func:`policycheck.policy.load.validate_for_release`). Writes nothing:
    :func:`policycheck.report.render.write_reports` does.
    """
    from policycheck.core.errors import display_path
    from policycheck.engine.commands import hash_command_files
    from policycheck.engine.compiler import compile_plan
    from policycheck.engine.progress import Progress
    from policycheck.engine.runner import run_plan
    from policycheck.execution.factory import make_executor
    from policycheck.io.scratch import remove_stale_scratch
    from policycheck.report.build import build_report

    remove_stale_scratch()  # a killed check's copy of its training records goes with the next check
    plan = compile_plan(loaded, release, resolution=False, estimates=False)  # a check measures; plan -r estimates
    if not options.run_synthesizer:
        refuse_unasked_commands(plan, release)
    synthesizer_files = hash_command_files(plan, release)  # before it runs: what ran is what was hashed
    said = check_findings(loaded, plan, release)
    seed = run_seed(loaded, options.seed)
    progress = Progress(mode=progress_mode(options.progress))
    with make_executor(options.executor, options.workers, options.scheduler) as pool:
        run = run_plan(plan, release, seed, pool, progress)
        name = f"{options.executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    if said:
        release = dataclasses.replace(release, findings=[*release.findings, *said])
    return build_report(
        plan,
        release,
        run,
        executor=name,
        command=list(options.command),
        fail_on_warn=options.fail_on_warn,
        synthesizer_files=synthesizer_files,
        output_folder=display_path(options.output) if options.output is not None else None,
    )


def check_findings(loaded: LoadedPolicy, plan: Plan, release: Release) -> list[str]:
    """What a check says beside the release's findings, wherever its report is read: each level nobody
    chose (a starter policy's placeholders) and, when it runs a synthesizer command, where that
    command's scripts import by a name computed when they run.

    Taken before the synthesizer runs; verify's re-run takes them the same way, so a report that
    says them verifies.
    """
    from policycheck.engine.commands import run_time_import_finding
    from policycheck.interfaces.starter import placeholder_findings

    unhashed = run_time_import_finding(plan, release)  # None where the plan runs no command
    return [*placeholder_findings(loaded), *([unhashed] if unhashed else [])]


def refuse_unasked_commands(plan: Plan, release: Release) -> None:
    """Raise InvalidInput (exit 2, before any work) naming each rule that would run a command the release declares.

    A manifest is often someone else's file (a vendor's release): the
    program it names runs only when the user asks on the command line.
    """
    from policycheck.core.errors import InvalidInput, Problem, display_path
    from policycheck.engine.commands import commands_to_run

    uses = commands_to_run(plan, release)
    if uses:
        source = display_path(release.manifest_path) if release.manifest_path else "release"
        raise InvalidInput(
            [
                Problem(
                    source,
                    f"rule {use.rule_id!r} (policy {plan.loaded.policy.metadata.id!r}) would run the command "
                    f"synthetic set {use.set_name!r} declares, {use.command!r}; a check runs it only when asked: "
                    "add --run-synthesizer (Python: run_synthesizer=True), or name a built-in synthesizer in the rule",
                )
                for use in uses
            ]
        )


def progress_mode(progress: bool | str) -> str:
    """:attr:`CheckOptions.progress` as one of :data:`policycheck.engine.progress.MODES`."""
    if isinstance(progress, bool):
        return "auto" if progress else "none"
    return progress


def run_seed(loaded: LoadedPolicy, seed: int | None = None) -> int:
    """The seed a check of ``loaded`` runs with: the one given, else the policy's, else :data:`DEFAULT_SEED`."""
    if seed is not None:
        return seed
    return loaded.policy.seed if loaded.policy.seed is not None else DEFAULT_SEED


def check_release(
    policy_path: Path,
    release: Release,
    out_dir: Path,
    options: CheckOptions = CheckOptions(),
    formats: tuple[str, ...] = ("json", "html", "md"),
) -> dict[str, Any]:
    """Load the policy at ``policy_path`` against ``release``, :func:`check` it, write and return the report."""
    from policycheck.io.outputs import check_output_folder
    from policycheck.policy.load import load_policy
    from policycheck.report.render import write_reports

    check_output_folder(out_dir)  # before any work: a refused folder must not cost a run
    report = check(load_policy(policy_path, release), release, dataclasses.replace(options, output=Path(out_dir)))
    write_reports(report, out_dir, formats)
    return report
