"""The releases the calibration suite checks are what they claim to be."""

import numpy as np
import pandas as pd
import pytest

from calibration import synthesizers
from calibration.datasets import adult, anes96, flchain, from_days, randhie, to_days
from calibration.releases import BY_NAME, make_release

pytestmark = pytest.mark.calibration

# The real synthesizers come with the `calibration` extra: pip install -e '.[test,calibration]'.
for _module in ("copulas", "DataSynthesizer", "pacsynth"):
    pytest.importorskip(_module, reason="needs the calibration extra: pip install -e '.[test,calibration]'")


@pytest.fixture(scope="module")
def data():
    return adult(300)


def _as_text(frame):
    """Every value as text, a missing one as "<NA>" (pandas 3 keeps NaN through ``astype(str)``)."""
    return frame.astype(object).where(frame.notna(), "<NA>").astype(str)


def _modelled(data):
    frame = data.training[data.analysed].copy()
    frame[data.date_column] = to_days(frame[data.date_column])
    return frame


def test_the_copy_holds_every_training_record_once_under_a_new_id(data):
    copy = make_release(BY_NAME["copy-new-id"], data, seed=3)
    assert set(copy[data.id_column]).isdisjoint(data.training[data.id_column])
    as_rows = lambda f: sorted(map(tuple, _as_text(f[data.analysed]).to_numpy()))  # noqa: E731
    assert as_rows(copy) == as_rows(data.training)


def test_the_jitter_is_one_percent_of_each_numeric_range(data):
    frame = _modelled(data)
    seed = 5
    copy = BY_NAME["copy-new-id"].make(data, frame, seed)
    jittered = BY_NAME["jitter-1pct"].make(data, frame, seed)
    for col in data.numeric:
        noise = (jittered[col] - copy[col]) / (frame[col].max() - frame[col].min())
        # sd of 300 draws of N(0, 0.01^2): 0.01 within a few standard errors (0.01 / sqrt(600) = 0.0004)
        assert abs(noise.std() - 0.01) < 0.0015
    cats = list(data.categorical)
    assert (_as_text(jittered[cats]) == _as_text(copy[cats])).all().all()


def test_the_mixed_release_has_exactly_twenty_percent_training_rows():
    data = randhie(500)
    frame = _modelled(data)
    mixed = BY_NAME["copied-20pct"].make(data, frame, 11)
    safe = synthesizers.independent_marginals(frame, data.categorical, len(frame), 11)
    changed = (mixed.astype(str) != safe.astype(str)).any(axis=1)
    # 100 slots overwritten; a slot whose safe row equals the copied row would not show (none here)
    assert changed.sum() == 100
    training = set(map(tuple, frame.astype(str).to_numpy()))
    assert all(tuple(r) in training for r in mixed[changed].astype(str).to_numpy())


@pytest.mark.parametrize("name", ["copula", "privbayes-eps1"])
def test_a_synthesizer_gives_the_same_rows_at_the_same_seed(name, data):
    kind = BY_NAME[name]
    first, again, other = (make_release(kind, data, s) for s in (7, 7, 8))
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)


def test_privbayes_releases_only_values_of_the_training_domain(data):
    rows = make_release(BY_NAME["privbayes-eps1"], data, 2)
    for col in data.categorical:
        assert set(rows[col].dropna()) <= set(data.training[col].dropna())
    for col in data.integer:
        assert rows[col].between(data.training[col].min(), data.training[col].max()).all()


def test_pac_synth_declares_its_default_delta():
    # pac-synth's default delta is 1 / (ln(n) n): for n = 1000, 1 / (6.9078 * 1000)
    assert synthesizers.pac_synth_delta(1000) == pytest.approx(1.0 / (np.log(1000) * 1000))
    assert synthesizers.pac_synth_delta(1000) == pytest.approx(1.4476e-4, rel=1e-4)


class _Panic(BaseException):
    """Stands for pyo3's PanicException: a BaseException, recognised by its name."""


_Panic.__name__ = "PanicException"


class _FakePacSynth:
    """A pac-synth whose first ``panics`` fits abort as the library's panic does."""

    def __init__(self, panics):
        self.panics, self.fits = panics, 0
        fake = self

        class Synthesizer:
            def __init__(self, params):
                pass

            def fit(self, dataset):
                fake.fits += 1
                if fake.fits <= fake.panics:
                    raise _Panic("adding noise to number of records resulted in a negative number")

        self.DpAggregateSeededSynthesizer = Synthesizer


def test_a_pac_synth_fit_the_library_aborts_is_drawn_again():
    fake = _FakePacSynth(panics=2)
    synthesizers._fit_pac_synth(fake, params=None, dataset=None)
    assert fake.fits == 3


def test_pac_synth_panicking_on_every_attempt_is_reported_as_an_error_a_worker_can_send_back():
    fake = _FakePacSynth(panics=synthesizers.PAC_FIT_ATTEMPTS)
    with pytest.raises(RuntimeError, match="panicked on 5 fits in a row: adding noise"):
        synthesizers._fit_pac_synth(fake, params=None, dataset=None)
    assert fake.fits == 5


def test_the_coarse_sample_is_472_and_472_respondents_in_nine_columns_without_a_date():
    # calibration/data/README.md: all 944 respondents of statsmodels' ANES 1996 extract, split in halves.
    data = anes96(1000)
    assert (len(data.training), len(data.holdout), data.date_column) == (472, 472, None)
    assert data.analysed == ["age", "TVnews", "PID", "educ", "income", "selfLR", "ClinLR", "DoleLR", "vote"]
    assert sorted(data.training["vote"].unique()) == ["Clinton", "Dole"]
    copy = make_release(BY_NAME["copy-new-id"], data, seed=1)
    as_rows = lambda f: sorted(map(tuple, _as_text(f[data.analysed]).to_numpy()))  # noqa: E731
    assert as_rows(copy) == as_rows(data.training)


def test_the_hospital_records_are_two_halves_of_flchain_with_its_missing_values():
    # calibration/data/README.md: R's survival::flchain, 7,874 patients, split in two seeded halves of 3,937.
    data = flchain(5000)
    assert (len(data.training), len(data.holdout), data.date_column) == (3937, 3937, None)
    both = pd.concat([data.training, data.holdout])
    assert both["patient_id"].is_unique
    # The study's own counts: creatinine missing for 1,350 patients, a cause of death for the 2,169 who died.
    assert both["creatinine"].isna().sum() == 1350
    assert (both["death"] == "yes").sum() == both["chapter"].notna().sum() == 2169
    copy = make_release(BY_NAME["copy-new-id"], flchain(1000), seed=1)
    assert copy["creatinine"].isna().sum() == flchain(1000).training["creatinine"].isna().sum()


def test_days_go_back_to_iso_dates_and_missing_days_stay_missing():
    days = pd.Series([0.0, 1.4, np.nan, 19_723.0])
    assert from_days(days).tolist() == ["1970-01-01", "1970-01-02", None, "2024-01-01"]
    assert from_days(pd.Series([np.nan, np.nan])).tolist() == [None, None]  # pac-synth's empty dates
