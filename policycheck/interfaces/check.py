"""The ``check`` use case: policy + release -> plan -> run -> report.

:func:`run_check` is the one code path: the Python API's
:func:`policycheck.interfaces.api.check`, the CLI's ``check`` and ``demo`` all go
through it, so they produce the same reports the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from policycheck.core.escape import one_line
from policycheck.policy.load import LoadedPolicy
from policycheck.release.model import Release

DEFAULT_SEED = 0


def run_check(
    loaded: LoadedPolicy,
    release: Release,
    *,
    seed: int | None = None,
    fail_on_warn: bool = False,
    executor: str = "local",
    workers: int | None = None,
    progress: bool | str = True,
    command: list[str] | None = None,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """Compile ``loaded`` against ``release``, run the plan and return report.json's content.

    ``progress``: True (a live line per step on a terminal, plain lines
    elsewhere), ``"plain"`` (plain lines), False (nothing). Writes nothing:
    :func:`policycheck.report.render.write_reports` does.
    """
    from policycheck.engine.compiler import compile_plan
    from policycheck.engine.progress import Progress
    from policycheck.engine.runner import run_plan
    from policycheck.execution.factory import make_executor
    from policycheck.report.build import build_report

    plan = compile_plan(loaded, release, resolution=False)  # a check measures; plan -r estimates
    if seed is None:
        seed = loaded.policy.seed if loaded.policy.seed is not None else DEFAULT_SEED
    with make_executor(executor, workers, scheduler) as pool:
        run = run_plan(plan, release, seed, pool, Progress(enabled=bool(progress), plain=progress == "plain"))
        name = f"{executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    return build_report(plan, release, run, executor=name, command=command or [], fail_on_warn=fail_on_warn)


def check_release(
    policy_path: Path,
    release: Release,
    out_dir: Path,
    *,
    seed: int | None = None,
    formats: tuple[str, ...] = ("json", "html", "md"),
    fail_on_warn: bool = False,
    executor: str = "local",
    workers: int | None = None,
    progress: bool = True,
    command: list[str] | None = None,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """Check ``release`` against the policy at ``policy_path``; write and return the report."""
    from policycheck.io.files import check_output_folder
    from policycheck.policy.load import load_policy
    from policycheck.report.render import write_reports

    check_output_folder(out_dir)  # before any work: a refused folder must not cost a run
    loaded = load_policy(policy_path, release)
    report = run_check(
        loaded,
        release,
        seed=seed,
        fail_on_warn=fail_on_warn,
        executor=executor,
        workers=workers,
        progress=progress,
        command=command or [],
        scheduler=scheduler,
    )
    write_reports(report, out_dir, formats)
    return report


def print_summary(report: dict[str, Any], out_dir: Path | str | None = None, err: bool = False) -> None:
    """One line per rule and the overall verdict (on stdout, or stderr when stdout holds a report)."""
    from policycheck.report.formatting import VERDICT_WORDS, measured_text
    from policycheck.report.summary import summarize

    def echo(text: str) -> None:
        # NOTE: ids and errors come from files: one_line escapes control characters.
        click.echo(text, err=err)

    verdict = report["verdict"]
    words = click.style(VERDICT_WORDS.get(verdict, verdict.upper()), fg=COLOURS.get(verdict), bold=True)
    echo(f"{one_line(report['policy']['id'])} on {one_line(report['release']['id'])}: {words}")
    for finding in report["release"].get("findings", []):
        echo(f"  finding: {one_line(finding)}")
    width = max([6, *(len(rule["verdict"]) for rule in report["rules"])])
    for rule in report["rules"]:
        extra = f" ({rule['error']})" if rule["error"] else ""
        label = click.style(f"{rule['verdict']:<{width}}", fg=COLOURS.get(rule["verdict"]))
        echo(f"  {label} {one_line(rule['id'])} ({rule['metric']}): {one_line(measured_text(rule) + extra)}")
        if rule.get("verdict_reason") and rule["verdict"] != "pass":
            echo(f"  {'':<{width}}   {one_line(rule['verdict_reason'])}")
    echo(f"  {summarize(report).counts_text()}")
    if out_dir is not None:
        echo(f"reports in {one_line(str(out_dir))}/")


#: Terminal colour of each verdict (shown only where colour is on: see cli.colour_choice).
COLOURS = {
    "pass": "green",
    "warn": "yellow",
    "fail": "red",
    "error": "magenta",
    "waived": "cyan",
    "inconclusive": "yellow",
}
