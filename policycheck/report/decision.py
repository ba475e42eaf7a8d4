"""The decision page in words: what was decided, on what, under which assumptions, and what a PASS does not say.

Everything here reads a report dict (report.json) only, like the other
renderers: the HTML decision page, the top of report.md and the API's
``to_frame()`` all take their sentences and labels from these functions, so
they cannot say different things. Nothing here computes a number; it says
which number decided, at which confidence, on which synthetic set.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath
from typing import Any, NamedTuple

from policycheck.core.plural import count_of, noun
from policycheck.metrics.combinators import printed_level
from policycheck.report.formatting import fmt, interval_of, interval_text, is_excess, percent

#: The papers the metrics are built from, as the methods section cites them ("paper 000") and in full.
REFERENCES: dict[str, dict[str, str]] = {
    "000": {
        "short": "Ruiz, Muralidhar and Domingo-Ferrer 2018",
        "full": "N. Ruiz, K. Muralidhar, J. Domingo-Ferrer. On the privacy guarantees of synthetic data: a "
        "reassessment from the maximum-knowledge attacker perspective. Privacy in Statistical Databases "
        "(PSD 2018), LNCS 11126.",
    },
    "001": {
        "short": "Annamalai, Gadotti and Rocher 2024",
        "full": "M. S. M. S. Annamalai, A. Gadotti, L. Rocher. A Linear Reconstruction Approach for Attribute "
        "Inference Attacks against Synthetic Data. USENIX Security 2024 (extended version).",
    },
    "002": {
        "short": "Clearbox AI, Privacy evaluation",
        "full": "Clearbox AI. Privacy evaluation: distance to closest record and membership inference with "
        "Clearbox Synthetic Kit (technical documentation, undated).",
    },
    "004": {
        "short": "Abowd and Vilhuber 2008",
        "full": "J. M. Abowd, L. Vilhuber. How protective are synthetic data? Privacy in Statistical Databases "
        "(PSD 2008), LNCS 5262.",
    },
}

_PAPER = re.compile(r"\bpaper (00\d)\b")


def cite(text: str) -> str:
    """``paper 002, sec. 4`` -> ``Clearbox AI, Privacy evaluation [002], sec. 4``: a paper by name, not a number."""
    return _PAPER.sub(
        lambda m: f"{REFERENCES[m.group(1)]['short']} [{m.group(1)}]" if m.group(1) in REFERENCES else m.group(0), text
    )


def cited(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, full reference) of every paper the report's methods cite, in key order."""
    keys = set()
    for m in report.get("methods", []):
        keys.update(_PAPER.findall(m.get("source", "")))
    return [(k, REFERENCES[k]["full"]) for k in sorted(keys) if k in REFERENCES]


def interval_level(rule: dict[str, Any], default: float | None = None) -> float | None:
    """The confidence of the interval's ends as printed.

    A rule that takes the worst of several intervals (synthetic sets, attacks, targets) takes each at the
    Bonferroni level, so its interval's ends are bounds at that level (97.5% with two sets at 95%), not at
    the rule's confidence. report.json holds it in the rule's evidence (``details.bonferroni``).
    """
    note = (rule.get("details") or {}).get("bonferroni")
    note = note if isinstance(note, dict) else {}
    return printed_level(rule.get("confidence") or default, note.get("alternatives"), note.get("level"))


def level_label(rule: dict[str, Any], default: float | None = None) -> str:
    """``97.5%`` (the level of the printed interval), with what it is when it is a Bonferroni level."""
    level = interval_level(rule, default)
    return percent(level) if level is not None else ""


def bonferroni_words(rule: dict[str, Any], default: float | None = None) -> str:
    """``each of 2 synthetic sets at 97.5% (Bonferroni), so the worst holds at 95%``, or '' for one interval."""
    note = (rule.get("details") or {}).get("bonferroni")
    if not isinstance(note, dict) or (note.get("alternatives") or 0) <= 1:
        return ""
    joint = rule.get("confidence") or default
    what = "alternatives"
    m = re.search(r"each of the \d+ (.+?)' intervals", note.get("rule") or "")
    if m:
        what = m.group(1)
    return (
        f"each of {note['alternatives']} {what} at {percent(note['level'])} (Bonferroni), "
        f"so the worst holds at {percent(joint) if joint else 'the rule confidence'}"
    )


