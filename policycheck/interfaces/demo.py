"""``policycheck demo``: two synthetic releases of real census data, one policy.

The original data is a 3,000-row extract of UCI Adult (CC BY 4.0, see
demo_data/README.md) and the holdout 3,000 other real people. Two baseline
synthesizers make a release each: ``nonprivate`` copies real records
(bootstrap) and must fail, ``indhist_dp`` samples every column
independently from Laplace-noised histograms (paper 001's IndHist, epsilon 1
over the public domain of the training and holdout values) and must be shown
within every privacy rule's fail level.
Both manifests declare epsilon 1; only indhist_dp's claim is true, and the
membership game, re-running each release's built-in synthesizer (named in
its manifest with ``builtin:``), refutes the other. Each release is written
with its manifest under ``<out>/<release>/release/`` and checked like any
other release.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any, Literal

import click
import numpy as np
import pandas as pd
from ruamel.yaml import YAML

from policycheck.core.errors import EXIT_ERROR, EXIT_PASS, InvalidInput, Problem
from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.interfaces.cli.summary import print_summary
from policycheck.io.outputs import atomic_write_text
from policycheck.methods.synthesizers import BUILTIN, indhist_dp
from policycheck.release.load import load_manifest

DATA = Path(__file__).resolve().parents[1] / "demo_data"
TRAINING = DATA / "adult_training.csv"
HOLDOUT = DATA / "adult_holdout.csv"
RELEASES = ("nonprivate", "indhist_dp")
#: What the demo's synthesizers claim, so the DP rules have a claim to test.
#: The nonprivate claim is false on purpose: measurement must contradict it; indhist_dp's holds.
DECLARED = {"nonprivate": {"epsilon": 1.0, "delta": 1e-6}, "indhist_dp": {"epsilon": 1.0, "delta": 1e-6}}


#: The committed sample reports, refreshed only by ``policycheck demo --refresh-sample``.
SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "demo"


def output_folder(out_dir: Path | None, refresh_sample: bool = False) -> Path:
    """Where the demo writes: ``out_dir``, the committed samples, or a fresh temporary folder.

    The default never lands in a checkout, so running the demo leaves
    ``git status`` clean.
    """
    if refresh_sample:
        if out_dir is not None:
            raise InvalidInput(Problem("policycheck demo", "give either --output or --refresh-sample, not both"))
        if not SAMPLE.parent.is_dir():
            raise InvalidInput(
                Problem(str(SAMPLE), "no source checkout here: --refresh-sample rewrites its reports/demo")
            )
        return SAMPLE
    if out_dir is not None:
        return Path(out_dir)
    import tempfile

    return Path(tempfile.mkdtemp(prefix="policycheck-demo-"))


def find_policy() -> Path:
    """policies/demo.policy.yaml from the working folder or the source checkout."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        candidate = base / "policies" / "demo.policy.yaml"
        if candidate.is_file():
            return candidate
    raise InvalidInput(
        Problem("policies/demo.policy.yaml", "demo policy not found: run from the repository or pass --policy")
    )


def public_domain() -> dict[str, list[Any]]:
    """indhist_dp's domain: every value of the training and holdout files (public knowledge in the demo)."""
    frames = [pd.read_csv(path, keep_default_na=False, na_values=[""]) for path in (TRAINING, HOLDOUT)]
    both = pd.concat(frames, ignore_index=True)
    return {c: list(dict.fromkeys(both[c].tolist())) for c in both.columns}


