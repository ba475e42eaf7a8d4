"""pc.Release shows which role each column got and why, as docs/release-manifest.md says, without
letting the caller change them."""

from __future__ import annotations

import pandas as pd

import policycheck as pc


def tiny_release() -> pc.Release:
    original = pd.DataFrame(
        {
            "seqn": [11, 12, 13, 14, 15, 16],
            "age": [30, 41, 52, 63, 35, 47],
            "sex": ["F", "M", "F", "M", "F", "M"],
            "visit": ["2024-01-02", "2024-02-03", "2024-03-04", "2024-04-05", "2024-05-06", "2024-06-07"],
            "note": ["a", "b", "c", "d", "e", "f"],
        }
    )
    synthetic = original.drop(columns=["seqn", "note"]).iloc[::-1]
    return pc.Release(original=original, synthetic=[synthetic], columns={"seqn": "id", "note": "ignore"})


def test_roles_name_every_input_column_in_file_order():
    assert tiny_release().roles == {
        "seqn": "id",
        "age": "numeric",
        "sex": "categorical",
        "visit": "datetime",
        "note": "ignore",
    }


def test_role_sources_say_what_was_declared_and_what_was_inferred():
    inferred = "inferred from original (DataFrame), synthetic[0] (DataFrame)"
    assert tiny_release().role_sources == {
        "seqn": "columns= (API)",
        "note": "columns= (API)",
        "age": inferred,
        "sex": inferred,
        "visit": inferred,
    }


def test_roles_and_sources_are_copies():
    release = tiny_release()
    release.roles["age"] = "id"
    release.role_sources["age"] = "edited"
    assert release.roles["age"] == "numeric"
    assert release.role_sources["age"].startswith("inferred from")