def worst_set(rule: dict[str, Any]) -> str | None:
    """The synthetic set that decided the rule (its worst), when the evidence names one."""
    details = rule.get("details") or {}
    if isinstance(details.get("worst_set"), str):
        return str(details["worst_set"])
    worst = details.get("worst")
    if isinstance(worst, dict) and isinstance(worst.get("set"), str):
        return str(worst["set"])
    return None


def _levels(rule: dict[str, Any]) -> tuple[str, float | None, float | None]:
    """(direction, fail level, warn level) of a rule's threshold: direction ``above`` or ``below``."""
    t = rule["threshold"]
    if t.get("fail_above") is not None or t.get("warn_above") is not None:
        return "above", t.get("fail_above"), t.get("warn_above")
    return "below", t.get("fail_below"), t.get("warn_below")


def what_it_measures(rule: dict[str, Any]) -> str:
    """The first sentence of the metric's meaning, without its asides: what the number is, in words."""
    text = (rule.get("meaning") or rule.get("summary") or rule["metric"]).strip()
    text = re.sub(r"\s*\([^()]*\)", "", text)
    text = re.split(r"(?<=[a-z0-9])\.\s", text + " ", maxsplit=1)[0].rstrip(". ")
    return text.split(": ", 1)[0]


def reaches_past_fail(rule: dict[str, Any]) -> bool:
    """A pass or warning whose interval reaches past its fail level: the sample does not settle it.

    Under ``compare: interval`` such a rule is inconclusive (the engine marks it ``unsettled``); under
    ``estimate``, ``upper`` or ``lower`` it can pass with its interval across the fail level, and the
    decision page says so.
    """
    interval = rule.get("interval")
    if rule.get("verdict") not in ("pass", "warn") or not interval or rule.get("unsettled"):
        return False
    direction, fail, _ = _levels(rule)
    if fail is None:
        return False
    return bool(interval[1] > fail if direction == "above" else interval[0] < fail)


def decided_on_words(rule: dict[str, Any], default: float | None = None) -> str:
    """Which comparison decided the rule, and why that one."""
    how = rule.get("decided_on")
    label = level_label(rule, default)
    compare = rule["threshold"].get("compare", "interval")
    if how == "interval":
        return (
            f"its whole {label} interval (compare: interval, the default): the verdict claims no more than the "
            "sample shows"
        )
    if how in ("upper", "lower"):
        return (
            f"the estimate and the {how} end of its {label} interval, as the policy asks (compare: {how}): it "
            "fails when both are beyond the fail level"
        )
    if how == "refuted_claim":
        return "a declared claim another rule refuted: a value built on a refuted claim cannot pass"
    if how == "estimate":
        if compare == "estimate":
            conf = (rule.get("details") or {}).get("confidence")
            own = f" (the estimate is itself a bound at {percent(conf)})" if isinstance(conf, float) else ""
            return f"the estimate alone, as the policy asks (compare: estimate){own}"
        return "the value as it is: it has no sampling interval (an exact count or a declared budget)"
    return "nothing: the rule could not be evaluated"


def knowledge_words(rule: dict[str, Any], report: dict[str, Any]) -> str:
    """The attacker knowledge the rule used, and why it is not the policy's whole attacker."""
    used = list(rule.get("knowledge_words") or [])
    policy = list(report["policy"].get("attacker_knowledge") or [])
    model = report["policy"].get("attacker_model", "")
    if not used:
        return "none: a property of the data, not an attack"
    missing = [k for k in policy if k not in used]
    if not missing:
        return f"{'; '.join(used)}: all the {model} attacker knows"
    return (
        f"{'; '.join(used)}. Not {'; '.join(missing)}: the attack is defined for this knowledge only, so its "
        f"number is a lower bound on what the policy's {model} attacker, who knows more, could do."
    )


