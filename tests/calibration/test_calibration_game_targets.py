"""Issue 22's targets for the membership game on the CI sweep (calibration.run.CI, calibration/game.py).

On Adult and on the flchain patients, the game fails the bootstrap and refutes the noise-free indhist's
claim of epsilon 1 on at least 95% of seeds, and it does not fail indhist_dp at epsilon 1; on Adult it does
not fail the Gaussian copula either (on flchain it fails it on some seeds: calibration.run.NOTES).
docs/calibration.md publishes the full sweep's figures beside every membership rule.
"""

import pytest

from calibration.game import GAME_TARGETS
from calibration.run import CI, SAFE_SHARE, game_targets

pytestmark = pytest.mark.calibration

for _module in ("copulas", "DataSynthesizer", "pacsynth"):
    pytest.importorskip(_module, reason="needs the calibration extra: pip install -e '.[test,calibration]'")


@pytest.fixture(scope="module")
def sweep():
    from ci_sweep import ci_results

    return ci_results()


@pytest.mark.parametrize("dataset, release", sorted(GAME_TARGETS), ids=[f"{d}-{r}" for d, r in sorted(GAME_TARGETS)])
def test_the_game_meets_its_target_on_95_percent_of_seeds(sweep, dataset, release):
    target = game_targets(sweep, dataset, release)
    assert target["seeds"] == len(CI.seeds)
    assert target["met_seeds"] >= SAFE_SHARE * target["seeds"], target


def test_every_game_target_is_played_by_the_ci_sweep():
    assert {(d, r) for d, r, _ in CI.games} == set(GAME_TARGETS)
