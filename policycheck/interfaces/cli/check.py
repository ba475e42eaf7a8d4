"""``policycheck check``: check a release against one or more policies and write their reports."""

from __future__ import annotations

import dataclasses
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.interfaces.cli.common import echo, guard, output_options, progress_choice
from policycheck.interfaces.cli.release_options import ReleaseArgs, release_options

if TYPE_CHECKING:
    from collections.abc import Callable

    from policycheck.policy.load import LoadedPolicy
    from policycheck.release.model import Release

FORMATS = ("json", "html", "md", "junit", "sarif", "pdf")


@click.command()
@click.argument("policies", nargs=-1, type=click.Path(path_type=Path))
@release_options
@click.option(
    "-o",
    "--output",
    "out_dir",
    help="Folder for the reports, one sub-folder per policy when there are "
    "several; '-' prints one format on stdout.  [default: reports]",
)
@click.option(
    "--format",
    "formats",
    help="Comma-separated formats to write: "
    + ", ".join(FORMATS)
    + " (json is always written to a folder).  [default: json,html,md]",
)
@click.option("--seed", type=click.IntRange(min=0), help="Seed of every random choice (overrides the policy's).")
@click.option("--fail-on-warn/--no-fail-on-warn", default=None, help="Exit 1 when a rule warns.")
@click.option(
    "--executor",
    type=click.Choice(["local", "serial", "dask"]),
    default="local",
    show_default=True,
    help="Where heavy work runs: local processes, serially in this process, or a Dask cluster.",
)
@click.option(
    "--scheduler",
    default="local",
    show_default=True,
    help="With --executor dask: the scheduler address (tcp://host:8786), or local for a cluster of local processes.",
)
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: the cores available).")
@output_options
@click.option(
    "--explain",
    is_flag=True,
    help="After the summary, show for every verdict the attacker knowledge and inputs behind it.",
)
@click.option(
    "--export-reverse-mapped",
    "export_dir",
    type=click.Path(path_type=Path),
    help="Also write each synthetic set reverse-mapped onto the original's values (paper 000: Ruiz, "
    "Muralidhar and Domingo-Ferrer 2018, sec. 3.1) into this folder: the marginals are kept exactly, at no "
    "added risk.",
)
@click.option(
    "--run-synthesizer",
    is_flag=True,
    help="Let the attack games run the synthesizer command the release manifest declares (`command:`), once "
    "per round. Without it a rule that would run one stops the check before any work.",
)
@guard
def check(
    policies: tuple[Path, ...],
    release: ReleaseArgs,
    out_dir: str | None,
    formats: str | None,
    seed: int | None,
    fail_on_warn: bool | None,
    executor: str,
    scheduler: str,
    workers: int | None,
    quiet: int,
    progress: str | None,
    explain: bool,
    export_dir: Path | None,
    run_synthesizer: bool,
) -> None:
    """Check a release against POLICIES (paths or globs) and write report.json, report.html and report.md.

    With several policies each gets its own report folder under --output, and
    the exit code is the worst of them. Unset options come from
    [tool.policycheck] in pyproject.toml (see `policycheck config`).
    """
    from policycheck.interfaces.check import CheckOptions
    from policycheck.interfaces.check import check as run_check
    from policycheck.interfaces.cli.summary import print_summary
    from policycheck.io.config import expand_policies, load_settings, report_folders
    from policycheck.report.render import render_format, write_reports

    settings = load_settings(
        {
            "policies": [str(p) for p in policies],
            "output": out_dir,
            "formats": formats,
            "fail-on-warn": fail_on_warn,
            "seed": seed,
            "workers": workers,
        }
    )
    if not settings["policies"]:
        raise click.UsageError("no policy: give POLICIES, or `policies` in [tool.policycheck] of pyproject.toml")
    paths = expand_policies(settings["policies"])
    if not release.given and settings["release"]:
        release = dataclasses.replace(release, manifest=Path(settings["release"]))
    to_stdout = settings["output"] == "-"
    asked = "json" if formats is None else formats  # `--format ""` is refused, not taken for json
    chosen = output_formats(asked, True) if to_stdout else output_formats(settings["formats"])
    if to_stdout and len(paths) > 1:
        raise click.UsageError("-o - prints one report: give one policy, or a folder for several")
    # the summary prints the release's findings with the verdicts
    release.check_usage()
    loaded, data = policies_and_release(paths, release, reading_threads(executor, settings["workers"]))
    loaded = against_release(loaded, data)
    folders = report_folders(Path(settings["output"]), paths)
    exports = report_folders(export_dir, paths) if export_dir else []
    if not to_stdout:
        refuse_unsafe_outputs(folders, exports, data, loaded)
    if not run_synthesizer:
        refuse_commands(loaded, data)
    options = CheckOptions(
        seed=settings["seed"],
        fail_on_warn=settings["fail-on-warn"],
        executor=executor,
        workers=settings["workers"],
        scheduler=scheduler,
        progress=progress_choice(quiet, progress),  # type: ignore[arg-type]
        command=("policycheck", *sys.argv[1:]),
        run_synthesizer=run_synthesizer,
    )
    codes = []
    for i, policy in enumerate(loaded):
        report = run_check(policy, data, dataclasses.replace(options, output=None if to_stdout else folders[i]))
        if to_stdout:
            click.echo(render_format(chosen[0], report), nl=False)
        else:
            write_reports(report, folders[i], chosen)
        if quiet < 2:
            print_summary(report, None if to_stdout else folders[i], err=to_stdout)
        if export_dir:
            # NOTE: the export uses the policy's seed, so several policies export side by side.
            export_reverse_mapped(data, exports[i], report["provenance"]["seed"], say=quiet < 2)
        if explain and quiet < 2:
            from policycheck.report.render import render_explain

            click.echo("", err=to_stdout)
            click.echo(render_explain(report), nl=False, err=to_stdout)
        codes.append(report["exit_code"])
    if len(paths) > 1 and quiet < 2:
        click.echo(f"{len(paths)} policies checked; exit code {max(codes)} (the worst)", err=to_stdout)
    sys.exit(max(codes))


