"""Fuzzed policies through validate, plan and check (issue 16, items 6, 9 and the harness).

Three kinds of policy text: random YAML structures over the policy's
vocabulary, valid policies with a few random mutations (a key removed, a
value replaced, a rule duplicated, a metric renamed), and valid policy
text with random characters inserted, deleted or replaced. Each goes
through ``validate`` and ``plan`` against a tiny release; one that
validates and uses only cheap metrics also goes through ``check``. One
example in twenty puts a file that is no policy where the policy, the
manifest or ``.git/HEAD`` should be (a FIFO, /dev/zero, a socket, a folder,
a dangling link, a sparse file of 2 GB; issue 23). No input may end in an
internal error, hang or read beyond its cap (harness.run_cli), and every
error line names its file.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections import Counter

import pytest
from harness import (
    DEFAULT_EXAMPLES,
    FUZZ_EXAMPLES,
    SPECIAL,
    SUMMARY,
    check_contract,
    clear,
    collector,
    make_special,
    run_cli,
)
from hypothesis import given, settings
from hypothesis import strategies as st

COUNTS: Counter = Counter()
FAILURES: list = []
EXIT3: list = []
OFFENDERS: list = []
UNPOSITIONED: Counter = Counter()
collect = collector(COUNTS, FAILURES)

METRICS = [
    "exact_copy_share",
    "three_way_marginal_tvd",
    "three_way_marginal_mre",
    "dcr_share",
    "mi_risk",
    "dp_total_epsilon",
    "linkage_range_narrowing",
    "reconstruction_accuracy",
    "attribute_inference_advantage",
    "dp_transition_epsilon",
    "nonsense_metric",
]
#: Metrics cheap enough on ten rows to run ``check`` for every fuzzed policy that validates.
CHEAP = {"exact_copy_share", "three_way_marginal_tvd", "three_way_marginal_mre", "dcr_share", "dp_total_epsilon"}
KEYS = [
    "metadata",
    "attacker",
    "rules",
    "waivers",
    "seed",
    "confidence",
    "extends",
    "id",
    "title",
    "version",
    "owner",
    "description",
    "model",
    "quasi_identifiers",
    "secrets",
    "metric",
    "params",
    "threshold",
    "severity",
    "rationale",
    "enabled",
    "fail_above",
    "warn_above",
    "fail_below",
    "warn_below",
    "compare",
    "rule",
    "reason",
    "approved_by",
    "expires",
    "ticket",
    "delta",
    "ledger",
    "secret",
    "columns",
    "on_inconclusive",
]

VALID = {
    "metadata": {"id": "fuzz", "title": "Fuzz", "version": "1", "owner": "tests"},
    "attacker": {"model": "maximum-knowledge", "quasi_identifiers": ["age", "sex"], "secrets": ["income"]},
    "seed": 7,
    "confidence": 0.9,
    "rules": [
        {"id": "copies", "metric": "exact_copy_share", "threshold": {"fail_above": 0.5, "warn_above": 0.2}},
        {"id": "tvd", "metric": "three_way_marginal_tvd", "severity": "advisory", "threshold": {"fail_above": 0.9}},
        {"id": "eps", "metric": "dp_total_epsilon", "params": {"delta": 1e-5}, "threshold": {"fail_above": 5}},
    ],
    "waivers": [{"rule": "copies", "reason": "pilot", "approved_by": "DPO", "expires": "2099-01-31"}],
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(KEYS + METRICS),
    st.just("9" * 5000),
    st.just("2099-02-30"),
    st.just("x\ud83d"),
    st.just("a" * 5000),
    st.just("../../etc/passwd"),
    st.just("line\nbreak\x1b[31m"),
    st.just("2099-01-31"),
    st.sampled_from(["blocking", "advisory", "upper", "lower", "estimate", "no-box"]),
)
structures = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=5)
    ),
    max_leaves=25,
)


def to_text(doc, bare: bool) -> str:
    """JSON (which is YAML 1.2); with ``bare``, dates and digit strings unquoted so YAML types them."""
    text = json.dumps(doc, ensure_ascii=True)
    if bare:
        text = re.sub(r'"(\d{4}-\d{2}-\d{2}|\d{1,6000})"', r"\1", text)
    return text + "\n"


@st.composite
def mutated(draw):
    doc = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(doc))
        path = draw(st.sampled_from(paths))
        parent, key = _parent(doc, path)
        action = draw(st.sampled_from(["delete", "replace", "add", "metric", "duplicate", "number"]))
        if action == "delete" and path:
            del parent[key]
        elif action == "replace" and path:
            parent[key] = draw(structures)
        elif action == "add":
            node = parent[key] if path else doc
            if isinstance(node, dict):
                node[draw(st.sampled_from(KEYS) | st.text(max_size=6))] = draw(structures)
            elif isinstance(node, list):
                node.append(draw(structures))
        elif action == "metric" and isinstance(doc.get("rules"), list) and doc["rules"]:
            rule = draw(st.sampled_from(doc["rules"]))
            if isinstance(rule, dict):
                rule["metric"] = draw(st.sampled_from(METRICS))
        elif action == "duplicate" and isinstance(doc.get("rules"), list) and doc["rules"]:
            doc["rules"].append(copy.deepcopy(draw(st.sampled_from(doc["rules"]))))
        elif action == "number" and path:
            parent[key] = draw(st.floats(allow_nan=True) | st.integers(-(10**30), 10**30))
        if not isinstance(doc, dict):
            break
    return to_text(doc, draw(st.booleans()))


@st.composite
def garbled(draw):
    text = to_text(VALID, True) if draw(st.booleans()) else _yaml_text()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "truncate"]))
        piece = draw(st.text(alphabet="&*!?%:{}[],-#|>'\"\t\n \x00\x1b\u2028abc019", min_size=1, max_size=4))
        if action == "insert":
            text = text[:i] + piece + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + len(piece) :]
        elif action == "replace":
            text = text[:i] + piece + text[i + len(piece) :]
        else:
            text = text[:i]
    return text


def _yaml_text() -> str:
    return """\