def plain_sentence(rule: dict[str, Any], default: float | None = None, several_sets: bool = True) -> str:
    """One sentence for page 1: what the rule measures, what was measured, against which level, on which set.

    The set that decided is named when the release has several (``several_sets``).
    """
    if rule.get("error"):
        return f"{what_it_measures(rule)}. It could not be evaluated ({rule['error']}), so nothing can be said of it."
    verdict = rule.get("verdict_before_waiver") if rule.get("verdict") == "waived" else rule.get("verdict")
    direction, fail, warn = _levels(rule)
    word = "above" if direction == "above" else "below"
    interval = rule.get("interval")
    label = level_label(rule, default)
    value = fmt(rule.get("value"))
    of = f", of {interval_of(rule)}" if interval_of(rule) else ""
    span = f" ({label} interval {fmt(interval[0])} to {fmt(interval[1])}{of})" if interval and label else ""
    lead = f"{what_it_measures(rule)}: measured {value}{span}"
    if is_excess(rule):  # the sentence names the measure, so the number must be the measure's, then the excess
        lead = (
            f"{what_it_measures(rule)}: measured {fmt(rule['raw'])} against {fmt(rule['baseline'])} for its "
            f"baseline, an excess of {value}{span}"
        )
    s = worst_set(rule)
    on_set = f" Synthetic set '{s}' decided it (the worst of the sets)." if s and several_sets else ""
    if rule.get("decided_on") == "refuted_claim":
        return f"{lead}; {rule.get('verdict_reason') or 'it relies on a claim another rule refuted.'}"
    if verdict == "inconclusive":
        return (
            f"{lead}. The interval contains the fail level {fmt(fail)}: this sample cannot tell whether the value "
            f"is {word} it.{on_set}"
        )
    if verdict == "fail":
        if rule.get("decided_on") == "interval" and interval:
            end = interval[0] if direction == "above" else interval[1]
            extreme = "lowest" if direction == "above" else "highest"
            body = f"even the {extreme} value the interval allows, {fmt(end)}, is {word} the fail level {fmt(fail)}"
        else:
            how = decided_on_words(rule, default).split(":")[0].split(" (")[0]
            body = f"{word} the fail level {fmt(fail)} (decided on {how})"
        advisory = (
            " The rule is advisory, so it makes the release warn, not fail."
            if rule.get("severity") == "advisory"
            else ""
        )
        return f"{lead}; {body}.{advisory}{on_set}"
    if verdict == "warn":
        return f"{lead}: within the fail level {fmt(fail)}, but not shown within the warn level {fmt(warn)}.{on_set}"
    return f"{lead}; within its levels.{on_set}"


def unsettled_words(rule: dict[str, Any]) -> str:
    """For a pass whose interval reaches past the fail level under estimate/upper/lower: what would settle it."""
    direction, fail, _ = _levels(rule)
    lead = (
        f"passes on {rule.get('decided_on') or 'the estimate'} (compare: {rule['threshold'].get('compare')}), but its "
        f"interval{interval_text(rule)} reaches {'above' if direction == 'above' else 'below'} "
        f"the fail level {fmt(fail)}"
    )
    if interval_of(rule):
        # The interval is not the value's (a DP claim's: what this attack could show), so deciding on it
        # settles nothing: only more evidence can move the value itself.
        return (
            f"{lead}: a larger sample could show the value beyond it. Deciding on the interval (compare: "
            "interval) would not settle it: the interval is not of the value"
        )
    return (
        f"{lead}: the sample does not show it within. A larger sample, or deciding on the interval (compare: "
        "interval), would settle it"
    )


