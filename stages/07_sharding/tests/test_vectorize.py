"""vectorize, apply_along_axis and apply_over_axes against NumPy's, and how they use vmap."""

from __future__ import annotations

import numpy as np
import pytest

import didax.numpy as jnp
from didax.batching import BatchTrace

RNG = np.random.default_rng(3)


def f32(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, shape).astype(np.float32)


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 1), (3,)), ((1, 1), (2, 3)), ((), (2, 2))], ids=str)
def test_vectorize_broadcasts_like_numpy(shapes):
    x, y = f32(*shapes[0]), f32(*shapes[1])
    got = jnp.vectorize(lambda a, b: a * 2.0 - b)(x, y)
    np.testing.assert_allclose(np.asarray(got), np.vectorize(lambda a, b: a * 2.0 - b)(x, y), rtol=1e-6)


def test_vectorize_with_a_signature():
    a, b = f32(5, 1, 3, 4), f32(2, 4, 2)
    got = jnp.vectorize(jnp.matmul, signature="(m,n),(n,p)->(m,p)")(a, b)
    np.testing.assert_allclose(np.asarray(got), np.matmul(a, b), rtol=1e-5)
    hi, lo = jnp.vectorize(lambda v: (jnp.max(v), jnp.min(v)), signature="(n)->(),()")(a)
    np.testing.assert_array_equal(np.asarray(hi), a.max(-1))
    np.testing.assert_array_equal(np.asarray(lo), a.min(-1))


def test_vectorize_runs_the_function_once_not_per_element():
    calls = []
    jnp.vectorize(lambda a: calls.append(a) or a + 1.0)(f32(4, 5))
    assert len(calls) == 1  # one call, on a batch tracer: vmap, not a loop


def test_vectorize_shares_an_argument_whose_loop_axis_has_size_1():
    seen = []
    process = BatchTrace.process_primitive

    def record(self, primitive, tracers, params):
        seen.append([t.batch_dim for t in tracers])
        return process(self, primitive, tracers, params)

    BatchTrace.process_primitive = record
    try:
        jnp.vectorize(lambda a, b: a + b)(f32(3), f32(1))
    finally:
        BatchTrace.process_primitive = process
    assert seen == [[0, None]]  # b is not broadcast to the batch: vmap shares it


def test_vectorize_errors():
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n'"):
        jnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(f32(3), f32(4))
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(lambda a: a, signature="(n)->m")(f32(2))
    with pytest.raises(TypeError, match="can only exclude integer or string"):
        jnp.vectorize(lambda a: a, excluded={1.5})
    with pytest.raises(ValueError, match="contains negative numbers"):
        jnp.vectorize(lambda a: a, excluded={-1})


def test_vectorize_excluded_and_keyword_arguments_pass_through():
    scale = jnp.vectorize(lambda x, table, power=1: x * len(table) ** power, excluded={1})
    x = f32(3)
    np.testing.assert_allclose(np.asarray(scale(x, [1, 2], power=2)), x * 4, rtol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_apply_along_axis(axis):
    a = f32(2, 3, 4)
    got = jnp.apply_along_axis(lambda v: v[:2] + v[-1], axis, a)
    np.testing.assert_allclose(np.asarray(got), np.apply_along_axis(lambda v: v[:2] + v[-1], axis, a), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.apply_along_axis(jnp.sum, axis, a)), a.sum(axis), rtol=1e-5)


def test_apply_along_axis_out_of_range():
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.apply_along_axis(jnp.sum, 3, f32(2, 3, 4))


@pytest.mark.parametrize("axes", [[0], [0, 2], [1, -1]], ids=str)
def test_apply_over_axes(axes):
    a = f32(2, 3, 4)
    got = jnp.apply_over_axes(jnp.sum, a, axes)
    np.testing.assert_allclose(np.asarray(got), np.apply_over_axes(np.sum, a, axes), rtol=1e-5)