def policies_and_release(paths: list[Path], release: ReleaseArgs, threads: int) -> tuple[list[LoadedPolicy], Release]:
    """Every policy, then the release read with ``threads`` threads.

    A typo in a policy is exit 2 in a fraction of a second, without waiting for the data. With several
    threads the files are read while the policies load (their imports and validation hold this thread:
    about 0.2 s of a 300,000-row check on two workers, docs/performance.md); a policy's problem is still
    raised first, and the reading is dropped with the process.
    """
    from policycheck.core.threads import Ahead

    def read() -> Release:
        bound_arrow_threads(threads)
        data = release.load(show_findings=False, threads=threads)
        assert data is not None  # required
        return data

    reading = Ahead(read, threads)
    loaded = load_all(paths)
    return loaded, reading.result()


def reading_threads(executor: str, workers: int | None) -> int:
    """Threads that read the release's files: one per worker of the check, at most this machine's cores
    (a Dask cluster's workers are not), one serially."""
    from policycheck.execution.executor import available_cores, local_threads

    return 1 if executor == "serial" else local_threads(workers or available_cores())


def bound_arrow_threads(threads: int) -> None:
    """Give Arrow's thread pool (Parquet reads, pandas' text columns) as many threads as the check's workers:
    ``--workers 1`` runs on one core, as it says."""
    import pyarrow

    pyarrow.set_cpu_count(threads)


def load_all(paths: list[Path]) -> list[LoadedPolicy]:
    """Every policy, each read once and validated on its own: every problem of every policy, raised together."""
    from policycheck.policy.load import load_policy

    return _all_or_problems([partial(load_policy, path) for path in paths])


def against_release(loaded: list[LoadedPolicy], release: Release) -> list[LoadedPolicy]:
    """Every policy validated against ``release`` (the columns it names, a holdout where a rule needs one, ...)."""
    from policycheck.policy.load import validate_for_release

    return _all_or_problems([partial(validate_for_release, policy, release) for policy in loaded])