def scope(report: dict[str, Any]) -> dict[str, str]:
    """Which release, which data, which sets and which attacker the decision covers, in words."""
    datasets = report["release"]["datasets"]
    original = [d for d in datasets if d["role"] == "original"]
    holdout = [d for d in datasets if d["role"] == "holdout"]
    synthetic = [d for d in datasets if d["role"] == "synthetic"]
    policy = report["policy"]
    data = ", ".join(f"'{d['name']}' ({_sized(d)})" for d in original) or "none"
    key = report["release"].get("person_key")
    if key:  # the measures count people, not records, where one has several
        data += f", people named by id column '{key}'"
    sets = ", ".join(f"'{d['name']}' ({fmt(d['rows'])} records)" for d in synthetic)
    qi = ", ".join(policy.get("quasi_identifiers") or []) or "none declared"
    secrets = ", ".join(policy.get("secrets") or []) or "none declared"
    out = {
        "Release": f"{report['release']['id']}: {count_of(len(synthetic), 'synthetic set')} to be released, {sets}",
        "Data protected": f"the original data {data}",
        **(
            {
                # Not "protected": the synthesizer never saw them, so the release cannot expose them.
                "Control": "the holdout "
                + ", ".join(f"'{d['name']}' ({_sized(d)})" for d in holdout)
                + ", real records the synthesizer never saw: the attacks' baseline"
            }
            if holdout
            else {}
        ),
        "Attacker": f"{policy['attacker_model']}: knows {'; '.join(policy.get('attacker_knowledge') or [])}. "
        f"Quasi-identifiers (learnable elsewhere): {qi}. Secrets: {secrets}",
        "Confidence": f"{percent(report['provenance']['confidence'])} for each rule; a rule over several sets or "
        "attacks takes each interval at a higher (Bonferroni) level, printed beside it",
    }
    seed = seed_override(report)
    if seed:
        out["Seed"] = seed
    return out


def _sized(dataset: dict[str, Any]) -> str:
    """A real set's size: its records, and its people where an id column names people with several records."""
    people = dataset.get("people")
    records = f"{fmt(dataset['rows'])} records"
    return f"{records} of {fmt(people)} {noun(people, 'person', 'people')}" if people else records


def seed_override(report: dict[str, Any]) -> str | None:
    """The seed in words when the run's is not the policy's (``--seed``), else None: it can move a verdict."""
    prov = report["provenance"]
    seed, policy_seed = prov["seed"], (prov.get("effective_policy") or {}).get("seed")
    # the policy's, or the default a policy naming none runs with (interfaces.check.DEFAULT_SEED)
    if seed == policy_seed or (policy_seed is None and seed == 0):
        return None
    policy_words = f"the policy's seed is {policy_seed}" if policy_seed is not None else "the policy names none"
    return (
        f"{seed} (from --seed or the run's settings; {policy_words}): the games and samples "
        "draw from it, and another seed can move a verdict near its level"
    )


def assumptions(report: dict[str, Any]) -> list[str]:
    """What the signer must ensure for the verdicts to mean what they say."""
    datasets = report["release"]["datasets"]
    out = []
    if any(d["role"] == "holdout" for d in datasets):
        out.append(
            "The holdout records were split at random from the same data as the original, by person where a "
            "person has several records, and never reached the synthesizer: every baseline and control that uses "
            "them is only as fair as that split."
        )
    out.append(
        "The original data given here are the people whose privacy is at stake, and the quasi-identifiers are "
        "everything an attacker could learn about them elsewhere; a column left out is not attacked as one."
    )
    out.append(
        "The synthetic sets checked are exactly the sets to be released, and nothing else is released with them."
    )
    if any(r.get("relies_on") or r.get("refutes") or r["family"] == "dp" for r in report["rules"]):
        out.append(
            "A declared differential-privacy claim (a synthesizer's epsilon and delta) is taken as declared: a "
            "test can refute it, never verify it."
        )
    return out


def limitations(report: dict[str, Any]) -> list[str]:
    """What a PASS does not guarantee."""
    conf = percent(report["provenance"]["confidence"])
    return [
        "A pass holds for the attacks and attacker knowledge named here. Another attack, or an attacker who "
        "knows more, may do better: each measured risk is a lower bound on what its attacker could achieve.",
        "The tests are release-level: they measure the records on average, or at the worst set or target they "
        "found; a person can still be exposed where the average is low.",
        f"Every number is estimated from a sample; each rule's interval holds at {conf} confidence, so about one "
        "such statement in twenty may miss.",
        "A differential-privacy claim that passes was not refuted by this test: that is not the same as verified.",
        "Releases add up: later releases from the same data add risk, which only a ledger of them counts; "
        "re-assess before each release and when the data, the synthesizer or the audience change.",
        "Synthetic records are generated, not real, but they can still disclose information about the real "
        "people in the original data: that is what this report measures, not whether the data are useful.",
    ]


