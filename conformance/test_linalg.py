"""jax.lax.linalg's ``cholesky`` and ``triangular_solve``, ``jnp.linalg.cholesky`` and
jax.scipy.linalg's ``cholesky``, ``cho_factor``, ``cho_solve`` and ``solve_triangular``, against
NumPy and SciPy in float64: drawn batches of well-conditioned matrices in every inexact dtype, every
flag of the triangular solve, the NaNs of a failed factorization, and JAX's errors.

The positive-definite matrices are M M^H + n I for a drawn M (eigenvalues at least n, so the factor
is well conditioned); the triangular ones have ones and twos on their diagonal and small entries
below it, and large ones in the triangle a solve must not read.
"""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance.checks import RTOL, assert_dtype, assert_values, draw_x64, show_call
from conformance.impl import Impl
from conformance.missing import Namespace

pytestmark = [pytest.mark.area("lax"), pytest.mark.requires("eval")]

INEXACT = ("float32", "float64", "complex64", "complex128")


@pytest.fixture
def linalg(impl: Impl) -> Any:
    return Namespace(impl.lax.linalg, "lax.linalg")


@pytest.fixture
def scipy_linalg(impl: Impl) -> Any:
    return Namespace(importlib.import_module(impl.module.__name__ + ".scipy.linalg"), "jax.scipy.linalg")


def positive_definite(m: np.ndarray) -> np.ndarray:
    n = m.shape[-1]
    return m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)


def draw_matrices(data: st.DataObject, dt: np.dtype, shape: tuple[int, ...], label: str) -> np.ndarray:
    values = data.draw(st.lists(st.floats(-1, 1, width=32), min_size=int(np.prod(shape)) * 2,
                                max_size=int(np.prod(shape)) * 2), label=label)  # fmt: skip
    parts = np.array(values, np.float64).reshape(2, *shape)
    return parts[0] + 1j * parts[1] if dt.kind == "c" else parts[0]


def triangular(data: st.DataObject, dt: np.dtype, batch: tuple[int, ...], n: int, lower: bool) -> np.ndarray:
    small = 0.3 * draw_matrices(data, dt, (*batch, n, n), "off-diagonal entries")
    diagonal = np.array(data.draw(st.lists(st.sampled_from([-2.0, -1.0, 1.0, 2.0]), min_size=n, max_size=n),
                                  label="diagonal"))  # fmt: skip
    inside = np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T
    return np.where(inside, small + np.diag(diagonal), 100.0 + small)  # (the other triangle: large)


def reference_solve(a: np.ndarray, b: np.ndarray, *, left_side: bool, lower: bool, transpose_a: bool,
                    conjugate_a: bool, unit_diagonal: bool) -> np.ndarray:  # fmt: skip
    """X with op(T) X = B or X op(T) = B, by NumPy's general solver on the triangle T made by hand."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1.0
    op = np.swapaxes(t, -1, -2) if transpose_a else t
    op = np.conj(op) if conjugate_a else op
    if left_side:
        return np.linalg.solve(op, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


@given(data=st.data(), n=st.integers(0, 4), batch=st.lists(st.integers(1, 2), max_size=2).map(tuple),
       dtype=st.sampled_from(INEXACT))  # fmt: skip
def test_cholesky_factors_a_batch_of_positive_definite_matrices(impl: Impl, linalg: Any, flags: Any, data: Any,
                                                                n: int, batch: tuple[int, ...], dtype: str) -> None:
    """L is lower triangular (zeros above its diagonal), with a real positive diagonal, and is
    NumPy's factor of the matrix: the unique one."""
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = positive_definite(draw_matrices(data, dt, (*batch, n, n), "M")).astype(dt)
    show_call("lax.linalg.cholesky(a)", a=a)
    got = linalg.cholesky(a)
    assert_dtype(got, dt, weak=False)
    want = np.linalg.cholesky(a.astype(np.complex128 if dt.kind == "c" else np.float64))
    assert_values(got, want, dt, atol=RTOL[dt.name] * 4 * max(n, 1))
    assert not np.triu(np.asarray(got), 1).any(), "entries above the diagonal"


