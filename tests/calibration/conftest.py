"""One CI sweep for every calibration test module (calibration.run.CI: the releases with a target, 10 seeds)."""

import pytest


@pytest.fixture(scope="session")
def ci_sweep():
    from calibration.run import CI, run_sweep

    return run_sweep(CI, workers=2, log=lambda message: None)
