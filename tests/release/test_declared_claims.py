from policycheck.release.claims import Claim


def test_a_claim_is_written_as_report_json_always_wrote_it():
    assert (str(Claim.of_synthetic_set(0)), str(Claim.of_ledger("census-2024", 2))) == (
        "synthetic[0]:epsilon",
        "ledger:census-2024[2]:epsilon",
    )


def test_a_claim_names_itself_in_words():
    assert Claim.of_ledger("old", 1).words == "the epsilon claim of ledger:old[1]"


def test_two_claims_of_one_holder_and_quantity_are_one_key():
    assert {Claim.of_synthetic_set(3), Claim("synthetic[3]", "epsilon")} == {Claim.of_synthetic_set(3)}
