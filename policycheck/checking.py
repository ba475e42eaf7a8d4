"""The ``check`` use case: policy + release -> plan -> run -> reports.

Shared by the CLI's ``check`` and ``demo`` commands so both produce the
same reports the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from policycheck.compiler import compile_plan
from policycheck.executor import make_executor
from policycheck.policy.load import load_policy
from policycheck.progress import Progress
from policycheck.release.model import Release
from policycheck.report.build import build_report
from policycheck.report.render import VERDICT_WORDS, fmt, write_reports
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
) -> dict[str, Any]:
    """Check ``release`` against the policy at ``policy_path``; write and return the report."""
    loaded = load_policy(Path(policy_path), release)
    plan = compile_plan(loaded, release)
    if seed is None:
        seed = loaded.policy.seed if loaded.policy.seed is not None else DEFAULT_SEED
    with make_executor(executor, workers) as pool:
        run = run_plan(plan, release, seed, pool, Progress(enabled=progress))
        name = f"{executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    report = build_report(plan, release, run, executor=name, command=command or [], fail_on_warn=fail_on_warn)
    write_reports(report, out_dir, formats)
    return report


def print_summary(report: dict[str, Any], out_dir: Path | None = None) -> None:
    """One line per rule and the overall verdict, on stdout."""
    click.echo(f"{report['policy']['id']} on {report['release']['id']}: {VERDICT_WORDS[report['verdict']]}")
    for finding in report["release"].get("findings", []):
        click.echo(f"  finding: {finding}")
    for rule in report["rules"]:
        interval = rule["interval"]
        shown = f"{fmt(rule['value'])}" + (f" [{fmt(interval[0])}, {fmt(interval[1])}]" if interval else "")
        extra = f" ({rule['error']})" if rule["error"] else ""
        click.echo(f"  {rule['verdict']:<6} {rule['id']} ({rule['metric']}): {shown}{extra}")
    if out_dir is not None:
        click.echo(f"reports in {out_dir}/")