metadata: {id: fuzz, title: Fuzz, version: "1", owner: tests}
attacker:
  model: maximum-knowledge
  quasi_identifiers: [age, sex]
  secrets: [income]
seed: 7
rules:
  - id: copies
    metric: exact_copy_share
    threshold: {fail_above: 0.5, warn_above: 0.2}
waivers:
  - {rule: copies, reason: pilot, approved_by: DPO, expires: 2099-01-31}
"""


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))


def _parent(doc, path):
    node = doc
    for part in path[:-1]:
        node = node[part]
    return node, (path[-1] if path else None)


policies = st.one_of(structures.map(lambda d: to_text(d, True)), mutated(), garbled())
#: Mostly None; one example in twenty gets a file that is no policy in place of one of its inputs.
specials = st.integers(0, 19).flatmap(
    lambda i: (
        st.none()
        if i
        else st.tuples(st.sampled_from(["p.yaml", "release.yaml", ".git/HEAD"]), st.sampled_from(SPECIAL))
    )
)


@pytest.fixture
def release(tmp_path):
    rows = ["age,sex,income"] + [f"{20 + 3 * i},{'MF'[i % 2]},{'<=50K' if i % 3 else '>50K'}" for i in range(12)]
    (tmp_path / "original.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "synthetic.csv").write_text("\n".join(rows[:1] + rows[1:7] * 2) + "\n")
    # Real records the synthesizer never saw: no holdout row equals a training row.
    holdout = ["age,sex,income"] + [f"{21 + 3 * i},{'FM'[i % 2]},{'<=50K' if i % 3 else '>50K'}" for i in range(12)]
    (tmp_path / "holdout.csv").write_text("\n".join(holdout) + "\n")
    (tmp_path / "release.yaml").write_text(MANIFEST)
    return tmp_path


FILES = ("p.yaml", "release.yaml", "original.csv", "synthetic.csv", "holdout.csv", "policycheck", ".git/HEAD")


#: An error line with a position: ``file:line:col: message``.
POSITIONED = re.compile(r"^(error: )?[^\s:][^:]*:\d+:\d+: \S")


def count_unpositioned(code: int, err: str) -> None:
    """Count exit-2 error lines that name their file but no line and column (issue 16, item 9)."""
    if code != 2:
        return
    for line in err.splitlines():
        if line and not SUMMARY.match(line) and not line.startswith("finding: "):
            COUNTS["error lines"] += 1
            if not POSITIONED.match(line):
                COUNTS["error lines without line:col"] += 1
                UNPOSITIONED[re.sub(r"'[^']*'|\d+", "_", line)[:120]] += 1


MANIFEST = (
    "release: {id: fuzz}\noriginal: original.csv\nholdout: holdout.csv\n"
    "synthetic:\n  - path: synthetic.csv\n    synthesizer: {name: copy, epsilon: 1.0, delta: 1e-6}\n"
)


def exercise(release, text: str, special=None) -> None:
    for name in ("p.yaml", ".git", "release.yaml"):  # whatever the last example put there
        clear(release / name)
    (release / "release.yaml").write_text(MANIFEST)
    (release / "p.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    if special is not None:
        target, kind = special
        if target == ".git/HEAD":
            (release / ".git").mkdir()
        make_special(kind, release / target)
        COUNTS[f"special {target}"] += 1
    COUNTS["policies"] += 1
    if COUNTS["policies"] % 50 == 0:
        flush()
    inputs = [release / n for n in ("p.yaml", "release.yaml", "original.csv", "synthetic.csv", "holdout.csv")]
    watch = {"inputs": inputs, "counts": COUNTS, "offenders": OFFENDERS}
    code, out, err = run_cli("validate", "p.yaml", **watch)
    check_contract(code, err, FILES)
    count_unpositioned(code, err)
    COUNTS[f"validate exit {code}"] += 1
    code, out, err = run_cli("plan", "p.yaml", "--json", **watch)
    check_contract(code, err, FILES)
    if code != 0:
        return
    # NOTE: loading the release costs most of an example: only policies valid on their own get it.
    code, _, err = run_cli("validate", "p.yaml", "-r", "release.yaml", **watch)
    check_contract(code, err, FILES)
    count_unpositioned(code, err)
    COUNTS[f"validate with release exit {code}"] += 1
    if code != 0:
        return
    try:
        doc = json.loads(out)
    except json.JSONDecodeError:
        raise AssertionError(f"plan --json printed no JSON: {out[:200]!r}") from None
    metrics = (
        {e["metric"] for e in doc.get("evaluators", doc.get("evaluations", []))} if isinstance(doc, dict) else set()
    )
    if not metrics <= CHEAP:
        return
    code, out, err = run_cli(
        "check", "p.yaml", "-r", "release.yaml", "-o", "out", "-q", "--executor", "serial", **watch
    )
    check_contract(code, err, FILES, allowed=(0, 1, 2, 3))
    COUNTS[f"check exit {code}"] += 1
    if code == 3:
        # An evaluator failed on a valid policy: keep what it said and the input, to tell
        # a true evaluator failure (exit 3 is right) from invalid input or a bug.
        EXIT3.append(
            {
                "errors": [line.strip() for line in out.splitlines() if line.strip().startswith("error")],
                "input": text[:4000],
            }
        )


@settings(max_examples=DEFAULT_EXAMPLES)
@given(text=policies, special=specials)
def test_fuzzed_policies_end_in_the_contract(release, text, special):
    exercise(release, text, special)


@pytest.mark.fuzz
@settings(max_examples=FUZZ_EXAMPLES, derandomize=False)
@given(text=policies, special=specials)
def test_many_fuzzed_policies_end_in_the_contract(release, text, special):
    collect(exercise, release, text, special)


def flush():
    """Write the counts so far (a long counting run can be read before it ends)."""
    if os.environ.get("POLICYCHECK_FUZZ_REPORT"):
        with open(f"{os.environ['POLICYCHECK_FUZZ_REPORT']}.policies.{os.getpid()}", "w") as fh:
            fh.write(
                json.dumps(
                    {
                        "suite": "policies",
                        **COUNTS,
                        "failures": FAILURES[:20],
                        "exit 3": EXIT3[:50],
                        "offenders": OFFENDERS[:20],
                        "without line:col": dict(UNPOSITIONED.most_common(30)),
                    }
                )
                + "\n"
            )


def teardown_module():
    flush()
