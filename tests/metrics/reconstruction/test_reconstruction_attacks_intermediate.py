"""The shared run of every attack on every set (policycheck.metrics.reconstruction.reconstruction_attacks)."""

import numpy as np

from policycheck.core.errors import EvaluationError
from policycheck.methods.synthesizers import nonprivate
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, Need
from tests.metrics.reconstruction.releases import QIS, synthesized


def test_attacks_need_only_what_a_partially_informed_attacker_knows():
    for name in ("reconstruction_accuracy", "reconstruction_individual_risk", "attribute_inference_advantage"):
        spec = registry.get_metric(name)
        assert spec.knowledge == {Knowledge.ORIGINAL_QI, Knowledge.SYNTHETIC}
        assert spec.column_params == ("secret", "quasi_identifiers")


def test_a_batch_of_runs_gives_each_its_own_outcome_and_matches_single_runs():
    release = synthesized(nonprivate, holdout=False)
    ctx = EvaluationContext(release, AttackerView("partially-informed", QIS, ("sex",)), seed=0)
    request = {"secret": "sex", "quasi_identifiers": None, "attacks": ("lp", "exact")}
    original, control = registry.compute_intermediates(
        ctx,
        [
            Need.of("reconstruction_attacks", records="original", **request),
            Need.of("reconstruction_attacks", records="holdout", **request),
        ],
    )
    # No holdout: the control fails alone, the original records' run is the same as on its own.
    assert isinstance(control, EvaluationError) and "holdout" in str(control)
    alone = registry.compute_intermediate(ctx, Need.of("reconstruction_attacks", records="original", **request))
    for key, outcome in alone.outcomes.items():
        np.testing.assert_array_equal(original.outcomes[key].guess, outcome.guess)


def test_a_run_knows_the_person_of_each_attacked_record_where_an_id_column_names_people():
    import dataclasses

    import pandas as pd

    from tests.metrics.reconstruction.releases import hand_release

    release = hand_release()
    ids = pd.DataFrame({"nr": ["p", "p", "q", "q", "r", "r"]})
    held = pd.DataFrame({"nr": ["s", "t", "u", "v", "w", "x"]})
    release = dataclasses.replace(
        release,
        original=dataclasses.replace(release.original, id_frame=ids),
        holdout=dataclasses.replace(release.holdout, id_frame=held),
    )
    ctx = EvaluationContext(release, AttackerView("partially-informed", ("q",), ("s",)), seed=0)
    request = {"secret": "s", "quasi_identifiers": ("q",), "attacks": ("exact",)}
    run = registry.compute_intermediate(ctx, Need.of("reconstruction_attacks", records="original", **request))
    assert run.people.tolist() == [0, 0, 1, 1, 2, 2]
    # The copy reveals all six secrets: every cluster all right, so each of the 3 people is one trial.
    assert run.correct(0, "exact") == 6 and run.effective(0, "exact") == 3.0
    control = registry.compute_intermediate(ctx, Need.of("reconstruction_attacks", records="holdout", **request))
    assert control.effective(0, "exact") == 6.0  # one record a person
