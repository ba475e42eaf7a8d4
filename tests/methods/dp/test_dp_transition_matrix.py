"""Transition-matrix audit: the paper's Figures 1-4 and the 0.0006 delta (paper 004, sec. 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from policycheck.execution.executor import SerialExecutor
from policycheck.methods.dp import matrix_audit as ma
from policycheck.methods.dp import matrix_families as mf
from policycheck.methods.dp import transition_matrix as tm

# Fig. 1: Pr[m | n, MD] for n = 5, k = 2, alpha = (0.5, 0.5); rows n1 = 0..5, columns m1 = 0..5.
FIG1 = [
    [0.647228, 0.294194, 0.053490, 0.004863, 0.000221, 0.000004],
    [0.237305, 0.395508, 0.263672, 0.087891, 0.014648, 0.000977],
    [0.067544, 0.241227, 0.344610, 0.246150, 0.087911, 0.012559],
    [0.012559, 0.087911, 0.246150, 0.344610, 0.241227, 0.067544],
    [0.000977, 0.014648, 0.087891, 0.263672, 0.395508, 0.237305],
    [0.000004, 0.000221, 0.004863, 0.053490, 0.294194, 0.647228],
]
# Fig. 2: |log ratio| of neighbouring rows of Fig. 1.
FIG2 = [
    [1.003353, 0.295930, 1.595212, 2.894495, 4.193778, 5.493061],
    [1.256572, 0.494432, 0.267708, 1.029848, 1.791988, 2.554128],
    [1.682361, 1.009417, 0.336472, 0.336472, 1.009417, 1.682361],
    [2.554128, 1.791988, 1.029848, 0.267708, 0.494432, 1.256572],
    [5.493061, 4.193778, 2.894495, 1.595212, 0.295930, 1.003353],
]
# Fig. 3: Pr[m | n, Lap] with epsilon = 2, total known.
FIG3 = [
    [0.816060, 0.159046, 0.021525, 0.002913, 0.000394, 0.000062],
    [0.183940, 0.632121, 0.159046, 0.021525, 0.002913, 0.000456],
    [0.024894, 0.159046, 0.632121, 0.159046, 0.021525, 0.003369],
    [0.003369, 0.021525, 0.159046, 0.632121, 0.159046, 0.024894],
    [0.000456, 0.002913, 0.021525, 0.159046, 0.632121, 0.183940],
    [0.000062, 0.000394, 0.002913, 0.021525, 0.159046, 0.816060],
]
# Fig. 4: |log ratio| of neighbouring rows of Fig. 3.
FIG4 = [
    [1.489880, 1.379885, 2.000000, 2.000000, 2.000000, 2.000000],
    [2.000000, 1.379885, 1.379885, 2.000000, 2.000000, 2.000000],
    [2.000000, 2.000000, 1.379885, 1.379885, 2.000000, 2.000000],
    [2.000000, 2.000000, 2.000000, 1.379885, 1.379885, 2.000000],
    [2.000000, 2.000000, 2.000000, 2.000000, 1.379885, 1.489880],
]


def _ratio_table(matrix: tm.TransitionMatrix) -> np.ndarray:
    first, second = ma.neighbour_pairs(matrix.tables)
    return np.abs(ma.log_ratios(matrix.probabilities[first], matrix.probabilities[second]))


def test_multinomial_dirichlet_reproduces_figure_1():
    md = mf.multinomial_dirichlet(5, [0.5, 0.5])
    np.testing.assert_array_equal(md.tables[:, 0], np.arange(6))
    np.testing.assert_allclose(np.round(md.probabilities, 6), FIG1, atol=0)


def test_multinomial_dirichlet_log_ratios_reproduce_figure_2():
    md = mf.multinomial_dirichlet(5, [0.5, 0.5])
    np.testing.assert_allclose(np.round(_ratio_table(md), 6), FIG2, atol=0)


def test_laplace_sanitizer_reproduces_figure_3():
    lap = mf.laplace_sanitizer(5, 2, epsilon=2.0)
    np.testing.assert_allclose(np.round(lap.probabilities, 6), FIG3, atol=0)


def test_laplace_sanitizer_log_ratios_reproduce_figure_4():
    lap = mf.laplace_sanitizer(5, 2, epsilon=2.0)
    np.testing.assert_allclose(np.round(_ratio_table(lap), 6), FIG4, atol=0)


def test_figure_1_delta_at_epsilon_2_is_the_papers_0_0006():
    # n ~ Binomial(5, 1/2): the eight offending cells' lower sides weigh
    # 2 * (1/32 * (0.004863 + 0.000221 + 0.000004) + 5/32 * 0.000977) = 0.000623.
    audit = ma.audit(mf.multinomial_dirichlet(5, [0.5, 0.5]), target_epsilon=2.0)
    assert round(audit.delta, 4) == 0.0006
    assert audit.delta == pytest.approx(0.00062316, abs=1e-8)


def test_figure_1_has_the_papers_eight_offending_cells():
    audit = ma.audit(mf.multinomial_dirichlet(5, [0.5, 0.5]), target_epsilon=2.0)
    cells = sorted((o.first, o.output) for o in audit.offending)
    assert cells == [(0, 3), (0, 4), (0, 5), (1, 5), (3, 0), (4, 0), (4, 1), (4, 2)]


def test_figure_1_epsilon_is_the_largest_log_ratio():
    audit = ma.audit(mf.multinomial_dirichlet(5, [0.5, 0.5]))
    # ln(0.000977 / 0.000004) in full precision: ln(Pr[m1=5 | n1=1] / Pr[m1=5 | n1=0]).
    expected = math.log((1.5 / 6) ** 5 / (0.5 / 6) ** 5)
    assert audit.epsilon == pytest.approx(expected, rel=1e-12)
    assert round(audit.epsilon, 6) == 5.493061


def test_laplace_sanitizer_is_exactly_2_dp_with_no_offending_output():
    audit = ma.audit(mf.laplace_sanitizer(5, 2, epsilon=2.0), target_epsilon=2.0)
    assert audit.epsilon == pytest.approx(2.0, abs=1e-12)
    assert audit.offending == ()
    assert audit.delta == 0.0


def test_any_offending_delta_counts_both_sides_of_each_cell():
    # Both rows of every offending cell, weighted by Binomial(5, 1/2).
    audit = ma.audit(mf.multinomial_dirichlet(5, [0.5, 0.5]), target_epsilon=2.0)
    p = np.array(FIG1)
    w = np.array([1, 5, 10, 10, 5, 1]) / 32
    cells = {(0, 3), (1, 3), (0, 4), (1, 4), (0, 5), (1, 5), (2, 5)}
    cells |= {(5 - r, 5 - c) for r, c in cells}
    expected = sum(w[r] * p[r, c] for r, c in cells)
    assert audit.delta_any_offending == pytest.approx(expected, abs=5e-6)


def test_uniform_table_weights_change_delta():
    md = mf.multinomial_dirichlet(5, [0.5, 0.5])
    audit = ma.audit(md, 2.0, table_weights=np.full(6, 1 / 6))
    p = np.array(FIG1)
    expected = 2 * (p[0, 3] + p[0, 4] + p[0, 5] + p[1, 5]) / 6
    assert audit.delta == pytest.approx(expected, abs=5e-6)


def test_neighbours_of_three_cell_tables_move_one_record():
    tables = tm.enumerate_tables(2, 3)
    first, second = ma.neighbour_pairs(tables)
    diffs = np.abs(tables[first] - tables[second]).sum(axis=1)
    assert set(diffs.tolist()) == {2}
    # Brute force over all pairs agrees.
    brute = {
        (a, b)
        for a in range(len(tables))
        for b in range(a + 1, len(tables))
        if np.abs(tables[a] - tables[b]).sum() == 2
    }
    assert set(zip(first.tolist(), second.tolist(), strict=False)) == brute


def test_enumerate_tables_counts_stars_and_bars():
    tables = tm.enumerate_tables(4, 3)
    assert len(tables) == tm.count_tables(4, 3) == 15
    assert np.all(tables.sum(axis=1) == 4)
    assert [tuple(t) for t in tables] == sorted(tuple(t) for t in tables)


def test_too_large_table_space_is_refused():
    with pytest.raises(tm.TableSpaceTooLarge, match="exact-audit limit"):
        mf.multinomial_dirichlet(60, [1.0] * 6)


def test_suppressed_output_makes_epsilon_infinite():
    probabilities = np.array([[1.0, 0.0], [0.5, 0.5]])
    mat = tm.TransitionMatrix(np.array([[0, 1], [1, 0]]), probabilities, ("a", "b"), "suppressing")
    audit = ma.audit(mat, target_epsilon=1.0)
    assert math.isinf(audit.epsilon)
    # The impossible output costs no delta for the table that cannot produce it.
    assert audit.delta == 0.0


def test_audit_through_an_executor_in_chunks_matches_one_chunk():
    md = mf.multinomial_dirichlet(4, [1.0, 1.0, 1.0])
    whole = ma.audit(md, 1.5)
    chunked = ma.audit(md, 1.5, executor=SerialExecutor(), chunk_pairs=3)
    assert chunked.epsilon == whole.epsilon
    assert chunked.delta == whole.delta
    assert len(chunked.offending) == len(whole.offending)


def test_posterior_sample_draw_is_the_dirichlet_multinomial():
    md = mf.multinomial_dirichlet(1, [1.0, 1.0], draw="posterior_sample")
    # n = (0, 1): pi ~ Dirichlet(1, 2), m = 1 record: Pr[m = (1, 0)] = E[pi_1] = 1/3.
    assert md.probabilities[0, 1] == pytest.approx(1 / 3)
    assert md.probabilities[1, 1] == pytest.approx(2 / 3)


def test_load_matrix_csv_reads_tables_and_outputs(tmp_path):
    path = tmp_path / "fig1.csv"
    header = "n," + ",".join(f"m{j}" for j in range(6))
    lines = [header] + [f"{i} {5 - i}," + ",".join(str(v) for v in row) for i, row in enumerate(FIG1)]
    path.write_text("\n".join(lines) + "\n")
    mat = tm.load_matrix(path)
    assert mat.output_labels == ("m0", "m1", "m2", "m3", "m4", "m5")
    audit = ma.audit(mat, 2.0)
    assert len(audit.offending) == 8
    assert round(audit.delta, 4) == 0.0006


def test_load_matrix_npy_needs_rows_in_table_order(tmp_path):
    path = tmp_path / "fig3.npy"
    np.save(path, np.array(FIG3))
    mat = tm.load_matrix(path, n=5, k=2)
    # The printed six decimals move the log ratios off 2 in the fourth decimal.
    assert ma.audit(mat).epsilon == pytest.approx(2.0, abs=1e-3)
    with pytest.raises(ValueError, match="expected 20 rows"):
        tm.load_matrix(path, n=3, k=4)


def test_load_matrix_refuses_rows_that_do_not_sum_to_one(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("n,a,b\n0 1,0.5,0.4\n1 0,0.5,0.5\n")
    with pytest.raises(ValueError, match=r"row \(0, 1\) sums to 0.900000"):
        tm.load_matrix(path)


def test_posterior_mean_matrix_agrees_with_scipy_multinomial():
    from scipy import stats

    md = mf.multinomial_dirichlet(4, [0.5, 1.0, 2.0])
    pi = (md.tables + np.array([0.5, 1.0, 2.0])) / 7.5
    outputs = tm.enumerate_tables(4, 3)
    expected = stats.multinomial.pmf(outputs[None, :, :], 4, pi[:, None, :])
    np.testing.assert_allclose(md.probabilities, expected, rtol=1e-12)


def test_offending_cells_are_all_counted_but_only_the_largest_kept():
    audit = ma.audit(mf.multinomial_dirichlet(5, [0.5, 0.5]), 2.0, keep_offending=3)
    assert audit.offending_count == 8
    assert [round(o.log_ratio, 6) for o in audit.offending] == [5.493061, 5.493061, 4.193778]