#: A rule needing this intermediate attacks single records by re-running the synthesizer (the membership game).
_GAME = "membership_game"
#: The games that re-run the synthesizer: the membership game and the attribute inference game (paper 001).
_GAMES = (_GAME, "attribute_inference_game")


def _plays_game(rule: dict[str, Any], games: tuple[str, ...] = (_GAME,)) -> bool:
    # A need is named by its label: the intermediate, then its parameters in parentheses when it has any.
    return any(str(need).split("(", 1)[0] in games for need in rule.get("needs") or ())


def _release_level_membership(rule: dict[str, Any]) -> bool:
    """Whether a rule measures membership over the release as a whole (its metric says; a report written before
    it said: the membership family's rules, the game's excepted by the caller)."""
    marked = rule.get("release_level_membership")
    return bool(marked) if marked is not None else rule["family"] == "membership"


class Gap(NamedTuple):
    """One thing a policy leaves untested: a stable id (for SARIF and JUnit) and its sentence."""

    id: str
    text: str


#: The gaps :func:`untested_gaps` can name, by id: what each says is missing (SARIF's notification descriptors).
GAPS = {
    "single-records": "No rule plays the membership game: membership is measured at release level only.",
    "dp-claim-not-attacked": (
        "A declared differential-privacy claim is not audited by a game that re-runs the synthesizer."
    ),
    "keys-not-matched": "Rules that look keys up by exact value matched few original records: they test little.",
}


def untested(report: dict[str, Any]) -> list[str]:
    """The sentences of :func:`untested_gaps`, as the report pages and the CLI print them."""
    return [gap.text for gap in untested_gaps(report)]


def untested_gaps(report: dict[str, Any]) -> list[Gap]:
    """What this policy leaves untested that its own rules could be taken to cover, one sentence each.

    Two gaps the field has shown to matter, said on the decision page beside
    the verdict rather than in the general limitations:

    - membership measured only at release level: the DCR share, MI risk and
      exact copies average over the records and pass releases that expose a
      few (Yao et al., "The DCR Delusion", 2025); only the membership game
      attacks single records;
    - a declared differential-privacy claim (an epsilon) that no rule audits
      by a game that re-runs the synthesizer (membership or attribute): a
      claim is audited by attacking the synthesizer, not one release of it
      (Annamalai, Ganev and De Cristofaro, USENIX Security 2024). A game
      attacks the first set whose synthesizer can be re-run, so one
      game-playing audit counts for all;
    - exact-key rules that do not fail although their keys can barely be
      matched (:func:`_unmatched_keys_gap`).
    """
    rules = report["rules"]
    out: list[Gap] = []
    release_level = [r["id"] for r in rules if _release_level_membership(r) and not _plays_game(r)]
    if release_level and not any(_plays_game(r) for r in rules):
        model = report["policy"].get("attacker_model")
        needs = "" if model == "maximum-knowledge" else " (its attacker knows the original records: maximum-knowledge)"
        out.append(
            Gap(
                "single-records",
                f"No rule attacks single records: {', '.join(release_level)} "
                f"measure{'s' if len(release_level) == 1 else ''} the release as a whole, and such "
                'tests pass releases that expose a few records (Yao et al., "The DCR Delusion", 2025). A '
                "membership_inference_advantage rule plays the membership game against the records most at risk, "
                f"re-running the synthesizer{needs}.",
            )
        )
    unmatched_gap = _unmatched_keys_gap(rules)
    if unmatched_gap is not None:
        out.append(unmatched_gap)
    claims = [
        f"'{d['name']}' (epsilon {fmt(d['synthesizer']['epsilon'])})"
        for d in report["release"]["datasets"]
        if d["role"] == "synthetic" and (d.get("synthesizer") or {}).get("epsilon") is not None
    ]
    audits = [r for r in rules if r["metric"].startswith("dp_epsilon_excess")]
    if claims and not any(_plays_game(r, _GAMES) for r in audits):
        ids = [r["id"] for r in audits]
        tested = (
            f"{', '.join(ids)} test{'s' if len(ids) == 1 else ''} the claim on this release only"
            if ids
            else "no rule tests the claim"
        )
        out.append(
            Gap(
                "dp-claim-not-attacked",
                f"Synthetic set{'' if len(claims) == 1 else 's'} {', '.join(claims)} "
                f"declare{'s' if len(claims) == 1 else ''} differential privacy, "
                f"and {tested}: a claim is audited by attacking the synthesizer itself, not one release of it "
                "(Annamalai, Ganev and De Cristofaro, USENIX Security 2024). A dp_epsilon_excess_membership rule with "
                "test: game plays the membership game against it (dp_epsilon_excess_attribute, the attribute game).",
            )
        )
    return out


