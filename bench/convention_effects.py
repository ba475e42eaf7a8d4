"""Measure, on the demo data, how much each convention where we differ from a peer moves the number.

For every ``Convention(effect=KEY)`` registered with a metric (policycheck/metrics/*.py),
this computes the metric on the demo's two releases (``policycheck demo``: nonprivate, a
bootstrap copy; indhist, independent histograms; seed 20261121) once under our convention
and once under the peer's, everything else held equal, and writes the figures to
policycheck/metrics/convention_effects.json, which the reports' methods section reads::

    .venv/bin/python -m bench.convention_effects           # rewrite the file (a few seconds)
    .venv/bin/python -m bench.convention_effects --check   # exit 1 when the file is stale

Three ways of switching a convention:

- where it is a param (``baseline: none``) or another metric of ours (the paper's raw
  accuracy), both rules run through ``policycheck.check`` on the demo release
  (:data:`RULE_PAIRS`);
- where it is not (SURE's membership-inference rules), the peer's rule is written out
  here from its code as the peer survey records it (/work/shared/guides/peer-tools.md,
  sec. 2.3 and 6.6, and SURE's own ``adversary_dataset`` and ``membership_inference_test``;
  clearbox-sure 0.2.16 is not installed: it pins numpy < 2 and compiles a Cython kernel at
  import) and applied to DCRs from our Gower search (:func:`membership_effects`);
- where it is one function of ours (anonymeter's numeric success test), the rule runs twice,
  once with the peer's function patched in (:data:`SWITCHED`).

tests/test_convention_effects.py recomputes every figure and compares it with the file.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from policycheck.interfaces.demo import RELEASES, write_release
from policycheck.methods.dcr_share import dcr_share_counts
from policycheck.methods.gower import fit_gower
from policycheck.methods.membership_test import DEFAULT_LEVELS, guesses_at, membership_thresholds, mi_risk_score
from policycheck.methods.nearest_neighbours import SearchJob, closest_records
from policycheck.methods.wp29.inference import correct_guesses as OUR_CORRECT_GUESSES
from policycheck.metrics.registry import EFFECTS_FILE
from policycheck.release.model import Release

DEMO_SEED = 20261121
ROOT = Path(__file__).resolve().parents[1]
DEMO_POLICY = ROOT / "policies" / "demo.policy.yaml"
DIGITS = 4

#: Effect key -> (measure, our rule, the peer's rule): metric and params of each; a params of ``"rule-id"``
#: takes that rule's params from policies/demo.policy.yaml, and a third item overrides some of them.
RULE_PAIRS: dict[str, tuple[str, tuple, tuple]] = {
    "exact_copy_share/holdout-baseline": (
        "share of synthetic records copying a training record (ours: minus the holdout's share)",
        ("exact_copy_share", {}),
        ("exact_copy_share", {"baseline": "none"}),
    ),
    "linkage_range_narrowing/baseline": (
        "share of records whose age the demo's age-narrowing rule narrows (ours: minus the baseline)",
        ("linkage_range_narrowing", "age-narrowing"),
        ("linkage_range_narrowing", "age-narrowing", {"baseline": "none"}),
    ),
    "linkage_range_narrowing/mapping": (
        "share of records whose age the demo's age-narrowing rule narrows beyond the baseline (ours: the worse of "
        "reverse mapping and the values as released)",
        ("linkage_range_narrowing", "age-narrowing"),
        ("linkage_range_narrowing", "age-narrowing", {"mappings": ["reverse"]}),
    ),
    "reconstruction_individual_risk/control": (
        "income inference from the quasi-identifiers (the demo's attacks): ours the individual risk against the "
        "holdout control, theirs the raw accuracy",
        ("reconstruction_individual_risk", "income-inference"),
        ("reconstruction_accuracy", "income-inference"),
    ),
    "replicated_uniques/holdout-baseline": (
        "repU on the quasi-identifiers (ours: minus the holdout's repU)",
        ("replicated_uniques", {}),
        ("replicated_uniques", {"baseline": "none"}),
    ),
    "disco/holdout-baseline": (
        "DiSCO of income on the quasi-identifiers (ours: minus the holdout's DiSCO)",
        ("disco", {"target": "income"}),
        ("disco", {"target": "income", "baseline": "none"}),
    ),
}


def demo_policy() -> dict[str, Any]:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(DEMO_POLICY.read_text(encoding="utf-8"))


def rule_of(side: tuple) -> tuple[str, dict[str, Any]]:
    """Metric and params of one side of a :data:`RULE_PAIRS` entry (demo rule ids resolved)."""
    metric, params, *extra = side
    if isinstance(params, str):
        (rule,) = [r for r in demo_policy()["rules"] if r["id"] == params]
        params = dict(rule.get("params") or {})
    return metric, {**params, **(extra[0] if extra else {})}


def anonymeter_correct_guesses(guesses: np.ndarray, secrets: np.ndarray, numeric: bool, tolerance: float) -> np.ndarray:
    """anonymeter 1.1's success test (``evaluators/inference_evaluator.py``, ``regression=True``) in ours' place.

    A numeric guess is right when ``|guess - secret| / (guess + 1e-12) <= tolerance``: relative to the guess,
    and any negative guess passes. Categorical secrets and missing values as ours.
    """
    right = OUR_CORRECT_GUESSES(guesses, secrets, numeric=False, tolerance=tolerance)
    if numeric:
        present = ~np.asarray(pd.isna(guesses), bool) & ~np.asarray(pd.isna(secrets), bool)
        g, t = guesses[present].astype(np.float64), secrets[present].astype(np.float64)
        right[present] = np.abs(g - t) / (g + 1e-12) <= tolerance
    return right


#: Effect key -> (measure, metric, params, module, function, the peer's function in its place): conventions
#: inside our code, switched by running the same rule twice, once with the peer's function.
SWITCHED: dict[str, tuple[str, str, dict[str, Any], str, str, Any]] = {
    "inference_risk/numeric-tolerance": (
        "inference risk of hours_per_week from the quasi-identifiers (500 targets, tolerance 0.05)",
        "inference_risk",
        {"secret": "hours_per_week"},
        "policycheck.methods.wp29.inference",
        "correct_guesses",
        anonymeter_correct_guesses,
    ),
}

MEASURES = {
    "dcr_share/ties": "DCR share (ours: over untied records; the paper's and SURE's: over all, ties not closer)",
    "dcr_share/numeric-ranges": "DCR share over untied records, numeric ranges per call (SURE) against one range",
    "mi_risk/quantile-rule": "MI risk with SURE's thresholds and strict guess, all else ours",
    "mi_risk/precision-floor": "MI risk with SURE's floor of each precision at 0.5 and clip at 0, all else ours",
    "mi_risk/adversary-set": (
        "MI risk on SURE's adversary set (600 + 600 records, its own numeric ranges), all else ours"
    ),
    "mi_risk/sure": "MI risk with all of SURE's conventions at once",
}


def demo_release(name: str, folder: Path) -> Release:
    """The demo's release ``name`` as ``policycheck demo`` writes it (same seed, same records)."""
    from policycheck.release.load import load_manifest

    return load_manifest(write_release(name, folder, DEMO_SEED))


