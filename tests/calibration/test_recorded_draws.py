"""The calibration sweep replays pac-synth's recorded draws, so its numbers repeat (calibration/recorded_draws.py)."""

import pandas as pd
import pytest

from calibration import recorded_draws, synthesizers
from calibration.datasets import DATASETS
from calibration.releases import BY_NAME, make_release
from calibration.run import CI

pytestmark = pytest.mark.calibration

pytest.importorskip("pacsynth", reason="needs the calibration extra: pip install -e '.[test,calibration]'")

PAC_SYNTH_IN_CI = [r for r in CI.releases if r.startswith("pacsynth")]


def _no_fit(*args, **kwargs):
    raise AssertionError("pac-synth was fitted: no recorded draw for this release")


@pytest.mark.parametrize("dataset", CI.datasets)
def test_every_pac_synth_release_of_the_ci_sweep_replays_a_recorded_draw(monkeypatch, dataset):
    monkeypatch.delenv(recorded_draws.MODE, raising=False)
    monkeypatch.setattr(synthesizers, "_fit_pac_synth", _no_fit)
    data = DATASETS[dataset](CI.rows)
    assert PAC_SYNTH_IN_CI
    for release in PAC_SYNTH_IN_CI:
        for seed in CI.seeds:
            first = make_release(BY_NAME[release], data, seed)
            pd.testing.assert_frame_equal(first, make_release(BY_NAME[release], data, seed))


def test_a_draw_is_keyed_by_the_table_epsilon_rows_and_seed():
    table = pd.DataFrame({"a": ["x", "y"], "b": ["bin00", ""]})
    key = recorded_draws.draw_key(table, 1.0, 2, 0)
    assert key.endswith("-eps1-n2-seed0.csv.gz")
    others = {
        recorded_draws.draw_key(table.assign(b=["bin01", ""]), 1.0, 2, 0),
        recorded_draws.draw_key(table, 4.0, 2, 0),
        recorded_draws.draw_key(table, 1.0, 3, 0),
        recorded_draws.draw_key(table, 1.0, 2, 1),
    }
    assert key not in others and len(others) == 4


def test_recording_writes_a_draw_that_replays_as_the_strings_pac_synth_returned(monkeypatch, tmp_path):
    monkeypatch.setattr(recorded_draws, "DRAWS", tmp_path)
    table = pd.DataFrame({"a": ["x", "y"]})
    drawn = pd.DataFrame({"a": ["x", ""], "b": ["bin07", "NA"]})
    monkeypatch.setenv(recorded_draws.MODE, "record")
    recorded_draws.pac_synth_sample(table, 1.0, 2, 0, lambda: drawn)
    monkeypatch.setenv(recorded_draws.MODE, "replay")
    replayed = recorded_draws.pac_synth_sample(table, 1.0, 2, 0, lambda: pytest.fail("drawn again"))
    pd.testing.assert_frame_equal(replayed, drawn)


def test_a_fresh_draw_records_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(recorded_draws, "DRAWS", tmp_path)
    monkeypatch.setenv(recorded_draws.MODE, "fresh")
    recorded_draws.pac_synth_sample(pd.DataFrame({"a": ["x"]}), 1.0, 1, 0, lambda: pd.DataFrame({"a": ["x"]}))
    assert not list(tmp_path.iterdir())