def test_cholesky_symmetrizes_or_reads_the_lower_triangle(impl: Impl, linalg: Any) -> None:
    a = positive_definite(np.random.default_rng(1).normal(size=(3, 3)))
    skew = a + np.triu(np.full((3, 3), 5.0), 1)  # the upper triangle no longer mirrors the lower
    show_call("lax.linalg.cholesky(a, symmetrize_input=False)", a=skew.astype(np.float32))
    lower_only = linalg.cholesky(skew.astype(np.float32), symmetrize_input=False)
    assert_values(lower_only, np.linalg.cholesky(a), np.dtype("float32"), atol=1e-5)
    both = linalg.cholesky(skew.astype(np.float32))  # the factor of (skew + skew^T) / 2
    assert_values(both, np.linalg.cholesky((skew + skew.T) / 2), np.dtype("float32"), atol=1e-5)


def test_a_matrix_that_is_not_positive_definite_gives_nans_and_its_batch_neighbours_do_not(
        impl: Impl, linalg: Any) -> None:  # fmt: skip
    good = positive_definite(np.eye(2))
    a = np.stack([good, np.array([[1.0, 2.0], [2.0, 1.0]])]).astype(np.float32)
    show_call("lax.linalg.cholesky(a)", a=a)
    got = np.asarray(linalg.cholesky(a))
    assert_values(got[0], np.linalg.cholesky(good), np.dtype("float32"), atol=1e-6)
    assert np.isnan(got[1][np.tril_indices(2)]).all() and got[1, 0, 1] == 0, got[1]


@given(data=st.data(), n=st.integers(1, 4), k=st.integers(1, 3), batch=st.lists(st.integers(1, 2), max_size=1).map(tuple),
       options=st.tuples(*[st.booleans()] * 5), dtype=st.sampled_from(INEXACT))  # fmt: skip
def test_triangular_solve_solves_op_a_x_equals_b(impl: Impl, linalg: Any, flags: Any, data: Any, n: int, k: int,
                                                  batch: tuple[int, ...], options: tuple[bool, ...], dtype: str) -> None:
    """Every flag: which side, which triangle, transposed, conjugated, a unit diagonal (not read)."""
    left_side, lower, transpose_a, conjugate_a, unit_diagonal = options
    x64 = draw_x64(data, flags)
    dt = dr.canonicalize(np.dtype(dtype), x64)
    a = triangular(data, dt, batch, n, lower)
    b = draw_matrices(data, dt, (*batch, n, k) if left_side else (*batch, k, n), "b")
    a, b = a.astype(dt), b.astype(dt)
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                  unit_diagonal=unit_diagonal)
    show_call("lax.linalg.triangular_solve(a, b, **params)", a=a, b=b, params=params)
    got = linalg.triangular_solve(a, b, **params)
    assert_dtype(got, dt, weak=False)
    want = reference_solve(a.astype(np.complex128), b.astype(np.complex128), **params)
    if dt.kind == "f":
        want = want.real
    assert_values(got, want, dt, atol=RTOL[dt.name] * 100)


def test_triangular_solve_takes_a_batch_of_vectors(impl: Impl, linalg: Any) -> None:
    """A b with one axis fewer than a is a vector per matrix, on either side."""
    a = np.stack([np.tril(np.full((3, 3), 0.5)) + np.eye(3)] * 2).astype(np.float32)
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    for left_side in (True, False):
        show_call(f"lax.linalg.triangular_solve(a, b, left_side={left_side}, lower=True)", a=a, b=b)
        got = linalg.triangular_solve(a, b, left_side=left_side, lower=True)
        assert np.shape(got) == (2, 3)
        want = [np.linalg.solve(np.tril(m) if left_side else np.tril(m).T, v) for m, v in zip(a, b)]
        assert_values(got, np.array(want), np.dtype("float32"), atol=1e-5)


def test_jnp_linalg_cholesky_gives_either_factor_and_promotes_integers(impl: Impl) -> None:
    a = np.array([[4, 2], [2, 3]])
    show_call("jnp.linalg.cholesky(a, upper=True)", a=a)
    lower = np.linalg.cholesky(a.astype(np.float64))
    assert_values(impl.numpy.linalg.cholesky(a), lower, np.dtype("float32"), atol=1e-6)
    upper = impl.numpy.linalg.cholesky(a, upper=True)
    assert_dtype(upper, np.dtype("float32"), weak=False)
    assert_values(upper, lower.T, np.dtype("float32"), atol=1e-6)


