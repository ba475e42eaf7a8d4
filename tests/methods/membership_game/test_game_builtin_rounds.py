"""A built-in synthesizer's rounds on the encoded records: the features its DataFrames give, bit for bit."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from policycheck.interfaces.demo import TRAINING
from policycheck.methods.gower import fit_gower
from policycheck.methods.membership_game.builtin_rounds import encode_records
from policycheck.methods.membership_game.features import FeatureSpace
from policycheck.methods.membership_game.rounds import GameSetup, play_round
from policycheck.methods.membership_game.synthesizer_spec import SynthesizerSpec
from policycheck.release.model import ColumnType

TYPES = {
    "age": ColumnType.NUMERIC,
    "workclass": ColumnType.CATEGORICAL,
    "education": ColumnType.CATEGORICAL,
    "hours_per_week": ColumnType.NUMERIC,
    "sex": ColumnType.CATEGORICAL,
}
TARGETS = 6


def population() -> pd.DataFrame:
    """400 demo records, with missing values in a numeric and a categorical column."""
    frame = pd.read_csv(TRAINING, keep_default_na=False, na_values=[""])[list(TYPES)].head(400).copy()
    rng = np.random.default_rng(0)
    frame.loc[rng.random(len(frame)) < 0.1, "age"] = np.nan
    frame["workclass"] = frame["workclass"].astype(object).where(rng.random(len(frame)) >= 0.1, None)
    return frame


def setup_for(spec_of, frame: pd.DataFrame | None = None) -> GameSetup:
    frame = population() if frame is None else frame
    enc = fit_gower([frame], TYPES, {}, list(TYPES))
    encoded = enc.encode(frame)
    space = FeatureSpace(enc, encoded[:TARGETS], np.zeros(TARGETS, dtype=np.int64))
    pool, targets = frame.iloc[TARGETS:].reset_index(drop=True), frame.iloc[:TARGETS].reset_index(drop=True)
    spec = spec_of({c: list(dict.fromkeys(frame[c].tolist())) for c in frame.columns})
    return GameSetup(
        pool, targets, space, spec, 200, 300, encode_records(space, pool, targets, encoded[TARGETS:], spec)
    )


SPECS = {
    "nonprivate": lambda domain: SynthesizerSpec("builtin", "nonprivate"),
    "indhist": lambda domain: SynthesizerSpec("builtin", "indhist"),
    "indhist_dp": lambda domain: SynthesizerSpec("builtin", "indhist_dp", epsilon=1.0, domain=domain),
}


@pytest.mark.parametrize("name", list(SPECS))
def test_a_builtin_round_on_the_encoded_records_equals_the_round_on_its_dataframes(name):
    setup = setup_for(SPECS[name])
    assert setup.encoded is not None
    on_frames = dataclasses.replace(setup, encoded=None)
    for seed in range(5):
        a = play_round((setup, np.random.SeedSequence([3, seed])))
        b = play_round((on_frames, np.random.SeedSequence([3, seed])))
        assert a.coins.tolist() == b.coins.tolist()
        assert np.array_equal(a.features, b.features)
        assert np.array_equal(a.naive, b.naive)


def test_a_synthesizer_that_is_not_a_builtin_runs_on_dataframes():
    assert setup_for(lambda domain: SynthesizerSpec("command", "mine", command="synth {input}")).encoded is None


def test_indhist_dp_without_a_domain_or_an_epsilon_runs_on_dataframes():
    # Without a domain its bins are each training set's own values; without epsilon its round refuses.
    assert setup_for(lambda domain: SynthesizerSpec("builtin", "indhist_dp", epsilon=1.0)).encoded is None
    assert setup_for(lambda domain: SynthesizerSpec("builtin", "indhist_dp", domain=domain)).encoded is None


def test_indhist_dp_whose_domain_lacks_a_records_value_runs_on_dataframes():
    def lacking(domain):
        return SynthesizerSpec("builtin", "indhist_dp", epsilon=1.0, domain={**domain, "sex": ["Male"]})

    assert setup_for(lacking).encoded is None
