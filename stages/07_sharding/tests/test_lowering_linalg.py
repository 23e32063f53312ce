"""cholesky and triangular_solve compiled by XLA (stablehlo.cholesky, stablehlo.triangular_solve)
against their eager values: a factor per matrix of a batch, NaNs for one that is not positive
definite, and every flag of the solve, the conjugate without the transpose included."""

import itertools

import numpy as np
import pytest
from lowering_harness import check_compiled, run_compiled

from didax.lax import linalg

rng = np.random.default_rng(0)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float16])
def test_cholesky_of_a_batch_and_of_a_matrix_that_fails(dtype):
    m = rng.normal(size=(2, 4, 4)) + (1j * rng.normal(size=(2, 4, 4)) if dtype == np.complex64 else 0)
    a = (m @ np.conj(np.swapaxes(m, -1, -2)) + 4 * np.eye(4)).astype(dtype)
    check_compiled(linalg.cholesky, a, rtol=1e-2 if dtype == np.float16 else 1e-5, atol=1e-2 if dtype == np.float16 else 1e-6)
    bad = np.array([[1.0, 2.0], [2.0, 1.0]], dtype)
    (got,) = run_compiled(linalg.cholesky, bad)
    assert np.isnan(got[np.tril_indices(2)]).all() and got[0, 1] == 0


@pytest.mark.parametrize("left_side, lower, transpose_a, conjugate_a, unit_diagonal",
                         list(itertools.product([False, True], repeat=5)))  # fmt: skip
def test_triangular_solve_with_every_flag(left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    t = np.tril(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))) * 0.3 + 2 * np.eye(3)
    a = (t if lower else t.T).astype(np.complex64)
    b = rng.normal(size=(3, 2) if left_side else (2, 3)).astype(np.complex64)
    solve = lambda a, b: linalg.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,  # noqa: E731
                                                 conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    check_compiled(solve, a, b, rtol=1e-5, atol=1e-6)
