import numpy as np
import pytest
import scipy.sparse as sp

from policycheck.methods.reconstruction.lp_attack import (
    ReconstructionError,
    choose_form,
    solve_l1_reconstruction,
)


@pytest.mark.parametrize("form", ["primal", "dual"])
def test_noiseless_answers_are_reconstructed_exactly(form):
    # r0 alone, r1 alone, all three together: t = (1, 0, 1) is the only zero-error fit.
    a = sp.csr_matrix([[1, 0, 0], [0, 1, 0], [1, 1, 1]])
    t, info = solve_l1_reconstruction(a, np.array([1.0, 0.0, 2.0]), form=form)
    np.testing.assert_allclose(t, [1, 0, 1], atol=1e-7)
    assert info.objective == pytest.approx(0.0, abs=1e-7)
    assert info.form == form and info.status == "Optimal"


@pytest.mark.parametrize("form", ["primal", "dual"])
def test_the_fit_minimises_absolute_not_squared_error(form):
    # One record asked three times with answers 0, 0, 1: the L1 fit is the median 0
    # (total error 1); least squares would give the mean 1/3.
    a = sp.csr_matrix([[1], [1], [1]])
    t, info = solve_l1_reconstruction(a, np.array([0.0, 0.0, 1.0]), form=form)
    assert t[0] == pytest.approx(0.0, abs=1e-7)
    assert info.objective == pytest.approx(1.0)


def test_primal_and_dual_reach_the_same_optimum_and_the_same_guesses():
    rng = np.random.default_rng(3)
    a = sp.random(120, 40, density=0.15, random_state=4, data_rvs=np.ones).tocsr()
    b = a @ (rng.random(40) < 0.5) + rng.normal(0, 0.5, 120)
    t_primal, primal = solve_l1_reconstruction(a, b, form="primal")
    t_dual, dual = solve_l1_reconstruction(a, b, form="dual")
    assert primal.objective == pytest.approx(dual.objective, rel=1e-9)
    # The dual's t is read from its row multipliers: it must be a minimiser of the primal's
    # objective, recomputed here from A and b, and on this instance (noise in general
    # position, a unique optimum) the very same vector, so the same guesses.
    for t in (t_primal, t_dual):
        assert np.abs(a @ t - b).sum() == pytest.approx(primal.objective, rel=1e-9)
    np.testing.assert_allclose(t_dual, t_primal, atol=1e-7)
    assert ((t_primal >= 0.5) == (t_dual >= 0.5)).all()


def test_the_form_with_fewer_rows_is_chosen():
    assert choose_form(n_queries=10_000, n_records=1_000) == "dual"
    assert choose_form(n_queries=500, n_records=1_000) == "primal"


def test_a_solve_that_does_not_reach_optimality_raises():
    rng = np.random.default_rng(0)
    a = sp.random(3000, 500, density=0.05, random_state=1, data_rvs=np.ones).tocsr()
    with pytest.raises(ReconstructionError, match="time_limit"):
        solve_l1_reconstruction(a, rng.random(3000) * 5, time_limit=1e-6)


def test_identical_queries_merge_into_one_weighted_query():
    from policycheck.methods.reconstruction.lp_attack import merge_duplicate_queries

    a = sp.csr_matrix([[1, 0], [0, 1], [1, 0], [1, 0]])
    merged, b, w = merge_duplicate_queries(a, np.array([0.5, 1.0, 0.5, 0.7]))
    assert merged.toarray().tolist() == [[1, 0], [0, 1], [1, 0]]
    assert b.tolist() == [0.5, 1.0, 0.7] and w.tolist() == [2, 1, 1]


@pytest.mark.parametrize("form", ["primal", "dual"])
def test_merging_duplicates_keeps_the_objective(form):
    # Record 0 asked twice with answer 0 and once with 1: weight 2 on 0 keeps t = 0, error 1.
    a = sp.csr_matrix([[1], [1], [1]])
    t, info = solve_l1_reconstruction(a, np.array([0.0, 1.0, 0.0]), form=form)
    assert t[0] == pytest.approx(0.0, abs=1e-7) and info.objective == pytest.approx(1.0)
    assert info.rows == (2 if form == "primal" else 1)


def test_the_solver_writes_nothing_to_stdout():
    # HiGHS writes from C, so only a separate process shows it; a banner there would land in
    # the middle of a report written to stdout.
    import subprocess
    import sys

    code = (
        "import numpy as np, scipy.sparse as sp\n"
        "from policycheck.methods.reconstruction.lp_attack import solve_l1_reconstruction\n"
        "solve_l1_reconstruction(sp.csr_matrix([[1, 0], [1, 1]]), np.array([1.0, 1.0]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == ""