def _all_or_problems(steps: list[Callable[[], LoadedPolicy]]) -> list[LoadedPolicy]:
    """Each step's policy, or one :class:`InvalidInput` with the problems of every step that failed."""
    problems: list[Problem] = []
    loaded = []
    for step in steps:
        try:
            loaded.append(step())
        except InvalidInput as exc:
            problems += exc.problems
    if problems:
        raise InvalidInput(problems)
    return loaded


def refuse_commands(loaded: list[LoadedPolicy], release: Release) -> None:
    """Refuse, before any policy runs, every rule that would run a command the release declares unasked."""
    from policycheck.engine.commands import declared_commands
    from policycheck.engine.compiler import compile_plan
    from policycheck.interfaces.check import refuse_unasked_commands

    if not declared_commands(release):  # nothing to run: no plan to compile ahead of the check's own
        return
    problems: list[Problem] = []
    for policy in loaded:
        try:
            refuse_unasked_commands(compile_plan(policy, release, resolution=False, estimates=False), release)
        except InvalidInput as exc:
            problems += exc.problems
    if problems:
        raise InvalidInput(problems)


def refuse_unsafe_outputs(
    folders: list[Path], exports: list[Path], release: Release, loaded: list[LoadedPolicy]
) -> None:
    """Refuse, before any work, an output folder that cannot be written or an output that would overwrite an input."""
    from policycheck.io.outputs import REPORT_FILES, check_output_folder, refuse_overwriting

    inputs = release_files(release)
    for policy in loaded:
        inputs += [p for p, _ in [*policy.source.files, *policy.referenced_files]]
    for folder in folders:
        check_output_folder(folder)  # before any work: a refused folder must not cost a run
    refuse_overwriting([folder / name for folder in folders for name in REPORT_FILES], inputs)
    if exports:
        from policycheck.methods.linkage.export import export_name

        for folder in exports:
            check_output_folder(folder)
        refuse_overwriting(
            [folder / export_name(m, d) for folder in exports for m, d in enumerate(release.synthetic, start=1)],
            inputs,
            "an input of this check would be overwritten by its reverse-mapped export: name "
            "another folder with --export-reverse-mapped",
        )


def release_files(release: Release) -> list[Path | None]:
    """Every file a release was read from: its manifest, SDV metadata and data files."""
    return [release.manifest_path, release.metadata_path, *(d.path for d in release.datasets())]


def export_reverse_mapped(release: Release, out_dir: Path, seed: int, say: bool = True) -> None:
    """Write each synthetic set reverse-mapped (paper 000, sec. 3.1), pre-sampled as the linkage metrics did."""
    from policycheck.core.seeds import generator
    from policycheck.methods.linkage.export import export_reverse_mapped as export

    # The pre-sampling streams the linkage metrics drew from (their key: "linkage", "presample", m), so the
    # export is exactly what they linked.
    rngs = [generator(seed, "linkage", "presample", m) for m in range(len(release.synthetic))]
    for path in export(release, out_dir, rngs):
        if say:
            echo(f"wrote {display_path(path)}")


def output_formats(text: str | list[str], to_stdout: bool = False) -> tuple[str, ...]:
    """The formats asked for, checked: json first (a report folder always holds it), or the one format for stdout."""
    chosen = [f.strip() for f in (text.split(",") if isinstance(text, str) else text)]
    if "" in chosen:  # `--format ""` or `json,`: a format left out, not one to drop in silence
        raise click.UsageError(
            f"--format {text!r}: an empty format; choose from {', '.join(FORMATS)} (comma-separated)"
        )
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown:
        raise click.UsageError(
            f"--format: unknown format{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"choose from {', '.join(FORMATS)}"
        )
    if "pdf" in chosen:
        from policycheck.report.pdf import find_chromium

        if to_stdout:
            raise click.UsageError("-o - prints text: --format pdf needs an output folder")
        if find_chromium() is None:
            raise click.UsageError(
                "--format pdf needs headless Chromium (chromium or chromium-browser on PATH, "
                "e.g. `apt-get install chromium`); or write html and print it"
            )
    if to_stdout:
        # stdout holds one document: the format asked for, nothing else.
        if len(chosen) != 1:
            raise click.UsageError("-o - prints one format: give --format json, junit, sarif, md or html")
        return (chosen[0],)
    return tuple(dict.fromkeys(["json", *chosen]))
