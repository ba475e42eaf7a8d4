"""distinct_rows gives NumPy's distinct rows, order and inverse included."""

import numpy as np
import pytest

from policycheck.methods.distinct_rows import distinct_rows


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.float32, np.uint64])
def test_distinct_rows_are_numpys_in_its_order(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, (5000, 5)).astype(dtype)
    rows, inverse = distinct_rows(a)
    expected, expected_inverse = np.unique(a, axis=0, return_inverse=True)
    assert np.array_equal(rows, expected) and np.array_equal(inverse, expected_inverse.ravel())


def test_rows_are_ordered_by_the_first_column_then_the_next():
    rows, inverse = distinct_rows(np.array([[2, 1], [1, 9], [2, 0], [1, 9]]))
    assert rows.tolist() == [[1, 9], [2, 0], [2, 1]] and inverse.tolist() == [2, 0, 1, 0]