@pytest.mark.parametrize("lower", [False, True])
def test_scipy_cholesky_and_cho_solve_match_scipy(impl: Impl, scipy_linalg: Any, flags: Any, lower: bool) -> None:
    """Only the triangle asked for is read; cho_solve solves with cho_factor's pair, for a vector and
    a matrix of right-hand sides."""
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(2)
    a = positive_definite(rng.normal(size=(4, 4)))
    one_triangle = np.tril(a) if lower else np.triu(a)
    show_call(f"jax.scipy.linalg.cholesky(a, lower={lower})", a=one_triangle)
    assert_values(scipy_linalg.cholesky(one_triangle, lower=lower), scipy.linalg.cholesky(a, lower=lower),
                  np.dtype("float64"), atol=1e-12)  # fmt: skip
    factor = scipy_linalg.cho_factor(a, lower=lower)
    assert factor[1] is lower
    for b in (rng.normal(size=4), rng.normal(size=(4, 2))):
        show_call(f"jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a, lower={lower}), b)", a=a, b=b)
        assert_values(scipy_linalg.cho_solve(factor, b), np.linalg.solve(a, b), np.dtype("float64"), atol=1e-10)


@pytest.mark.parametrize("trans, lower", list(itertools.product([0, 1, 2, "N", "T", "C"], [False, True])))
def test_solve_triangular_matches_scipy(impl: Impl, scipy_linalg: Any, flags: Any, trans: Any, lower: bool) -> None:
    flags("jax_enable_x64", True)
    rng = np.random.default_rng(3)
    a = np.tril(rng.normal(size=(3, 3)) * 0.3) + 2 * np.eye(3) + 1j * np.tril(rng.normal(size=(3, 3)) * 0.2)
    a = a if lower else np.conj(a.T)
    b = rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))
    show_call(f"jax.scipy.linalg.solve_triangular(a, b, trans={trans!r}, lower={lower})", a=a, b=b)
    got = scipy_linalg.solve_triangular(a, b, trans=trans, lower=lower)
    assert_values(got, scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower), np.dtype("complex128"),
                  atol=1e-12)  # fmt: skip


def test_solve_triangular_broadcasts_the_batch(impl: Impl, scipy_linalg: Any) -> None:
    a = np.stack([np.eye(3) * (i + 1) for i in range(2)]).astype(np.float32)  # two matrices, one vector
    b = np.array([1.0, 2.0, 3.0], np.float32)
    show_call("jax.scipy.linalg.solve_triangular(a, b)", a=a, b=b)
    got = scipy_linalg.solve_triangular(a, b)
    assert_values(got, np.array([b, b / 2]), np.dtype("float32"), atol=1e-6)


def test_linalg_errors_are_jaxs(impl: Impl, linalg: Any, scipy_linalg: Any) -> None:
    f32 = np.float32
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        scipy_linalg.solve_triangular(np.eye(2), np.ones(2), trans=3)
    with pytest.raises(ValueError, match="must be a square matrix"):
        linalg.cholesky(np.ones((2, 3), f32), symmetrize_input=False)
    with pytest.raises(ValueError, match="The first input to triangular_solve must be a square matrix"):
        linalg.triangular_solve(np.ones((2, 3), f32), np.ones((2, 3), f32))
    with pytest.raises(ValueError, match="Incompatible shapes for arguments to triangular_solve"):
        linalg.triangular_solve(np.eye(3, dtype=f32), np.ones((2, 2), f32), left_side=True)
    with pytest.raises(TypeError, match="triangular_solve does not accept dtype int32"):
        linalg.triangular_solve(np.eye(2, dtype=np.int32), np.ones((2, 1), np.int32), left_side=True)
    with pytest.raises(TypeError, match="must have the same number of batch dimensions"):
        linalg.triangular_solve(np.eye(3, dtype=f32), np.ones((2, 3, 1), f32), left_side=True)