def synthesize(name: str, original: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """One of the demo's releases: a built-in, indhist_dp at the epsilon its manifest declares."""
    if name == "indhist_dp":
        return indhist_dp(original, len(original), rng, DECLARED[name]["epsilon"], public_domain())
    return BUILTIN[name](original, len(original), rng)


def write_release(name: str, out_dir: Path, seed: int) -> Path:
    """Synthesize release ``name`` from the demo data; return its manifest path."""
    original = pd.read_csv(TRAINING, keep_default_na=False, na_values=[""])
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    synthetic = synthesize(name, original, rng)
    folder = out_dir / name / "release"
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / "synthetic.csv", synthetic.to_csv(index=False))
    manifest = {
        "release": {
            "id": f"adult-demo-{name.replace('_', '-')}",
            "description": f"{name} synthesizer on 3,000 UCI Adult records",
        },
        "original": os.path.relpath(TRAINING, folder),
        "holdout": os.path.relpath(HOLDOUT, folder),
        "synthetic": [
            {
                "path": "synthetic.csv",
                "name": name,
                # builtin: the game re-runs this built-in (our code, so verify may re-run it too).
                "synthesizer": {"name": f"policycheck.{name}", **DECLARED[name], "seed": seed, "builtin": name},
            }
        ],
    }
    path = folder / "release.yaml"
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    from io import StringIO

    buffer = StringIO()
    yaml.dump(manifest, buffer)
    atomic_write_text(path, buffer.getvalue())
    return path


def run_demo(
    out_dir: Path,
    seed: int,
    policy: Path | None = None,
    progress: bool | Literal["auto", "plain", "bar", "none"] = True,
    quiet: int = 0,
    command: tuple[str, ...] | None = None,
) -> int:
    """Synthesize and check both releases; ``quiet`` 1 prints the verdicts and summary only, 2 nothing.

    ``command``: the command line the reports record as what ran (the CLI's as typed); by
    default one that names the folder, the policy and the seed, so re-running it checks the same.
    """
    from policycheck.report.formatting import VERDICT_WORDS

    def say(text: str, level: int = 0) -> None:
        if quiet <= level:
            click.echo(text)

    policy_path = policy or find_policy()
    if command is None:
        command = ("policycheck", "demo", "--policy", str(policy_path), "-o", str(out_dir), "--seed", str(seed))
    say(f"policycheck demo: policy {policy_path}, seed {seed}, reports in {out_dir}/<release>/")
    reports = {}
    for name in RELEASES:
        say(f"\n== release {name}: synthesizing {TRAINING.name} ...")
        release = load_manifest(write_release(name, out_dir, seed))
        options = CheckOptions(seed=seed, progress=progress, command=command)
        report = check_release(policy_path, release, out_dir / name, options)
        if quiet < 2:
            print_summary(report, out_dir / name)
        reports[name] = report
    say("\nsummary:", 1)
    for name, report in reports.items():
        failing = ", ".join(report["summary"]["blocking_failures"]) or "none"
        # the verdict in the words the release's own summary line used
        say(
            f"  {name:<11} {VERDICT_WORDS.get(report['verdict'], report['verdict'].upper())}; "
            f"blocking failures: {failing}",
            1,
        )
        for line in _game_lines(report):
            say(f"  {'':<11} {line}", 1)
    return EXIT_ERROR if any(r["verdict"] == "error" for r in reports.values()) else EXIT_PASS


def _game_lines(report: dict[str, Any]) -> list[str]:
    """What the membership game found on a release, in one or two lines of the summary."""
    lines = []
    for rule in report["rules"]:
        details = rule.get("details") or {}
        if rule["metric"] == "membership_inference_advantage" and details.get("targets"):
            largest = details["largest_auc"]
            lines.append(
                f"membership game: worst target {details['worst_target']} advantage {rule['value']:.2f}, "
                f"largest AUC {'n/a' if largest is None else f'{largest:.2f}'} over "
                f"{len(details['targets'])} targets"
            )
        if rule["metric"] == "dp_epsilon_excess_membership" and rule["params"].get("test") == "game" and details:
            claim = details["claims"][0]
            lines.append(
                f"epsilon audit: claimed {claim['claimed_epsilon']:g}, measured lower bound "
                f"{claim['measured_epsilon_lower']:.2f} (at most {details['largest_certifiable_epsilon']:.2f} "
                f"certifiable) -> {'refuted' if claim['contradicted'] else 'not refuted'}"
            )
    return lines
