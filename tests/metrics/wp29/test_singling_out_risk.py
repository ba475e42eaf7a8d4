"""singling_out_risk through the registry (its known answers, from anonymeter, are in cases/singling_out_risk.yaml)."""

from tests.metrics.wp29.releases import ORIGINAL, evaluate


def test_same_seed_same_numbers():
    a = evaluate("singling_out_risk", ORIGINAL.copy(), n_attacks=100, n_cols=2)
    b = evaluate("singling_out_risk", ORIGINAL.copy(), n_attacks=100, n_cols=2)
    assert a.value == b.value and a.details == b.details


def test_fewer_predicates_than_requested_are_noted_and_the_rates_divide_by_those_made():
    # Univariate predicates of 400 records of four columns run out long before 100,000.
    result = evaluate("singling_out_risk", ORIGINAL.copy(), mode="univariate", n_attacks=100_000)
    row = result.details.per_set[0]
    assert row.attacks < 100_000 and row.predicates_requested == 100_000
    assert result.sample_size == row.attacks
    assert any(f"Only {row.attacks} of the 100000 requested univariate predicates" in note for note in result.notes)
