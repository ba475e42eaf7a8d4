"""TCAP (numbers by hand in cases/tcap.yaml); here what the cases cannot show."""

import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from tests.metrics.synthpop.example import evaluate


def test_tcap_is_undefined_when_no_key_that_fixes_the_target_occurs_in_the_synthetic_data():
    # Only (M, 50) leaves the target open in the original, and it is the only key the synthetic data holds.
    synthetic = pd.DataFrame({"sex": ["M"], "age": [50], "income": ["hi"]})
    with pytest.raises(EvaluationError, match="TCAP is undefined"):
        evaluate("tcap", synthetic=synthetic)