# --- membership: DCRs under either range convention -------------------------------------------------


def dcrs(release: Release, queries: pd.DataFrame, reference: pd.DataFrame, fitted_on: list[pd.DataFrame]) -> np.ndarray:
    """Each query's Gower DCR to ``reference``, numeric ranges and levels fitted on ``fitted_on``."""
    enc = fit_gower(fitted_on, release.column_types, release.orders, release.columns)
    (found,) = closest_records([SearchJob(enc.encode(queries), enc.encode(reference))], enc.kinds)
    return found.distance


def our_mi_risk(d_members: np.ndarray, d_non_members: np.ndarray) -> float:
    """Our MI risk without its bootstrap (paper 002, sec. 4; policycheck.methods.membership_test)."""
    t = membership_thresholds(np.concatenate([d_members, d_non_members]), DEFAULT_LEVELS)
    guessed, hits = guesses_at(d_members, d_non_members, t)
    return mi_risk_score(hits / guessed)


def sure_mi_risk(d_members: np.ndarray, d_non_members: np.ndarray, *, quantile_rule: bool, floor: bool) -> float:
    """SURE 0.2.16's ``membership_inference_test`` with either of its two rules switched on.

    ``quantile_rule``: thresholds ``np.quantile(d, [0.5, 0.25, 0.2, min(d) + 0.01])`` (the last a
    distance passed as a quantile level), guess "member" when ``d < t``, precision 0 when
    nobody is guessed (``zero_division=0``). Off: our inverted-CDF levels and ``d <= t``.
    ``floor``: each precision floored at 0.5 and the risk clipped at 0.
    """
    d = np.concatenate([d_members, d_non_members])
    truth = np.concatenate([np.ones(d_members.size, bool), np.zeros(d_non_members.size, bool)])
    if quantile_rule:
        thresholds = np.quantile(d, [0.5, 0.25, 0.2, float(np.min(d)) + 0.01])
        guesses = [d < t for t in thresholds]
    else:
        thresholds = membership_thresholds(d, DEFAULT_LEVELS)
        guesses = [d <= t for t in thresholds]
    precisions = np.array([float(np.sum(g & truth) / np.sum(g)) if np.sum(g) else 0.0 for g in guesses])
    if floor:
        precisions = np.maximum(precisions, 0.5)
    risk = mi_risk_score(precisions)
    return max(risk, 0.0) if floor else risk


