"""`policycheck init --from-data`: from a user's own files to a policy and manifest that validate as
written, with placeholder levels said until chosen (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="policycheck")


@pytest.fixture
def files(tmp_path):
    """A 300-row survey split into training and holdout, with an id, a coded answer with a few words
    in it, and an independent-marginals synthetic set."""
    rng = np.random.default_rng(5)
    n = 300
    size = rng.integers(1, 7, n).astype(object)
    size[[4, 90]] = "7 or more"
    data = pd.DataFrame(
        {
            "respondent": np.arange(5000, 5000 + n),
            "age": rng.integers(18, 90, n),
            "household_size": size,
            "sex": rng.choice(["F", "M"], n),
        }
    )
    train, holdout = data.iloc[:200], data.iloc[200:]
    synthetic = pd.DataFrame({c: rng.choice(train[c].to_numpy(), 200) for c in ["age", "household_size", "sex"]})
    (tmp_path / "data").mkdir()
    train.to_csv(tmp_path / "data" / "train.csv", index=False)
    holdout.to_csv(tmp_path / "data" / "holdout.csv", index=False)
    synthetic.to_csv(tmp_path / "data" / "syn.csv", index=False)
    return tmp_path


def test_init_from_data_writes_a_manifest_with_every_column_settled(files):
    result = invoke(
        "init", "--from-data", "data/train.csv", "data/syn.csv", "--holdout", "data/holdout.csv", "--name", "survey"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "wrote survey.release.yaml: 4 columns (numeric 1, categorical 2, id 1)",
        "wrote survey.policy.yaml: its levels are placeholders; choose them for this release",
        "next: policycheck validate -r survey.release.yaml survey.policy.yaml",
    ]
    assert Path("survey.release.yaml").read_text() == (
        "# Release manifest written by `policycheck init --from-data`: the files of one release\n"
        "# and each column's role. Check it with:\n"
        "#     policycheck validate -r survey.release.yaml survey.policy.yaml\n"
        'release: {id: "survey"}\n'
        'original: "data/train.csv"\n'
        'holdout: "data/holdout.csv"               # real records the synthesizer never saw\n'
        "synthetic:\n"
        '  - path: "data/syn.csv"\n'
        '    name: "syn"\n'
        "    synthesizer: {name: unknown}   # its name and version; epsilon, delta if differentially private\n"
        "columns:                         # every column's role: change any that is wrong\n"
        "  respondent: id               # decided here: it looks like a record identifier\n"
        "  age: numeric                 # inferred from train.csv, holdout.csv, syn.csv\n"
        "  household_size: categorical  # decided here: numbers but for a few values, read as labels\n"
        "  sex: categorical             # inferred from train.csv, holdout.csv, syn.csv\n"
    )


def test_validate_accepts_what_init_from_data_wrote_and_notes_the_placeholder_levels(files):
    invoke("init", "--from-data", "data/train.csv", "data/syn.csv", "--holdout", "data/holdout.csv", "--name", "s")
    result = invoke("validate", "-r", "s.release.yaml", "s.policy.yaml")
    assert result.exit_code == 0, result.output
    assert result.stdout == "s.policy.yaml: ok (2 rules, attacker model no-box)\n"
    notes = [line for line in result.stderr.splitlines() if "placeholder" in line]
    assert notes == [
        "s.policy.yaml:47:5: note: rule 'dcr-share' keeps the placeholder level `policycheck init` wrote "
        "(fail_above 0.55): choose the level for this release, say why in its rationale and "
        "delete '(starter level)' there",
        "s.policy.yaml:56:5: note: rule 'mi-risk' keeps the placeholder level `policycheck init` wrote "
        "(fail_above 0.2, warn_above 0.1): choose the level for this release, say why in its rationale and "
        "delete '(starter level)' there",
    ]


def test_validate_notes_the_starter_owner_and_description_at_their_lines(files):
    invoke("init", "--from-data", "data/train.csv", "data/syn.csv", "--holdout", "data/holdout.csv", "--name", "s")
    result = invoke("validate", "s.policy.yaml")
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if "metadata" in line] == [
        "s.policy.yaml:20:3: note: metadata owner is still the text `policycheck init` wrote ('Privacy team'): "
        "write this policy's own owner",
        "s.policy.yaml:21:3: note: metadata description is still the text `policycheck init` wrote ('What the "
        "release is, who receives it, and why.'): write this policy's own description",
    ]


def test_the_report_warns_while_a_placeholder_level_is_unchanged_and_not_after(files):
    invoke("init", "--from-data", "data/train.csv", "data/syn.csv", "--holdout", "data/holdout.csv", "--name", "s")
    invoke("check", "s.policy.yaml", "-r", "s.release.yaml", "-o", "out", "-qq")
    findings = json.loads(Path("out/report.json").read_text())["release"]["findings"]
    assert [f for f in findings if f.startswith("policy: ")] == [
        "policy: metadata owner is still the text `policycheck init` wrote ('Privacy team'): write this "
        "policy's own owner",
        "policy: metadata description is still the text `policycheck init` wrote ('What the release is, who "
        "receives it, and why.'): write this policy's own description",
        "policy: rule 'dcr-share' keeps the placeholder level `policycheck init` wrote (fail_above 0.55): "
        "choose the level for this release, say why in its rationale and delete '(starter level)' there",
        "policy: rule 'mi-risk' keeps the placeholder level `policycheck init` wrote (fail_above 0.2, "
        "warn_above 0.1): choose the level for this release, say why in its rationale and delete "
        "'(starter level)' there",
    ]
    policy = Path("s.policy.yaml")
    policy.write_text(
        policy.read_text()
        .replace("(starter level) ", "")
        .replace("Privacy team", "Data protection office")
        .replace("What the release is, who receives it, and why.", "The 2026 survey extract for the ministry.")
    )
    invoke("check", "s.policy.yaml", "-r", "s.release.yaml", "-o", "out2", "-qq")
    findings = json.loads(Path("out2/report.json").read_text())["release"]["findings"]
    assert not [f for f in findings if f.startswith("policy: ")]


def test_without_a_holdout_the_starter_rule_needs_none(files):
    result = invoke("init", "--from-data", "data/train.csv", "data/syn.csv", "--name", "nohold", "-o", "cfg")
    assert result.exit_code == 0, result.output
    check = invoke("validate", "-r", "cfg/nohold.release.yaml", "cfg/nohold.policy.yaml")
    assert check.exit_code == 0, check.output
    assert check.stdout == "cfg/nohold.policy.yaml: ok (1 rule, attacker model no-box)\n"
    assert 'original: "../data/train.csv"' in Path("cfg/nohold.release.yaml").read_text()


def test_init_from_data_writes_the_population_into_the_manifest(files):
    survey = pd.concat([pd.read_csv(files / "data" / f) for f in ("train.csv", "holdout.csv")], ignore_index=True)
    census = pd.concat([survey, survey.head(100).assign(respondent=np.arange(9000, 9100))], ignore_index=True)
    census.to_csv(files / "data" / "census.csv", index=False)
    release_files = ("data/train.csv", "data/syn.csv", "--holdout", "data/holdout.csv")
    result = invoke(
        "init", "--from-data", *release_files, "--population", "data/census.csv", "--name", "survey", "-o", "cfg"
    )
    assert result.exit_code == 0, result.output
    manifest = Path("cfg/survey.release.yaml").read_text().splitlines()
    assert manifest[5:7] == [
        'holdout: "../data/holdout.csv"               # real records the synthesizer never saw',
        'population: "../data/census.csv"            # where the membership game draws its records from',
    ]
    assert "  sex: categorical             # inferred from train.csv, holdout.csv, syn.csv, census.csv" in manifest
    from policycheck.release.load import load_manifest

    release = load_manifest(Path("cfg/survey.release.yaml"))
    assert release.population is not None and release.population.n_rows == 400


def test_init_from_data_never_overwrites(files):
    Path("survey.release.yaml").write_text("keep me\n")
    result = invoke("init", "--from-data", "data/train.csv", "data/syn.csv", "--name", "survey")
    assert result.exit_code == 2
    assert result.stderr == ("error: survey.release.yaml: already exists; not overwritten (choose another --name)\n")
    assert Path("survey.release.yaml").read_text() == "keep me\n" and not Path("survey.policy.yaml").exists()


@pytest.mark.parametrize(
    ("args", "cause"),
    [
        (
            ("--from-data", "data/train.csv"),
            "--from-data needs at least one synthetic file after ORIGINAL (or --synthetic)",
        ),
        (
            ("--population", "data/train.csv"),
            "--synthetic, --holdout, --population, --name and --output go with --from-data",
        ),
    ],
    ids=["from-data without a synthetic set", "population without from-data"],
)
def test_a_misused_init_is_a_usage_error_naming_the_cause(files, args, cause):
    result = invoke("init", *args)
    assert result.exit_code == 2
    assert result.stderr == f"error: usage: {cause} (see `policycheck init --help`)\n"


def survey_files(folder: Path, synthetic_rows: int) -> None:
    """Training, holdout and a synthetic set of ``synthetic_rows`` records under ``folder``/data."""
    rng = np.random.default_rng(7)
    (folder / "data").mkdir(exist_ok=True)
    for name, rows in (("train", 3000), ("holdout", 3000), ("syn", synthetic_rows)):
        frame = pd.DataFrame({"age": rng.integers(18, 90, rows), "sex": rng.choice(["F", "M"], rows)})
        frame.to_csv(folder / "data" / f"{name}.csv", index=False)


def starter_threshold_line(name: str) -> str:
    return next(
        line.strip() for line in Path(f"{name}.policy.yaml").read_text().splitlines() if "fail_above: 0.55" in line
    )


@pytest.mark.parametrize(
    ("rows", "line"),
    [
        # Clopper-Pearson at 1,000 of 2,000, 95%: beta.ppf(0.975, 1001, 1000) = 0.52215, so the interval of a
        # release with no leak reaches 0.022 past 0.5, beyond 0.52; the nearest hundredth it clears is 0.53.
        (
            2000,
            "threshold: {fail_above: 0.55, warn_above: 0.53}   # warn 0.53, not 0.52: 2,000 synthetic records "
            "resolve no closer to 0.5 than 0.022",
        ),
        # At 20,000: beta.ppf(0.975, 10001, 10000) = 0.50693, within 0.52: the starter's level stays.
        (20000, "threshold: {fail_above: 0.55, warn_above: 0.52}"),
        # At 200: beta.ppf(0.975, 101, 100) = 0.57134; 0.58 is past the fail level, so no warn level.
        (
            200,
            "threshold: {fail_above: 0.55}   # no warn level: 200 synthetic records resolve no closer to 0.5 than "
            "0.071, and 0.58 is not short of the fail level",
        ),
    ],
)
def test_init_from_data_moves_a_warn_level_the_sample_cannot_resolve(tmp_path, monkeypatch, rows, line):
    from scipy.stats import beta

    survey_files(tmp_path, rows)
    monkeypatch.chdir(tmp_path)
    half = beta.ppf(0.975, rows // 2 + 1, rows // 2) - 0.5  # the bound the comment states, computed apart
    assert f"{half:.3f}" in line or "warn_above: 0.52}" in line
    result = invoke(
        "init", "--from-data", "data/train.csv", "data/syn.csv", "--holdout", "data/holdout.csv", "--name", "s"
    )
    assert result.exit_code == 0, result.output
    assert starter_threshold_line("s") == line
    notes = invoke("validate", "-r", "s.release.yaml", "s.policy.yaml").stderr
    assert "rule 'dcr-share': the warn level" not in notes


def test_init_from_data_refuses_an_infinite_value_rather_than_declaring_the_column_categorical(files):
    syn = pd.read_csv(files / "data" / "syn.csv")
    syn["age"] = syn["age"].astype(float)
    syn.loc[3, "age"] = float("inf")
    syn.to_csv(files / "data" / "syn.csv", index=False)
    result = invoke("init", "--from-data", "data/train.csv", "data/syn.csv", "--name", "survey")
    assert result.exit_code == 2
    assert "error: data/syn.csv: column 'age' holds an infinite value at row 5" in result.stderr
    assert not (files / "survey.release.yaml").exists()
