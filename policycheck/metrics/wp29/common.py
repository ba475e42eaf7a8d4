"""What the three Article 29 rules register alike: family, inputs, value range, references, anonymeter conventions."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from policycheck.metrics.registry import Convention, metric
from policycheck.release.model import Release

if TYPE_CHECKING:
    import pandas as pd

REFERENCES = (
    "Article 29 Data Protection Working Party, Opinion 05/2014 on Anonymisation Techniques (WP216), sec. 2.2.",
    "M. Giomi, F. Boenisch, C. Wehmeyer, B. Tasnádi: A Unified Framework for Quantifying Privacy Risk in "
    "Synthetic Data, PETS 2023 (anonymeter 1.1).",
    "CNIL, opinion on anonymeter (2023).",
)

wp29_metric = partial(
    metric,
    family="wp29",
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    value_range=(0.0, 1.0),
    references=REFERENCES,
)

# The methods section (registry.Method); where we differ from anonymeter 1.1 (docs/peer-measures.md).
ANONYMETER = "anonymeter 1.1"
SEEDED_TARGETS = Convention(
    topic="seeding",
    peer=ANONYMETER,
    theirs="linkability and inference targets drawn with DataFrame.sample() unseeded: reruns differ",
    ours="every draw from the run's seed: same inputs and seed, same numbers",
)
ANONYMETER_DISTANCE = Convention(
    topic="distance",
    peer=ANONYMETER,
    theirs="sum over columns, ranges over the synthetic set and the targets, two missing values a mismatch",
    ours="Gower: mean over columns, ranges over every set, two missing values match; exact search",
)


def frames(release: Release) -> list[pd.DataFrame]:
    """Every set of the release, the holdout included: Gower's ranges span them all."""
    found = [release.original.frame, *(d.frame for d in release.synthetic)]
    if release.holdout is not None:
        found.append(release.holdout.frame)
    return found


def fewer_attacks_note(made: int, requested: int) -> list[str]:
    if made < requested:
        return [
            f"Only {made} records could be attacked (fewer original or holdout records than the {requested} requested)."
        ]
    return []
