"""The calibration sweep publishes what stopped a release instead of stopping itself."""

import pytest

from calibration import run
from calibration.datasets import adult
from calibration.releases import BY_NAME

pytestmark = pytest.mark.calibration


class _LibraryAbort(BaseException):
    """A library failure outside Exception, as pyo3 raises a Rust panic."""


def test_a_synthesizer_that_aborts_becomes_an_error_row(monkeypatch, tmp_path):
    def abort(kind, data, seed):
        raise _LibraryAbort("adding noise to number of records resulted in a negative number")

    monkeypatch.setattr(run, "make_release", abort)
    row = run.check_one(adult(50), BY_NAME["pacsynth-eps1"], seed=4, folder=tmp_path / "release")
    assert row["verdict"] == "error"
    assert row["error"] == "_LibraryAbort: adding noise to number of records resulted in a negative number"


def test_an_interrupt_still_stops_the_sweep(monkeypatch, tmp_path):
    def interrupt(kind, data, seed):
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "make_release", interrupt)
    with pytest.raises(KeyboardInterrupt):
        run.check_one(adult(50), BY_NAME["pacsynth-eps1"], seed=4, folder=tmp_path / "release")
