"""A release's ``population:``: the records the membership game draws its training sets and targets from."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

import policycheck as pc
from policycheck.interfaces.cli import cli
from tests.metrics.membership.game_release import COLUMNS, game_data

POLICY = """\
metadata: {id: population-game, title: game, version: "1", owner: tests}
attacker: {model: maximum-knowledge}
seed: 3
rules:
  - id: game
    metric: membership_inference_advantage
    params: {synthesizer: release, repetitions: 20, targets: {vulnerable: 2, rare: 0, random: 1}, sample_size: 150}
    threshold: {fail_above: 0.2}
"""


def census() -> pd.DataFrame:
    """400 Adult records none of which is a training or holdout record of game_data (rows 1000-1399)."""
    from policycheck.interfaces.demo import TRAINING

    return pd.read_csv(TRAINING, keep_default_na=False, na_values=[""])[COLUMNS].iloc[1000:1400]


def game_rule(tmp_path, population: pd.DataFrame | None) -> dict:
    training, holdout = game_data()
    release = pc.Release(
        original=training,
        synthetic=[training],
        holdout=holdout,
        synthesizer={"name": "nonprivate", "builtin": "nonprivate"},
        population=population,
    )
    (tmp_path / "p.yaml").write_text(POLICY)
    report = pc.check(tmp_path / "p.yaml", release, executor="serial")
    return next(r for r in report.to_dict()["rules"] if r["id"] == "game")


def test_the_game_draws_its_targets_from_the_population_the_release_names(tmp_path):
    rule = game_rule(tmp_path, census())
    assert rule["details"]["game"]["population"] == 400
    assert rule["details"]["game"]["population_source"] == "population (DataFrame)"
    assert {t["record"].rsplit(" ", 1)[0] for t in rule["details"]["targets"]} == {"population record"}
    assert "population" in rule["inputs"]


def test_a_targets_other_records_leave_the_pool_where_the_id_column_names_people(tmp_path):
    # 200 "people" of two records each: a target's other record would train the synthesizer in the rounds
    # without the target's coin, and hide it.
    people = census().assign(person=[f"P{i // 2}" for i in range(400)])
    training, holdout = game_data()
    release = pc.Release(
        original=training.assign(person=[f"T{i}" for i in range(300)]),
        synthetic=[training],
        holdout=holdout.assign(person=[f"H{i}" for i in range(300)]),
        synthesizer={"name": "nonprivate", "builtin": "nonprivate"},
        population=people,
        columns={"person": "id"},
    )
    (tmp_path / "p.yaml").write_text(POLICY)
    report = pc.check(tmp_path / "p.yaml", release, executor="serial")
    rule = next(r for r in report.to_dict()["rules"] if r["id"] == "game")
    targets = {t["record"]: t["target"] for t in rule["details"]["targets"]}  # a target is named by its id
    # Three targets of three people (record N belongs to person (N - 1) // 2): each leaves one other record.
    assert targets == {
        "population record 305": "P152",
        "population record 375": "P187",
        "population record 28": "P13",
    }
    game = rule["details"]["game"]
    assert (game["population"], game["same_person_left_out"]) == (400, 3)
    assert (
        "Id column 'person' names people (its ids repeat): the targets are distinct people, and their 3 other records "
        "left the pool with them, so no round trains the synthesizer on a target's person without the target's coin."
    ) in game["notes"]


def test_record_numbers_in_the_id_column_leave_nothing_but_the_targets_out_of_the_pool(tmp_path):
    training, holdout = game_data()
    numbered = [frame.assign(row=range(1, 301)) for frame in (training, holdout)]  # both files numbered from 1
    release = pc.Release(
        original=numbered[0],
        synthetic=[training],
        holdout=numbered[1],
        synthesizer={"name": "nonprivate", "builtin": "nonprivate"},
        columns={"row": "id"},
    )
    (tmp_path / "p.yaml").write_text(POLICY)
    report = pc.check(tmp_path / "p.yaml", release, executor="serial")
    game = next(r for r in report.to_dict()["rules"] if r["id"] == "game")["details"]["game"]
    assert (game["population"], game["same_person_left_out"]) == (600, 0)


def test_without_a_population_the_game_draws_from_the_original_and_holdout_records(tmp_path):
    rule = game_rule(tmp_path, None)
    assert rule["details"]["game"]["population"] == 600  # 300 + 300
    assert rule["details"]["game"]["population_source"] == "original and holdout records"
    assert "population" not in rule["inputs"]


def test_a_population_without_the_originals_columns_is_refused_naming_the_file(tmp_path):
    training, holdout = game_data()
    with pytest.raises(pc.InputError, match=r"population \(DataFrame\): columns differ from the original: missing"):
        pc.Release(original=training, synthetic=[training], holdout=holdout, population=census().drop(columns="age"))


def test_population_and_a_manifest_on_one_command_line_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(
        cli, ["validate", "p.yaml", "-r", "release.yaml", "--population", "census.csv"], prog_name="policycheck"
    )
    assert result.exit_code == 2
    assert "give either --release or --original/--synthetic/--holdout/--population, not both" in result.stderr


def test_verify_rereads_the_population_of_a_release_given_by_files(tmp_path, monkeypatch):
    training, holdout = game_data()
    monkeypatch.chdir(tmp_path)
    training.to_csv("train.csv", index=False)
    holdout.to_csv("holdout.csv", index=False)
    census().to_csv("census.csv", index=False)
    (tmp_path / "p.yaml").write_text(POLICY.replace("synthesizer: release", "synthesizer: nonprivate"))
    files = ["--original", "train.csv", "--synthetic", "train.csv", "--holdout", "holdout.csv"]
    result = CliRunner().invoke(
        cli, ["check", "p.yaml", *files, "--population", "census.csv", "-o", "out", "-qq"], prog_name="policycheck"
    )
    assert result.exit_code in (0, 1), result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [d["role"] for d in report["release"]["datasets"]] == ["original", "synthetic", "holdout", "population"]
    assert "census.csv" in [f["path"] for f in report["provenance"]["data_files"]]
    game = next(r for r in report["rules"] if r["id"] == "game")
    assert game["details"]["game"]["population_source"] == "population file census.csv"
    verified = CliRunner().invoke(cli, ["verify", "out/report.json", "--root", "."], prog_name="policycheck")
    assert verified.exit_code == 0, verified.output
    assert "identical verdicts and numbers" in verified.output