def sure_adversary_set(release: Release) -> tuple[pd.DataFrame, pd.DataFrame]:
    """SURE's ``adversary_dataset``: ``min(int(0.2 (n_train + n_holdout) / 2), n_holdout)`` records of each.

    Each drawn with random_state 42, as SURE draws them.
    """
    train, hold = release.original.frame, release.holdout.frame
    m = min(int(0.2 * (len(train) + len(hold)) / 2), len(hold))
    return train.sample(n=m, random_state=42), hold.sample(n=m, random_state=42)


def membership_effects(release: Release) -> dict[str, dict[str, float]]:
    """Our value and the peer's for each membership convention on one release (the rest held equal)."""
    train, hold, syn = release.original.frame, release.holdout.frame, release.synthetic[0].frame
    union = [train, hold, syn]
    # ours: one range over every set (policycheck.metrics.membership.gower_dcr.gower_dcr)
    syn_train, syn_hold = dcrs(release, syn, train, union), dcrs(release, syn, hold, union)
    train_syn, hold_syn = dcrs(release, train, syn, union), dcrs(release, hold, syn, union)
    ours_share = dcr_share_counts(syn_train, syn_hold)
    # SURE: each call fits its ranges on its own two frames
    sure_share = dcr_share_counts(dcrs(release, syn, train, [syn, train]), dcrs(release, syn, hold, [syn, hold]))
    # With equal-size sets our adversary set is every record of both, so the risk needs no sampling.
    ours_risk = our_mi_risk(train_syn, hold_syn)
    members, non_members = sure_adversary_set(release)
    adversary = pd.concat([members, non_members], ignore_index=True)
    fitted = [adversary, syn]
    sure_members, sure_non = dcrs(release, members, syn, fitted), dcrs(release, non_members, syn, fitted)
    return {
        "dcr_share/ties": {"ours": ours_share.share, "theirs": ours_share.strict_share},
        "dcr_share/numeric-ranges": {"ours": ours_share.share, "theirs": sure_share.share},
        "mi_risk/quantile-rule": {
            "ours": ours_risk,
            "theirs": sure_mi_risk(train_syn, hold_syn, quantile_rule=True, floor=False),
        },
        "mi_risk/precision-floor": {
            "ours": ours_risk,
            "theirs": sure_mi_risk(train_syn, hold_syn, quantile_rule=False, floor=True),
        },
        "mi_risk/adversary-set": {"ours": ours_risk, "theirs": our_mi_risk(sure_members, sure_non)},
        "mi_risk/sure": {
            "ours": ours_risk,
            "theirs": sure_mi_risk(sure_members, sure_non, quantile_rule=True, floor=True),
        },
    }


# --- conventions that are a param or another metric of ours ------------------------------------------


def _policy(folder: Path, rules: list[dict[str, Any]]) -> Path:
    """A policy file with the demo policy's attacker and seed, and ``rules``."""
    from ruamel.yaml import YAML

    policy = {
        "metadata": {"id": "convention-effects", "title": "Convention effects", "version": "1", "owner": "bench"},
        "attacker": demo_policy()["attacker"],
        "seed": DEMO_SEED,
        "rules": rules,
    }
    path = folder / "effects.policy.yaml"
    with path.open("w", encoding="utf-8") as f:
        YAML(typ="safe").dump(policy, f)
    return path