def _unmatched_keys_gap(rules: list[dict[str, Any]]) -> Gap | None:
    """Rules that do not fail although their exact-key lookups could match few people (``unmatched_keys`` details).

    A key of continuous values (a measurement, a price) is repeated exactly by
    almost no synthetic record, so repU, DiSCO and TCAP come out near 0
    whatever the synthesizer keeps: their pass says nothing of those people.
    """
    keys: dict[str, float] = {}
    ids = []
    for rule in rules:
        found = (rule.get("details") or {}).get("unmatched_keys")
        if found and rule.get("verdict") not in ("fail", "error"):
            ids.append(rule["id"])
            for key, share in found.items():
                keys.setdefault(key, share)
    if not ids:
        return None
    listed = ", ".join(f"{key} ({round(share * 100):g}%)" for key, share in keys.items())
    return Gap(
        "keys-not-matched",
        f"{', '.join(ids)} look{'s' if len(ids) == 1 else ''} keys up by exact value, and the synthetic data "
        f"rarely repeats the values of {listed} of the original records: few of them can be matched, so "
        f"{'it tests' if len(ids) == 1 else 'they test'} little of this release. Round or group such keys, or choose "
        "categorical keys, for these rules to measure disclosure.",
    )


def decided_sentence(report: dict[str, Any], summary: Any) -> str:
    """What was decided, in one or two sentences (the automated verdict, not the signer's decision)."""
    verdict = report["verdict"]
    head = (
        f"policycheck measured the {count_of(summary.total, 'rule')} of policy '{report['policy']['id']}' "
        f"v{report['policy']['version']} on release '{report['release']['id']}'. "
    )
    failing = len(summary.fails_release)
    if verdict == "fail":
        body = (
            f"The release fails: {count_of(failing, 'blocking rule')} {noun(failing, 'is', 'are')} beyond "
            f"{noun(failing, 'its', 'their')} fail level, so it should not be released as it is."
        )
    elif verdict == "warn":
        body = (
            f"The release warns: no blocking rule fails, but {count_of(len(summary.warns_release), 'rule')} "
            f"{noun(len(summary.warns_release), 'needs', 'need')} the signer's attention before release."
        )
    elif verdict == "pass":
        body = "The release passes: every rule is within its levels" + (
            " or waived." if summary.count("waived") else "."
        )
    else:
        body = (
            f"{count_of(summary.count('error'), 'rule')} could not be evaluated: no decision can be drawn from this "
            "report."
        )
    return head + body + " This is the automated verdict; the decision to release is the signer's."


def effects_here(effect: dict[str, Any] | None, report: dict[str, Any]) -> list[dict[str, Any]]:
    """A convention's effect measured on this very release (the demo's), or nothing.

    The effects were measured on ``policycheck demo``'s releases only; printing the Adult demo's numbers in a
    report of other data would read as if they were this release's.
    """
    if not effect:
        return []
    here = report["release"]["id"]
    return [e for e in effect.get("demo", []) if f"adult-demo-{e['release'].replace('_', '-')}" == here]


