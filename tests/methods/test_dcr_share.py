"""Clusters of synthetic records that hang on the same real person (policycheck.methods.dcr_share)."""

import numpy as np

from policycheck.methods.dcr_share import nearest_real_record


def _groups(labels: np.ndarray) -> list[list[int]]:
    groups: dict[int, list[int]] = {}
    for record, label in enumerate(labels):
        groups.setdefault(int(label), []).append(record)
    return sorted(groups.values())


def test_records_with_the_same_nearest_real_record_are_one_cluster():
    # Records 0 and 1 are closest to training record 0; record 2 shares training record 0 as
    # its nearest *training* record but sits closer to holdout record 6, whose set decides it.
    labels = nearest_real_record(
        np.array([0.1, 0.2, 0.5]), np.array([0.3, 0.4, 0.2]), np.array([0, 0, 0]), np.array([5, 6, 6])
    )
    assert _groups(labels) == [[0, 1], [2]]


def test_records_sharing_only_a_farther_neighbour_are_separate_clusters():
    # Both records have holdout record 4 as their nearest holdout record, but each is closer
    # to its own training record: two different people decide them.
    labels = nearest_real_record(np.array([0.1, 0.1]), np.array([0.3, 0.3]), np.array([1, 2]), np.array([4, 4]))
    assert _groups(labels) == [[0], [1]]


def test_a_training_and_a_holdout_record_with_the_same_index_are_different_people():
    # Record 0 is closest to training record 1, record 1 to holdout record 1: not the same node.
    labels = nearest_real_record(np.array([0.1, 0.5]), np.array([0.5, 0.1]), np.array([1, 0]), np.array([0, 1]))
    assert _groups(labels) == [[0], [1]]


def test_records_near_different_records_of_one_person_are_one_cluster_where_the_data_name_people():
    # Training records 0 and 1 are one man's two years (person 3), holdout record 0 another man (person 8):
    # records 0 and 1 hang on the same man, record 2 on the other.
    people = (np.array([3, 3, 5]), np.array([8]))
    labels = nearest_real_record(
        np.array([0.1, 0.1, 0.5]), np.array([0.3, 0.3, 0.1]), np.array([0, 1, 2]), np.array([0, 0, 0]), people
    )
    assert _groups(labels) == [[0, 1], [2]]