def rule_pair_effects(
    release: Release, folder: Path, keys: tuple[str, ...] = tuple(RULE_PAIRS)
) -> dict[str, dict[str, float]]:
    """Run the pairs ``keys`` of :data:`RULE_PAIRS` in one check of the demo's policy attacker on ``release``."""
    rules = []
    for key in keys:
        _, ours, theirs = RULE_PAIRS[key]
        for side, (metric, params) in (("ours", rule_of(ours)), ("theirs", rule_of(theirs))):
            rules.append(
                {
                    "id": f"{key.replace('/', '.')}.{side}",
                    "metric": metric,
                    "params": params,
                    "threshold": {"fail_above": 1.0},
                }
            )
    report = _check(_policy(folder, rules), release)
    values = {r["id"]: r["value"] for r in report["rules"]}
    errors = [f"{r['id']}: {r['error']}" for r in report["rules"] if r["error"]]
    if errors:
        raise RuntimeError("; ".join(errors))
    return {key: {side: values[f"{key.replace('/', '.')}.{side}"] for side in ("ours", "theirs")} for key in keys}


def _check(policy: Path, release: Release) -> dict[str, Any]:
    """report.json's content of a serial check of ``release`` against the policy at ``policy``, at the demo's seed."""
    from policycheck.interfaces.check import CheckOptions, check
    from policycheck.policy.load import load_policy

    return check(load_policy(policy, release), release, CheckOptions(seed=DEMO_SEED, executor="serial"))


def switched_effects(
    release: Release, folder: Path, keys: tuple[str, ...] = tuple(SWITCHED)
) -> dict[str, dict[str, float]]:
    """Each rule of :data:`SWITCHED` run as is and with the peer's function patched in (same seed, same targets)."""
    import importlib
    from unittest import mock

    found = {}
    for key in keys:
        _, metric, params, module, name, theirs = SWITCHED[key]
        path = _policy(
            folder, [{"id": "switched", "metric": metric, "params": params, "threshold": {"fail_above": 1.0}}]
        )
        values = {}
        for side in ("ours", "theirs"):
            patch = mock.patch.object(importlib.import_module(module), name, theirs) if side == "theirs" else _nothing()
            with patch:
                report = _check(path, release)
            (rule,) = report["rules"]
            if rule["error"]:
                raise RuntimeError(f"{key}: {rule['error']}")
            values[side] = rule["value"]
        found[key] = values
    return found


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def measure(releases: tuple[str, ...] = RELEASES) -> dict[str, Any]:
    """Every effect on every demo release, rounded to :data:`DIGITS` places."""
    per_key: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="policycheck-effects-") as tmp:
        for name in releases:
            release = demo_release(name, Path(tmp))
            found = {
                **membership_effects(release),
                **rule_pair_effects(release, Path(tmp)),
                **switched_effects(release, Path(tmp)),
            }
            for key, pair in found.items():
                per_key.setdefault(key, {})[name] = {side: round(float(v), DIGITS) for side, v in pair.items()}
    measures = {**MEASURES, **{k: v[0] for k, v in RULE_PAIRS.items()}, **{k: v[0] for k, v in SWITCHED.items()}}
    return {key: {"measure": measures[key], "demo": per_key[key]} for key in sorted(per_key)}


def document(effects: dict[str, Any]) -> dict[str, Any]:
    return {
        "about": "Each convention's effect on the demo (policycheck demo, seed 20261121): the metric under our "
        "convention and under the peer's, the rest held equal. Written by python -m bench.convention_effects; "
        "tests/test_convention_effects.py recomputes it.",
        "demo_seed": DEMO_SEED,
        "effects": effects,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    args = parser.parse_args(argv)
    found = document(measure())
    if args.check:
        stored = json.loads(EFFECTS_FILE.read_text(encoding="utf-8"))
        if stored != found:
            print(f"{EFFECTS_FILE} is stale: run python -m bench.convention_effects", file=sys.stderr)
            return 1
        return 0
    EFFECTS_FILE.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for key, e in found["effects"].items():
        print(key, "  ".join(f"{n}: {v['ours']} (ours) / {v['theirs']} (theirs)" for n, v in e["demo"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