#: Terms the report uses that a signer may not know, in plain words (printed in every format).
GLOSSARY: tuple[tuple[str, str], ...] = (
    (
        "Interval, confidence",
        "The range the true value lies in with the stated confidence, given the sample; 95% means about one such "
        "range in twenty misses.",
    ),
    (
        "Bonferroni level",
        "A rule over k synthetic sets (or attacks, or targets) reports the worst; to keep its stated confidence, "
        "each of the k intervals is taken at 1 - (1 - confidence) / k: 97.5% for two sets at 95%.",
    ),
    (
        "Baseline, control",
        "What an attacker gets without this release's individual information: chance, or the same attack on "
        "holdout records the synthesizer never saw. The excess over it is the release's own risk.",
    ),
    (
        "Holdout",
        "Real records from the same data that the synthesizer never saw; they tell leakage from population trends.",
    ),
    ("Distance to closest record (DCR)", "How far a record is from the nearest record of another set."),
    (
        "Gower distance",
        "A distance over mixed columns: numbers by their difference as a share of the range, categories by "
        "whether they match.",
    ),
    (
        "MI risk and AUC",
        "Two scores of the same membership attack: the MI risk is (precision - 0.5) * 2 at its threshold (0 is a "
        "coin flip); the AUC, in the chart, is the area under its ROC curve over every threshold (0.5 is a coin "
        "flip). They differ by construction.",
    ),
    (
        "Attacks lp, dcr, exact, ml",
        "lp: linear reconstruction from counts of the synthetic data (a linear program); dcr: the secret of the "
        "closest synthetic record; exact: the secret of a synthetic record matching on every quasi-identifier; "
        "ml: a classifier trained on the synthetic data.",
    ),
    (
        "Reverse mapping, rank-based linkage, range narrowing",
        "Linking each original record to released records by the ranks of their values, then reading the range "
        "of the secret among the records it links to; a narrow, correct range discloses the secret.",
    ),
    (
        "Clopper-Pearson, Koopman score, Kish design effect",
        "Ways of forming an interval: exact for a share; for a ratio of two error rates; and counting records "
        "that share one nearest neighbour as fewer independent ones, which widens the interval honestly.",
    ),
    (
        "SURE's floor",
        "A peer tool (SURE) floors precision at 0.5, which makes the MI risk of a release with no leak positive; "
        "policycheck does not, so its expectation is 0.",
    ),
    (
        "Epsilon, delta (differential privacy)",
        "A synthesizer's declared privacy budget: smaller epsilon is more private. A membership test can show the "
        "true epsilon is larger than claimed (refute the claim); it cannot show it is smaller.",
    ),
)


class VerifyCommand(NamedTuple):
    """How to verify a report: where to run the command (said before it), and the command."""

    where: str
    command: str


def verify_command(report: dict[str, Any]) -> VerifyCommand:
    """The ``policycheck verify`` command that works for ``report``, from where it was written and what it names.

    The report's paths start from the folder the check ran in, and verify reads
    them from ``--root`` (default: the report's own folder); files it names
    outside that folder (absolute paths) are read only with ``--show-external``.
    """
    prov = report["provenance"]
    out = prov.get("output_folder")
    named = [
        *(f["path"] for f in prov.get("policy_files") or []),
        *(f["path"] for f in prov.get("data_files") or []),
        *(f["path"] for f in prov.get("referenced_files") or []),
        *(f["path"] for f in (prov.get("manifest"), prov.get("metadata")) if f),
    ]
    flag = " --show-external" if any(PurePath(p).is_absolute() for p in named) else ""
    notes = []
    if flag:
        notes.append("--show-external reads the files it names outside that folder")
    if "synthesizer_files" in prov:
        notes.append(
            "add --manifest MANIFEST, a manifest you trust, and --run-synthesizer to re-run the rules "
            "that ran the release's synthesizer command"
        )
    if out is None:
        where = f"run with --root naming the folder the check ran in ({prov['working_directory']} there)"
        command = f"policycheck verify PATH/report.json --root DIR{flag}"
    elif PurePath(out).is_absolute():
        where = "run with --root naming the folder the check ran in (wherever it is now)"
        report_path = shlex.quote(str(PurePath(out) / "report.json"))
        command = f"policycheck verify {report_path} --root {shlex.quote(prov['working_directory'])}{flag}"
    elif PurePath(out) == PurePath("."):
        where = "run in the folder the check ran in"
        command = f"policycheck verify report.json{flag}"
    else:
        where = "run in the folder the check ran in"
        command = f"policycheck verify {shlex.quote((PurePath(out) / 'report.json').as_posix())} --root .{flag}"
    return VerifyCommand(where + "".join(f"; {n}" for n in notes), command)
