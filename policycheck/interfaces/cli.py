"""The ``policycheck`` command line.

Exit codes: 0 pass, 1 a blocking rule fails, 2 invalid policy, release,
data or usage, 3 an evaluator could not run. Bad input prints one line per
problem, ``file:line:col: message``, never a traceback.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import sys
from pathlib import Path

import click

from policycheck.core.errors import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_INVALID,
    EXIT_PASS,
    InvalidInput,
    PolicycheckError,
    display_path,
)
from policycheck.core.escape import block, one_line
from policycheck.core.version import __version__

FORMATS = ("json", "html", "md", "junit", "sarif", "pdf")


def _echo(text: str = "", *, err: bool = False, nl: bool = True, lines: bool = False) -> None:
    """click.echo with control characters from the data escaped (``lines``: keep line breaks)."""
    click.echo(block(text) if lines else one_line(text), err=err, nl=nl)


def _guard(fn):
    """Turn our errors into lines + exit codes; never show a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except PolicycheckError as exc:
            for problem in exc.problems:
                _echo(f"error: {problem}" if problem.line is None else str(problem), err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            _echo("interrupted", err=True)
            sys.exit(130)
        except click.UsageError as exc:
            _echo(f"policycheck: {exc.format_message()}", err=True)  # one line, like every other error
            sys.exit(EXIT_INVALID)
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must still never exit 0
            _echo(f"internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_ERROR)

    return wrapper


def _release_options(fn):
    options = [
        click.option("--release", "-r", "manifest", type=click.Path(path_type=Path), help="Release manifest (YAML)."),
        click.option("--original", type=click.Path(path_type=Path), help="Original (training) data, CSV or Parquet."),
        click.option(
            "--synthetic", multiple=True, type=click.Path(path_type=Path), help="A synthetic set (repeatable)."
        ),
        click.option(
            "--holdout", type=click.Path(path_type=Path), help="Holdout data: real records the synthesizer never saw."
        ),
        click.option(
            "--column-type",
            "column_types",
            multiple=True,
            metavar="NAME=TYPE",
            help="A column's role: numeric, categorical, datetime (or datetime:FORMAT, strftime), "
            "id or ignore (repeatable; over --metadata and inference).",
        ),
        click.option(
            "--metadata",
            type=click.Path(path_type=Path),
            help="SDV metadata JSON giving column types (sdtypes: id, numerical, categorical, "
            "datetime, boolean; others are ignored).",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


COLUMN_ROLES = ("numeric", "categorical", "datetime", "id", "ignore")


def _load_release(
    manifest,
    original,
    synthetic,
    holdout,
    column_types,
    metadata=None,
    required: bool = True,
    show_findings: bool = True,
):
    if not (manifest or original or synthetic or holdout) and not required:
        return None  # nothing to read: validate and plan stay fast without pandas
    release = _read_release(manifest, original, synthetic, holdout, column_types, metadata, required)
    for finding in release.findings if release is not None and show_findings else ():
        click.echo(f"finding: {one_line(finding)}", err=True)
    return release


def _read_release(manifest, original, synthetic, holdout, column_types, metadata, required):
    from policycheck.release.load import build_release, load_manifest
    from policycheck.release.manifest import ColumnDecl
    from policycheck.release.model import SynthesizerInfo

    if manifest and (original or synthetic or holdout):
        raise click.UsageError("give either --release or --original/--synthetic/--holdout, not both")
    if manifest and (column_types or metadata):
        # verify re-runs a manifest's check from the manifest alone
        raise click.UsageError(
            "with --release, declare column types in the manifest (`columns:`, `metadata:`), "
            "not with --column-type or --metadata"
        )
    if manifest:
        return load_manifest(manifest)
    if not original and not synthetic:
        if required:
            raise click.UsageError("no release: give --release MANIFEST, or --original and --synthetic")
        return None
    if not original or not synthetic:
        raise click.UsageError("--original and at least one --synthetic are needed together")
    columns = {}
    for item in column_types:
        name, _, kind = item.partition("=")
        kind, _, fmt = kind.partition(":")
        if not name or kind not in COLUMN_ROLES or (fmt and kind != "datetime"):
            raise click.UsageError(
                f"--column-type {item!r}: expected NAME=TYPE with TYPE one of "
                f"{', '.join(COLUMN_ROLES)} (or datetime:FORMAT)"
            )
        columns[name] = ColumnDecl(type=kind, format=fmt or None)
    synth = [(Path(p), f"synthetic[{i}]", SynthesizerInfo()) for i, p in enumerate(synthetic)]
    return build_release(
        Path(original).stem,
        Path(original),
        synth,
        Path(holdout) if holdout else None,
        columns,
        metadata=Path(metadata) if metadata else None,
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="policycheck")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Privacy policy-as-code for synthetic data releases."""
    ctx.color = colour_choice()
    if ctx.invoked_subcommand not in NO_DATA_COMMANDS:
        gc.enable()  # off since main(): see there


#: Commands that compute nothing: short runs with the cyclic garbage collector off (main()).
NO_DATA_COMMANDS = ("validate", "plan", "metrics", "schema", "init", "config")


def colour_choice(environ: dict[str, str] | None = None) -> bool | None:
    """Colour on a terminal only; NO_COLOR (no-color.org) turns it off, FORCE_COLOR on.

    None lets click decide per stream: colour when it is a terminal.
    """
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return None


@cli.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@_release_options
@_guard
def validate(files, manifest, original, synthetic, holdout, column_types, metadata):
    """Check policy FILES (paths or globs); with a release, also that the columns they name exist.

    Without FILES, the `policies` of [tool.policycheck] in pyproject.toml.
    """
    from policycheck.io.config import expand_policies, load_settings
    from policycheck.policy.load import load_policy

    files = expand_policies(list(files) or load_settings({})["policies"])
    if not files:
        raise click.UsageError("no policy: give FILES, or `policies` in [tool.policycheck] of pyproject.toml")

    release = _load_release(manifest, original, synthetic, holdout, column_types, metadata, required=False)
    problems = []
    for path in files:
        try:
            loaded = load_policy(path, release)
        except InvalidInput as exc:
            problems.extend(exc.problems)
            continue
        _echo(f"{display_path(path)}: ok ({len(loaded.rules)} rules, attacker model {loaded.policy.attacker.model})")
        if release is not None:
            from policycheck.engine.resolution import unresolved_levels

            # NOTE: a level below what the sample can resolve is valid, so it is a note (exit 0), said
            # before anything is computed (issue 28).
            for _, where in unresolved_levels(loaded, release):
                _echo(str(where), err=True)
    for problem in problems:
        _echo(str(problem), err=True)
    if problems:
        _echo(f"{len(problems)} problem(s) found", err=True)
        sys.exit(EXIT_INVALID)


@cli.command()
@click.option("--report", "which", flag_value="report", help="Print the report.json schema instead.")
@click.option("--policy", "which", flag_value="policy", default=True, hidden=True)
@click.option("--write", "write_dir", type=click.Path(path_type=Path), help="Write both schemas into this folder.")
@_guard
def schema(which, write_dir):
    """Print the JSON Schema of the policy language (draft-07, for editors)."""
    from policycheck.io.files import atomic_write_text
    from policycheck.policy.schema import policy_schema
    from policycheck.report.schema import report_schema

    dump = lambda s: json.dumps(s, indent=2, ensure_ascii=False) + "\n"  # noqa: E731
    if write_dir:
        for name, s in (("policy.schema.json", policy_schema()), ("report.schema.json", report_schema())):
            atomic_write_text(Path(write_dir) / name, dump(s))
            _echo(f"wrote {display_path(Path(write_dir) / name)}")
        return
    _echo(dump(report_schema() if which == "report" else policy_schema()), nl=False, lines=True)


@cli.command()
@click.argument("policy", type=click.Path(path_type=Path))
@_release_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option(
    "--workers", type=click.IntRange(min=1), help="Workers the time estimates assume (default: the cores available)."
)
@_guard
def plan(policy, manifest, original, synthetic, holdout, column_types, metadata, as_json, workers):
    """Show what checking POLICY would compute, with which attacker knowledge, and (given a release) its estimated
    time and memory per step."""
    from policycheck.engine.compiler import compile_plan
    from policycheck.execution.executor import available_cores
    from policycheck.policy.load import load_policy

    release = _load_release(manifest, original, synthetic, holdout, column_types, metadata, required=False)
    compiled = compile_plan(load_policy(policy, release), release, workers or available_cores())
    _echo(json.dumps(compiled.to_dict(), indent=2) if as_json else compiled.describe(), lines=True)


@cli.command()
@click.argument("policies", nargs=-1, type=click.Path(path_type=Path))
@_release_options
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
@click.option("--quiet", "-q", is_flag=True, help="Plain progress lines instead of live bars.")
@click.option(
    "--explain",
    is_flag=True,
    help="After the summary, show for every verdict the attacker knowledge and inputs behind it.",
)
@click.option(
    "--export-reverse-mapped",
    "export_dir",
    type=click.Path(path_type=Path),
    help="Also write each synthetic set reverse-mapped onto the original's values (paper 000, "
    "sec. 3.1) into this folder: the marginals are kept exactly, at no added risk.",
)
@_guard
def check(
    policies,
    manifest,
    original,
    synthetic,
    holdout,
    column_types,
    metadata,
    out_dir,
    formats,
    seed,
    fail_on_warn,
    executor,
    scheduler,
    workers,
    quiet,
    explain,
    export_dir,
):
    """Check a release against POLICIES (paths or globs) and write report.json, report.html and report.md.

    With several policies each gets its own report folder under --output, and
    the exit code is the worst of them. Unset options come from
    [tool.policycheck] in pyproject.toml (see `policycheck config`).
    """
    from policycheck.interfaces.check import CheckOptions, print_summary
    from policycheck.interfaces.check import check as run_check
    from policycheck.io.config import expand_policies, load_settings, report_folders
    from policycheck.policy.load import load_policy
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
    if not (manifest or original or synthetic or holdout) and settings["release"]:
        manifest = Path(settings["release"])
    to_stdout = settings["output"] == "-"
    chosen = _formats(formats or "json", True) if to_stdout else _formats(settings["formats"])
    if to_stdout and len(paths) > 1:
        raise click.UsageError("-o - prints one report: give one policy, or a folder for several")
    # the summary prints the release's findings with the verdicts
    release = _load_release(manifest, original, synthetic, holdout, column_types, metadata, show_findings=False)
    # Every policy is validated before anything is computed: exit 2 comes first, whole.
    problems, inputs, loaded = [], _release_files(release), []
    for path in paths:
        try:
            loaded.append(load_policy(path, release))
        except InvalidInput as exc:
            problems += exc.problems
            continue
        inputs += [p for p, _ in [*loaded[-1].source.files, *loaded[-1].referenced_files]]
    if problems:
        raise InvalidInput(problems)
    folders = report_folders(Path(settings["output"]), paths)
    if not to_stdout:
        from policycheck.io.files import REPORT_FILES, check_output_folder, refuse_overwriting

        for folder in folders:
            check_output_folder(folder)  # before any work: a refused folder must not cost a run
        refuse_overwriting([folder / name for folder in folders for name in REPORT_FILES], inputs)
        if export_dir:
            from policycheck.methods.linkage.export import export_name

            for folder in report_folders(export_dir, paths):
                check_output_folder(folder)
            refuse_overwriting(
                [
                    folder / export_name(m, d)
                    for folder in report_folders(export_dir, paths)
                    for m, d in enumerate(release.synthetic, start=1)
                ],
                inputs,
                "an input of this check would be overwritten by its reverse-mapped export: name "
                "another folder with --export-reverse-mapped",
            )
    options = CheckOptions(
        seed=settings["seed"],
        fail_on_warn=settings["fail-on-warn"],
        executor=executor,
        workers=settings["workers"],
        scheduler=scheduler,
        progress="plain" if quiet else True,
        command=("policycheck", *sys.argv[1:]),
    )
    codes = []
    for i, (policy, folder) in enumerate(zip(loaded, folders, strict=True)):
        report = run_check(policy, release, options)
        if to_stdout:
            click.echo(render_format(chosen[0], report), nl=False)
        else:
            write_reports(report, folder, chosen)
        print_summary(report, None if to_stdout else folder, err=to_stdout)
        if export_dir:
            # NOTE: the export uses the policy's seed, so several policies export side by side.
            _export_reverse_mapped(release, report_folders(export_dir, paths)[i], report["provenance"]["seed"])
        if explain:
            from policycheck.report.render import render_explain

            click.echo("", err=to_stdout)
            click.echo(render_explain(report), nl=False, err=to_stdout)
        codes.append(report["exit_code"])
    if len(paths) > 1:
        worst = max(codes)
        click.echo(f"{len(paths)} policies checked; exit code {worst} (the worst)", err=to_stdout)
    sys.exit(max(codes))


@cli.command(name="config")
@click.option("--json", "as_json", is_flag=True, help="Print the settings as JSON.")
@_guard
def show_config(as_json):
    """Show the settings in force: [tool.policycheck] of the nearest pyproject.toml over the defaults."""
    from policycheck.io.config import load_settings, show

    settings = load_settings({})
    if as_json:
        click.echo(
            json.dumps(
                {
                    "pyproject": str(settings.pyproject) if settings.pyproject else None,
                    "settings": settings.values,
                    "sources": settings.sources,
                },
                indent=2,
            )
        )
    else:
        click.echo(show(settings), nl=False)


@cli.command()
@click.argument("report", type=click.Path(path_type=Path))
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder the report's relative paths start from: the folder the check ran in (default: the "
    "folder holding REPORT; never a folder the report names). No file outside it is read.",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "serial"]),
    default="local",
    show_default=True,
    help="Where heavy work runs: local processes, or serially in this process.",
)
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: the cores available).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option(
    "--manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help="A release manifest you trust: the only source of synthesizer commands verify will run "
    "(its hash must match the report's). Without it, rules that re-run the release's command are not re-run.",
)
@click.option(
    "--show-external",
    is_flag=True,
    help="Also read (hash, re-run with, print the hashes of) files outside the root folder.",
)
@_guard
def verify(report, root, executor, workers, quiet, manifest, show_external):
    """Confirm REPORT (report.json) matches its files: re-hash them and re-run the check.

    Exit 0 when every file hash, verdict and number is identical (numbers to a
    relative 1e-12), 1 when anything differs (each difference is listed), 2 when
    a file is missing or invalid.
    """
    from policycheck.interfaces.verify import verify_report

    result = verify_report(
        report,
        root,
        executor=executor,
        workers=workers,
        progress=not quiet,
        manifest=manifest,
        show_external=show_external,
    )
    for path, sha, _ in result.files:
        _echo(f"ok       {path}  sha256 {sha}")
    for difference in result.differences:
        _echo(f"DIFFERS  {difference}")
    if result.problems:
        for problem in result.problems:
            _echo(f"error: {problem}" if problem.line is None else str(problem), err=True)
        sys.exit(EXIT_INVALID)
    rules = len(result.report["rules"])
    if result.identical:
        _echo(
            f"verified: {len(result.files)} file(s) unchanged; {rules} rule(s) re-run with seed "
            f"{result.report['provenance']['seed']}: identical verdicts and numbers"
        )
        sys.exit(EXIT_PASS)
    _echo(f"NOT verified: {len(result.differences)} difference(s)")
    sys.exit(EXIT_FAIL)


@cli.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON (as --format json).")
@click.option(
    "--format",
    "diff_format",
    type=click.Choice(["text", "json", "html"]),
    default=None,
    help="text (default), json, or html: a page with both verdicts and values of every rule.",
)
@click.option(
    "-o",
    "--output",
    "diff_output",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the comparison to this file instead of stdout.",
)
@click.option(
    "--fail-on-worse", is_flag=True, help="Exit 1 when a rule's verdict got worse (a listing exits 0 otherwise)."
)
@_guard
def diff(old, new, as_json, diff_format, diff_output, fail_on_worse):
    """List the rules whose verdict or value changed from report OLD to report NEW.

    A listing: exit 0. With --fail-on-worse, exit 1 when a rule's verdict got
    worse (pass < waived < warn < inconclusive < fail < error; a new rule counts from pass).
    """
    from policycheck.interfaces.verify import diff_reports, read_report

    changes = diff_reports(read_report(old), read_report(new))
    if as_json and diff_format not in (None, "json"):
        raise click.UsageError("--json and --format text/html: choose one")
    chosen = "json" if as_json else diff_format or "text"
    if chosen == "html":
        from policycheck.report.across import render_diff_html

        text = render_diff_html(changes.old, changes.new, changes.to_dict())
    elif chosen == "json":
        text = json.dumps(changes.to_dict(), indent=2, ensure_ascii=False) + "\n"
    else:
        lines = [
            f"{changes.old['release']['id']} ({changes.old['verdict']}) -> "
            f"{changes.new['release']['id']} ({changes.new['verdict']})"
        ]
        lines += [f"  {difference}" for difference in changes.context + changes.files + changes.rules]
        if not changes.rules:
            lines.append("  no rule verdict or value changed")
        if changes.worse:
            lines.append(f"worse: {', '.join(changes.worse)}")
        text = "\n".join(lines) + "\n"
    if diff_output is not None:
        from policycheck.io.files import atomic_write_text, refuse_overwriting

        refuse_overwriting(
            [diff_output],
            [old, new],
            "an input of this diff would be overwritten by its output: name another output file with -o",
        )
        atomic_write_text(diff_output, text)
        _echo(f"comparison in {diff_output}", err=True)
    elif chosen == "text":
        for line in text.splitlines():
            _echo(line)  # one_line: ids and values come from files
    else:
        _echo(text, nl=False, lines=True)
    sys.exit(EXIT_FAIL if fail_on_worse and changes.worse else EXIT_PASS)


@cli.command()
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "-o",
    "--output",
    "index_output",
    type=click.Path(path_type=Path),
    default=None,
    help="Where to write the page (default: FOLDER/index.html).",
)
@_guard
def index(folder, index_output):
    """Write FOLDER/index.html: every report.json under FOLDER with its release, policy, verdict and date."""
    from policycheck.core.errors import PolicycheckError
    from policycheck.interfaces.verify import read_report
    from policycheck.io.files import atomic_write_text, refuse_overwriting
    from policycheck.report.across import index_entries, render_index_html

    reports, unreadable = [], []
    for path in sorted(folder.rglob("report.json")):
        try:
            reports.append((path, read_report(path)))
        except PolicycheckError as exc:
            unreadable.append((path.relative_to(folder).as_posix(), str(exc).split(": ", 1)[-1]))
    target = index_output or folder / "index.html"
    refuse_overwriting(
        [target],
        list(folder.rglob("report.json")),
        "an input of this index would be overwritten by its output: name another output file with -o",
    )
    atomic_write_text(target, render_index_html(index_entries(reports, folder), folder, unreadable))
    _echo(f"{len(reports)} report(s) listed in {target}" + (f"; {len(unreadable)} not read" if unreadable else ""))


@cli.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--schema", "schema", help="Schema the $schema line names (path or URL; default: schemas/policy.schema.json)."
)
@_guard
def init(path, schema):
    """Write a commented starter policy at PATH (default: release.policy.yaml); never overwrites."""
    from policycheck.interfaces.starter import schema_reference, write_starter

    written = write_starter(path, schema)
    _echo(f"wrote {display_path(written)}: edit it, then `policycheck validate {display_path(written)}`")
    reference = schema_reference(written, schema)
    target = written.parent / reference
    if "://" not in reference and not target.is_file():
        _echo(
            f"note: its $schema line names {display_path(target)}, which does not exist yet: "
            f"`policycheck schema --write {display_path(target.parent)}` writes it",
            err=True,
        )


@cli.command()
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(path_type=Path),
    help="Folder for the releases and reports (default: a fresh temporary folder, named when it starts).",
)
@click.option("--refresh-sample", is_flag=True, help="Rewrite the sample reports committed under reports/demo.")
@click.option("--seed", type=click.IntRange(min=0), default=20261121, show_default=True)
@click.option("--policy", type=click.Path(path_type=Path), help="Policy to check (default: policies/demo.policy.yaml).")
@click.option("--quiet", "-q", is_flag=True, help="Plain progress lines instead of live bars.")
@_guard
def demo(out_dir, refresh_sample, seed, policy, quiet):
    """Check two synthetic releases of real census data (UCI Adult) against the example policy.

    It writes nowhere in a checkout unless asked: into --output, or a fresh
    temporary folder; --refresh-sample rewrites the committed sample reports.
    """
    from policycheck.interfaces.demo import output_folder, run_demo

    sys.exit(
        run_demo(output_folder(out_dir, refresh_sample), seed=seed, policy=policy, progress="plain" if quiet else True)
    )


@cli.command(name="metrics")
@_guard
def list_metrics():
    """List the registered metrics with their parameters."""
    from policycheck.metrics import registry
    from policycheck.metrics.base import KNOWLEDGE_WORDS

    for name, spec in sorted(registry.metrics().items()):
        _echo(f"{name} ({spec.family}): {spec.summary}")
        for field, info in spec.params.model_fields.items():
            default = "required" if info.is_required() else f"default {info.get_default(call_default_factory=True)!r}"
            _echo(f"    {field}: {info.description or ''} [{default}]")
        words = "; ".join(KNOWLEDGE_WORDS[k] for k in sorted(spec.knowledge, key=lambda k: k.value)) or "none"
        _echo(f"    attacker knowledge: {words}")
        safer = "higher is safer" if spec.fail_direction == "below" else "higher is riskier"
        _echo(f"    threshold: fail_{spec.fail_direction} ({safer})")


def _release_files(release) -> list:
    """Every file a release was read from: its manifest, SDV metadata and data files."""
    return [release.manifest_path, release.metadata_path, *(d.path for d in release.datasets())]


def _export_reverse_mapped(release, out_dir: Path, seed: int) -> None:
    from policycheck.core.seeds import generator
    from policycheck.methods.linkage.export import export_reverse_mapped

    # The pre-sampling streams the linkage metrics drew from (their key, "linkage", "presample", m), so the
    # export is exactly what they linked.
    rngs = [generator(seed, "linkage", "presample", m) for m in range(len(release.synthetic))]
    for path in export_reverse_mapped(release, out_dir, rngs):
        _echo(f"wrote {display_path(path)}")


def _formats(text: str | list[str], to_stdout: bool = False) -> tuple[str, ...]:
    chosen = [f.strip() for f in (text.split(",") if isinstance(text, str) else text) if f.strip()]
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown:
        raise click.UsageError(f"--format: unknown format(s) {unknown}; choose from {', '.join(FORMATS)}")
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


class _PipeSafeStream:
    """stdout that survives a reader closing the pipe (``policycheck diff A B | head -1``).

    On the first broken-pipe error, the rest of the output goes to
    /dev/null, so the command finishes and exits with its own code, quietly,
    instead of a traceback and exit 3.
    """

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._silence()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._silence()

    def _silence(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main() -> None:
    # NOTE: start-up (click, pydantic, the metric registry) allocates objects that live
    # until exit, and the cyclic collector's passes over them cost about a tenth of a
    # command without data. It stays off for those short commands and is back on
    # before any other command starts its work (cli()).
    gc.disable()
    sys.stdout = _PipeSafeStream(sys.stdout)
    cli(prog_name="policycheck")


if __name__ == "__main__":  # pragma: no cover
    main()
