"""One CI sweep for every calibration test module (calibration.run.CI: the releases with a target, 10 seeds).

A helper module, not a conftest.py: one here would shadow tests/conftest.py, which other tests
import by name. The sweep runs once per test process, whichever module asks first.
"""

from functools import cache


@cache
def ci_results() -> list[dict]:
    from calibration.run import CI, run_sweep

    return run_sweep(CI, workers=2, log=lambda message: None)
