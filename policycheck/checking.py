"""The ``check`` use case: policy + release -> plan -> run -> reports.

Shared by the CLI's ``check`` and ``demo`` commands so both produce the
same reports the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from policycheck.compiler import compile_plan
from policycheck.console import one_line
from policycheck.executor import make_executor
from policycheck.fileio import check_output_folder
from policycheck.policy.load import load_policy
from policycheck.progress import Progress
from policycheck.release.model import Release
from policycheck.report.build import build_report
from policycheck.report.render import VERDICT_WORDS, measured_text, write_reports
from policycheck.runner import run_plan

DEFAULT_SEED = 0


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
    check_output_folder(out_dir)  # before any work: a refused folder must not cost a run
    loaded = load_policy(Path(policy_path), release)
    plan = compile_plan(loaded, release)
    if seed is None:
        seed = loaded.policy.seed if loaded.policy.seed is not None else DEFAULT_SEED
    with make_executor(executor, workers, scheduler) as pool:
        run = run_plan(plan, release, seed, pool, Progress(enabled=progress))
        name = f"{executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    report = build_report(plan, release, run, executor=name, command=command or [], fail_on_warn=fail_on_warn)
    write_reports(report, out_dir, formats)
    return report


def print_summary(report: dict[str, Any], out_dir: Path | None = None) -> None:
    """One line per rule and the overall verdict, on stdout."""
    echo = lambda text: click.echo(one_line(text))  # noqa: E731 - ids and errors come from files
    echo(f"{report['policy']['id']} on {report['release']['id']}: {VERDICT_WORDS[report['verdict']]}")
    for finding in report["release"].get("findings", []):
        echo(f"  finding: {finding}")
    width = max([6, *(len(rule["verdict"]) for rule in report["rules"])])
    for rule in report["rules"]:
        extra = f" ({rule['error']})" if rule["error"] else ""
        echo(f"  {rule['verdict']:<{width}} {rule['id']} ({rule['metric']}): {measured_text(rule)}{extra}")
        if rule.get("verdict_reason") and rule["verdict"] != "pass":
            echo(f"  {'':<{width}}   {rule['verdict_reason']}")
    if out_dir is not None:
        echo(f"reports in {out_dir}/")
