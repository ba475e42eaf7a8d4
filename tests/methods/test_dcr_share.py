"""Clusters of synthetic records that hang on the same real people (policycheck.methods.dcr_share)."""

import numpy as np

from policycheck.methods.dcr_share import shared_neighbour_clusters


def _groups(labels: np.ndarray) -> list[list[int]]:
    groups: dict[int, list[int]] = {}
    for record, label in enumerate(labels):
        groups.setdefault(int(label), []).append(record)
    return sorted(groups.values())


def test_records_sharing_one_nearest_person_are_one_cluster():
    # Records 0 and 1 share training record 0; records 1 and 2 share holdout record 6;
    # record 3 hangs on people no other record uses: two clusters, {0, 1, 2} and {3}.
    labels = shared_neighbour_clusters(np.array([0, 0, 1, 2]), np.array([5, 6, 6, 7]))
    assert _groups(labels) == [[0, 1, 2], [3]]


def test_records_with_distinct_nearest_people_are_each_their_own_cluster():
    labels = shared_neighbour_clusters(np.array([0, 1, 2]), np.array([0, 1, 2]))
    assert _groups(labels) == [[0], [1], [2]]


def test_a_training_and_a_holdout_record_with_the_same_index_are_different_people():
    # Training record 1 and holdout record 1 are not the same node.
    labels = shared_neighbour_clusters(np.array([1, 0]), np.array([0, 1]))
    assert _groups(labels) == [[0], [1]]
