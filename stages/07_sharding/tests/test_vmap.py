"""Batching: the seeds' golden values (notes/requirements-digest.md §3), every primitive's rule
against a Python loop over the examples with every operand batched or not at every axis,
vmap's API (prefix pytrees, None, negative axes, axis_size, out_axes) and its errors, nesting,
composition with jvp, and jacfwd against finite differences."""

from __future__ import annotations

import itertools
from functools import partial
from collections.abc import Callable

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax, random
from didax.batching import BatchTrace, batching_rules, collective_rules
from didax.core import trace_state
from didax.errors import UnexpectedTracerError

B = 3  # the batch size of the tables


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def loop(f: Callable, args: list, in_axes: tuple, out_axis: int = 0, size: int = B) -> np.ndarray:
    """The oracle: f on each example, one at a time, stacked at ``out_axis``."""
    outs = []
    for i in range(size):
        example = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]
        outs.append(np.asarray(f(*example)))
    return np.stack(outs, axis=out_axis)


def batched(example: np.ndarray, axis: int | None, rng: np.random.Generator) -> np.ndarray:
    """A batch of B examples like ``example`` stacked at ``axis`` (or the example itself)."""
    if axis is None:
        return example
    examples = [example] + [_perturb(example, rng) for _ in range(B - 1)]
    return np.stack(examples, axis=axis)


def _perturb(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if x.dtype == bool:
        return rng.random(x.shape) < 0.5
    if x.dtype.kind in "iu":
        return rng.integers(0, 4, x.shape).astype(x.dtype)
    return (x + rng.uniform(0.1, 0.9, x.shape)).astype(x.dtype)


def check_batching(f: Callable, *examples: np.ndarray, axes_per_arg: list | None = None) -> None:
    """vmap(f) equals the loop for every choice of batched operands (at least one) at their
    first and last axis, and for out_axes 0 and -1."""
    rng = np.random.default_rng(0)
    choices = axes_per_arg or [[None, 0, -1] if np.ndim(e) else [None, 0] for e in examples]
    for in_axes in itertools.product(*choices):
        if all(a is None for a in in_axes):
            continue
        args = [batched(e, a, rng) for e, a in zip(examples, in_axes)]
        norm = tuple(None if a is None else a % np.ndim(x) for a, x in zip(in_axes, args))
        for out_axes in (0, -1):
            got = np.asarray(didax.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args))
            want = loop(f, args, norm, out_axis=out_axes)
            assert got.dtype == want.dtype, (in_axes, out_axes)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"in_axes={in_axes} out_axes={out_axes}")
            assert got.dtype.kind != "f" or np.array_equal(np.signbit(got), np.signbit(want))


def f32(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return np.random.default_rng(sum(shape) + len(shape)).uniform(low, high, shape).astype(np.float32)


def i32(*shape: int, high: int = 5) -> np.ndarray:
    return np.random.default_rng(7).integers(0, high, shape).astype(np.int32)


# --- the seeds' values -------------------------------------------------------------------------


def test_vmap_of_add_one_as_in_the_seeds():
    out = didax.vmap(lambda x: x + 1.0, (0,))(np.arange(3.0, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0])


def test_jacfwd_of_sin_keeps_negative_zeros(x64):
    # The seed prints autodidax's layout (its vmap puts the basis axis first, the transpose);
    # JAX puts the input's axis last, so cos(x_i) * 0 lands in row i: -0.0 where cos(x_i) < 0.
    jac = np.asarray(didax.jacfwd(jnp.sin)(np.arange(3.0)))
    np.testing.assert_array_equal(jac, np.diag(np.cos(np.arange(3.0))))
    assert np.array_equal(np.signbit(jac), np.cos(np.arange(3.0))[:, None] * np.ones(3) < 0)


def test_vmap_is_not_the_seeds_crash_on_none():
    out = didax.vmap(lambda x, y: x * y, in_axes=(0, None))(np.arange(3.0, dtype=np.float32), 2.0)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])


# --- every rule against the loop --------------------------------------------------------------

UNARY = [lax.neg, lax.sign, lax.exp, lax.exp2, lax.log1p, lax.expm1, lax.sin, lax.cos, lax.tan, lax.tanh,
         lax.logistic, lax.atan, lax.asinh, lax.sinh, lax.cosh, lax.cbrt, lax.floor, lax.ceil, lax.round,
         lax.is_finite, lax.abs, lax.square, lax.stop_gradient, lax.erf, lax.erfc, lax.lgamma,
         lax.digamma, lax.bessel_i0e, lax.bessel_i1e, lambda x: lax.integer_pow(x, 3),
         lambda x: lax.convert_element_type(x, np.int32)]
POSITIVE_UNARY = [lax.log, lax.sqrt, lax.rsqrt, lax.acosh]
UNIT_UNARY = [lax.asin, lax.acos, lax.atanh, lax.erf_inv]
BINARY = [lax.add, lax.sub, lax.mul, lax.div, lax.rem, lax.max, lax.min, lax.atan2, lax.nextafter, lax.eq,
          lax.ne, lax.lt, lax.le, lax.gt, lax.ge]
INT_BINARY = [lax.bitwise_and, lax.bitwise_or, lax.bitwise_xor, lax.shift_left, lax.shift_right_logical,
              lax.shift_right_arithmetic]
INT_UNARY = [lax.bitwise_not, lax.population_count, lax.clz]


@pytest.mark.parametrize("f", UNARY + POSITIVE_UNARY + UNIT_UNARY)
def test_unary(f):
    x = f32(2, 3, low=1.1, high=1.9) if f in POSITIVE_UNARY else f32(2, 3, low=-0.9, high=0.9)
    check_batching(f, x)


@pytest.mark.parametrize("f", [lax.real, lax.imag, lax.abs, lax.exp, lax.neg])
def test_complex_unary(f):
    check_batching(f, (f32(2, 3) + 1j * f32(3, 2).T).astype(np.complex64))


@pytest.mark.parametrize("f", BINARY)
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), ()), ((), (2, 3)), ((1, 3), (2, 1))])
def test_binary(f, shapes):
    check_batching(f, f32(*shapes[0], low=0.5), f32(*shapes[1], low=0.5, high=3.0))


@pytest.mark.parametrize("f", INT_BINARY)
def test_integer_binary(f):
    check_batching(f, i32(2, 3, high=100), i32(2, 3))
    check_batching(f, i32(2, 3, high=100), i32())


@pytest.mark.parametrize("f", INT_UNARY)
def test_integer_unary(f):
    check_batching(f, i32(2, 3, high=1000))


def test_pow_and_special_binary_functions():
    check_batching(lax.pow, f32(2, 3, low=0.5), f32(2, 3))
    check_batching(lax.zeta, f32(4, low=1.5, high=3.0), f32(4, low=0.5, high=2.0))
    check_batching(lax.polygamma, np.array([0.0, 1.0, 2.0, 1.0], np.float32), f32(4, low=0.5, high=2.0))


@pytest.mark.parametrize("f", [lax.igamma, lax.igammac, lax.igamma_grad_a, lax.random_gamma_grad,
                               partial(lax.incomplete_gamma.random_gamma_grad_da_p.bind, order=2)])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), ()), ((), (2, 3)), ((1, 3), (2, 1))])
def test_incomplete_gamma_functions(f, shapes):
    check_batching(f, f32(*shapes[0], low=0.3, high=4.0), f32(*shapes[1], low=0.1, high=6.0))


def test_select_n_and_clamp():
    which = np.array([[True, False, True], [False, False, True]])
    check_batching(lax.select_n, which, f32(2, 3), f32(2, 3))
    check_batching(lax.select_n, np.array(True), f32(2, 3), f32(2, 3))
    check_batching(lax.select_n, i32(2, 3, high=3), f32(2, 3), f32(2, 3), f32(2, 3))
    check_batching(lax.clamp, f32(), f32(2, 3), f32(low=2.0, high=3.0))
    check_batching(lax.clamp, f32(2, 3, low=-1.0, high=0.0), f32(2, 3), f32(2, 3, low=0.0, high=1.0))


def test_bitcast_convert_type():
    check_batching(lambda x: lax.bitcast_convert_type(x, np.int32), f32(2, 3))
    check_batching(lambda x: lax.bitcast_convert_type(x, np.uint8), f32(2, 3))
    check_batching(lambda x: lax.bitcast_convert_type(x, np.float32), i32(2, 4).astype(np.uint8))


STRUCTURAL = [
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (4, 2, 5, 3), (1, 3)), (2, 3)),
    ("broadcast_in_dim_scalar", lambda x: lax.broadcast_in_dim(x, (2, 3), ()), ()),
    ("reshape", lambda x: lax.reshape(x, (3, 2)), (2, 3)),
    ("reshape_dimensions", lambda x: lax.reshape(x, (6,), (1, 0)), (2, 3)),
    ("transpose", lambda x: lax.transpose(x, (2, 0, 1)), (2, 3, 4)),
    ("squeeze", lambda x: lax.squeeze(x, (0, 2)), (1, 3, 1)),
    ("expand_dims", lambda x: lax.expand_dims(x, (0, 2)), (2, 3)),
    ("rev", lambda x: lax.rev(x, (0, 1)), (2, 3)),
    ("pad", lambda x: lax.pad(x, np.float32(7), ((1, 2, 1), (-1, 0, 0))), (2, 3)),
    ("slice", lambda x: lax.slice(x, (0, 1), (2, 3)), (2, 3)),
    ("slice_strides", lambda x: lax.slice(x, (0, 0), (2, 3), (1, 2)), (2, 3)),
    ("reduce_sum", lambda x: lax.reduce_sum(x, (0, 2)), (2, 3, 4)),
    ("reduce_max", lambda x: lax.reduce_max(x, (1,)), (2, 3, 4)),
    ("reduce_min", lambda x: lax.reduce_min(x, (0,)), (2, 3)),
    ("reduce_prod", lambda x: lax.reduce_prod(x, (1,)), (2, 3)),
    ("argmax", lambda x: lax.argmax(x, 1, np.int32), (2, 3)),
    ("argmin", lambda x: lax.argmin(x, 0, np.int32), (2, 3)),
    ("cumsum", lambda x: lax.cumsum(x, 1), (2, 3)),
    ("cumprod", lambda x: lax.cumprod(x, 0, reverse=True), (2, 3)),
    ("cummax", lambda x: lax.cummax(x, 1), (2, 3)),
    ("cummin", lambda x: lax.cummin(x, 0), (2, 3)),
    ("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 1, reverse=True), (2, 3)),
    ("sort", lambda x: lax.sort(x, dimension=0), (3, 2)),
    ("top_k", lambda x: lax.top_k(x, 2)[1], (2, 3)),
    ("top_k_axis", lambda x: lax.top_k(x, 1, axis=0)[0], (2, 3)),
]


@pytest.mark.parametrize("name, f, shape", STRUCTURAL, ids=[c[0] for c in STRUCTURAL])
def test_structural_and_reductions(name, f, shape):
    check_batching(f, f32(*shape))


def test_boolean_and_integer_reductions():
    check_batching(lambda x: lax.reduce_and(x, (1,)), np.array([[True, False, True], [True, True, True]]))
    check_batching(lambda x: lax.reduce_or(x, (0,)), np.array([[True, False, False], [False, False, True]]))
    check_batching(lambda x: lax.reduce_xor(x, (0, 1)), i32(2, 3, high=16))


def test_concatenate_with_operands_batched_or_not():
    check_batching(lambda a, b, c: lax.concatenate([a, b, c], 1), f32(2, 1), f32(2, 3), f32(2, 2))


def test_pad_with_a_batched_padding_value():
    check_batching(lambda x, v: lax.pad(x, v, ((1, 0, 1), (0, -1, 0))), f32(2, 3), f32())


def test_dynamic_slice_with_starts_batched_or_not():
    check_batching(lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)), f32(3, 4), np.int32(1), np.int32(3))
    check_batching(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3)), f32(3, 4), np.int32(-1))


def test_dynamic_update_slice_with_starts_batched_or_not():
    check_batching(lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
                   f32(3, 4), f32(2, 2), np.int32(2), np.int32(1))


def test_dot_general_with_either_or_both_operands_batched():
    check_batching(jnp.dot, f32(2, 3), f32(3, 4))
    check_batching(jnp.matmul, f32(2, 2, 3), f32(2, 3, 4))
    check_batching(lambda a, b: lax.dot_general(a, b, (((0,), (1,)), ((), ()))), f32(3, 2), f32(4, 3))
    check_batching(jnp.dot, f32(3), f32(3))


def test_gather_by_indexing_with_operand_and_indices_batched_or_not():
    check_batching(lambda x, i: jnp.asarray(x)[i], f32(4, 3), np.array([3, 0, 1], np.int32))
    check_batching(lambda x, i: jnp.asarray(x)[:, i], f32(4, 3), np.array([[2, 0], [1, 1]], np.int32))
    check_batching(lambda x, i: jnp.asarray(x)[i, 1:], f32(4, 3), np.int32(2))
    check_batching(lambda x, i: jnp.take(x, i, axis=1, mode="fill", fill_value=-1.0),
                   f32(2, 3), np.array([0, 5, 2], np.int32))


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_scatter_by_at_with_every_operand_batched_or_not(method):
    def f(x, i, u):
        return getattr(jnp.asarray(x).at[i], method)(u)

    check_batching(f, f32(4, 3), np.array([3, 0], np.int32), f32(2, 3))
    check_batching(f, f32(4, 3), np.int32(1), f32())


def test_scatter_apply_by_at_with_operand_and_indices_batched_or_not():
    """apply's function is a jaxpr of scalars: batching leaves it as it is."""
    check_batching(lambda x, i: jnp.asarray(x).at[i].apply(lambda v: v * 2.0 + 1.0),
                   f32(4, 3), np.array([3, 0, 3], np.int32))  # fmt: skip


def test_sort_several_operands_some_unbatched():
    check_batching(lambda k, v: lax.sort((k, v), num_keys=1)[1], np.array([3.0, 1.0, 2.0], np.float32), f32(3))


def test_every_primitive_with_operands_has_a_rule():
    missing = {p.name for p in _lax_primitives() if p not in batching_rules and p not in collective_rules}
    assert missing == {"iota"}  # no operands, so never batched


def _lax_primitives() -> list:
    return [v for module in (lax, lax.linalg) for v in vars(module).values() if isinstance(v, didax.core.Primitive)]


@pytest.mark.parametrize("left_side", [True, False])
def test_linalg_under_vmap_equals_the_loop(left_side):
    """Batched right-hand sides alone are folded into more of them; a batched matrix goes first."""
    solve = lambda a, b: lax.linalg.triangular_solve(0.2 * a + 2 * jnp.eye(3), b, left_side=left_side, lower=True)  # noqa: E731
    check_batching(solve, f32(3, 3), f32(3, 2) if left_side else f32(2, 3))
    check_batching(lambda m: lax.linalg.cholesky(m @ m.T + 4 * jnp.eye(3)), f32(3, 3))
    for i in range(3):  # the factors, the pivots, the permutation
        check_batching(lambda m: lax.linalg.lu(m)[i], f32(3, 4))  # noqa: B023 (checked before i moves on)
    check_batching(lambda m: lax.linalg.lu_pivots_to_permutation(lax.linalg.lu(m)[1], 5), f32(4, 3))
    check_batching(lambda a, b: jnp.linalg.solve(0.2 * a + 2 * jnp.eye(3), b), f32(3, 3), f32(3, 2))
    check_batching(lambda m: lax.linalg.eigh(m)[1], f32(3, 3))
    check_batching(lambda m: lax.linalg.eigh(m)[0], f32(3, 3))
    for i in range(3):
        check_batching(lambda m: lax.linalg.svd(m, full_matrices=False)[i], f32(4, 3))  # noqa: B023
    check_batching(lambda m: lax.linalg.svd(m, compute_uv=False), f32(2, 3))
    for i in range(3):  # Q, R and the columns' order
        check_batching(lambda m: lax.linalg.qr(m, pivoting=True)[i], f32(3, 4))  # noqa: B023


# --- random bits over a batch of keys ---------------------------------------------------------


def test_random_over_a_batch_of_keys_equals_the_loop():
    keys = random.split(random.PRNGKey(0), 4)
    for f in (lambda k: random.normal(k, (3,)), lambda k: random.split(k), lambda k: random.uniform(k, (2,)),
              lambda k: random.randint(k, (2,), 0, 10), lambda k: random.fold_in(k, 7)):
        got = np.asarray(didax.vmap(f)(keys))
        want = loop(f, [np.asarray(keys)], (0,), size=4)
        np.testing.assert_array_equal(got, want)


def test_fold_in_over_a_batch_of_data():
    data = np.arange(4, dtype=np.uint32)
    key = random.PRNGKey(1)
    got = np.asarray(didax.vmap(random.fold_in, (None, 0))(key, data))
    np.testing.assert_array_equal(got, loop(random.fold_in, [np.asarray(key), data], (None, 0), size=4))


GAMMA_FAMILY = {
    "gamma": lambda k: random.gamma(k, np.array([0.3, 2.0, 9.0], np.float32)),
    "loggamma": lambda k: random.loggamma(k, 0.05, (2,)),
    "beta": lambda k: random.beta(k, 2.0, 0.5, (2,)),
    "dirichlet": lambda k: random.dirichlet(k, np.array([0.5, 1.0, 3.0], np.float32)),
}


@pytest.mark.parametrize("name", list(GAMMA_FAMILY))
def test_gamma_family_over_a_batch_of_keys_gives_the_loops_bits(name):
    """random_gamma's batching rule hands it one key per example: each example's sample is its
    own, bit for bit (the loops run on known values, inside the primitive's evaluation)."""
    keys = random.split(random.PRNGKey(0), 5)
    f = GAMMA_FAMILY[name]
    got = np.asarray(didax.vmap(f)(keys))
    want = loop(f, [np.asarray(keys)], (0,), size=5)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_gamma_over_a_batch_of_shapes_gives_the_loops_bits():
    key, alphas = random.PRNGKey(1), np.array([0.2, 1.0, 7.0, 0.9], np.float32)
    got = np.asarray(didax.vmap(lambda a: random.gamma(key, a, (2,)))(alphas))
    want = loop(lambda a: random.gamma(key, a, (2,)), [alphas], (0,), size=4)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_gamma_over_keys_and_a_batched_along_other_axes_gives_the_loops_bits():
    keys = random.split(random.PRNGKey(2), 3)
    alphas = np.array([[0.4, 1.5, 3.0], [6.0, 0.8, 2.2]], np.float32)  # the batch along axis 1
    f = lambda k, a: random.loggamma(k, a, (2, 2))
    got = np.asarray(didax.vmap(f, (0, 1))(keys, alphas))
    want = loop(f, [np.asarray(keys), alphas], (0, 1), size=3)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_vmap_of_jvp_of_gamma_in_a_gives_the_loops_tangents():
    key, alphas = random.PRNGKey(3), np.array([0.3, 2.0, 9.0], np.float32)
    f = lambda a: didax.jvp(lambda a: random.gamma(key, a, (2,)), (a,), (np.float32(1),))[1]
    got = np.asarray(didax.vmap(f)(alphas))
    np.testing.assert_array_equal(got.view(np.uint32), loop(f, [alphas], (0,), size=3).view(np.uint32))


def _words(x) -> np.ndarray:
    """A result as NumPy: a key array as its words."""
    return np.asarray(random.key_data(x) if didax.dtypes.issubdtype(x.dtype, didax.dtypes.prng_key) else x)


TYPED = {  # functions of one typed key; vmap over a batch of keys must give the loop's results
    "normal": lambda k: random.normal(k, (3,)),
    "bits": lambda k: random.bits(k, (2,), np.uint8),
    "split": lambda k: random.split(k, 3),
    "fold_in": lambda k: random.fold_in(k, 7),
    "key_data": random.key_data,
    "split then index": lambda k: random.split(k, 3)[1],
    "split then reshape": lambda k: random.split(k, 4).reshape(2, 2).T,
    "where": lambda k: jnp.where(jnp.array([True, False]), k, random.split(k)),
    "stack with a fixed key": lambda k: jnp.stack([k, random.key(9)]),
    "at set": lambda k: random.split(k, 3).at[1].set(k),
    "permutation": lambda k: random.permutation(k, 5),
    "categorical": lambda k: random.categorical(k, jnp.zeros(3)),
}


@pytest.mark.parametrize("name", list(TYPED))
def test_vmap_over_typed_keys_equals_the_loop(name):
    f = TYPED[name]
    keys = random.split(random.key(0), 4)
    for out_axes in (0, -1):
        got = didax.vmap(f, out_axes=out_axes)(keys)
        # A key array's last axis is its last axis of keys, before the words' hidden one.
        want = np.stack([_words(f(keys[i])) for i in range(4)], axis=0 if out_axes == 0 else got.ndim - 1)
        np.testing.assert_array_equal(_words(got), want)


@pytest.mark.parametrize("name", ["normal", "split", "fold_in", "key_data", "split then index"])
def test_vmap_over_keys_batched_on_their_second_axis_equals_the_loop(name):
    f = TYPED[name]
    keys = random.split(random.key(3), (2, 3))
    got = _words(didax.vmap(didax.vmap(f), in_axes=1)(keys))  # the outer batch axis is axis 1
    want = np.stack([np.stack([_words(f(keys[i, j])) for i in range(2)]) for j in range(3)])
    np.testing.assert_array_equal(got, want)


def test_vmap_of_the_random_primitives_moves_no_batch_axis_but_wraps_words_batch_first():
    words = np.asarray(random.key_data(random.split(random.key(1), 4)))  # (4, 2)
    from_last = didax.vmap(random.wrap_key_data, in_axes=1)(words.T)  # the batch after the words' axis
    np.testing.assert_array_equal(_words(from_last), words)
    seeds = np.array([[0, 1, 2], [3, 4, 5]], np.int32)
    keys = didax.vmap(didax.vmap(random.key), in_axes=1)(seeds)  # (3, 2) keys, one per seed
    assert keys.shape == (3, 2)
    for i, j in np.ndindex(3, 2):
        np.testing.assert_array_equal(_words(keys[i, j]), np.asarray(random.PRNGKey(int(seeds[j, i]))))
    data = np.arange(4, dtype=np.uint32)
    keys = random.split(random.key(2), 4)
    for in_axes in [(0, 0), (None, 0), (0, None)]:
        args = [keys if in_axes[0] == 0 else keys[0], data if in_axes[1] == 0 else data[1]]
        got = _words(didax.vmap(random.fold_in, in_axes)(*args))
        want = [_words(random.fold_in(args[0][i] if in_axes[0] == 0 else args[0],
                                      args[1][i] if in_axes[1] == 0 else args[1])) for i in range(4)]  # fmt: skip
        np.testing.assert_array_equal(got, np.stack(want))


def test_every_random_primitive_has_a_batching_rule():
    from didax import prng

    prims = [v for v in vars(prng).values() if isinstance(v, didax.core.Primitive)]
    assert len(prims) == 6 and all(p in batching_rules for p in prims)


# --- the API ----------------------------------------------------------------------------------


def test_in_axes_as_prefix_pytrees():
    x, y = f32(3, 2), f32(2)

    def f(t):
        return t["a"] * t["b"]

    got = didax.vmap(f, in_axes=({"a": 0, "b": None},))({"a": x, "b": y})
    np.testing.assert_allclose(np.asarray(got), x * y, rtol=1e-6)
    got = didax.vmap(lambda a, t: a + t[0] + t[1], in_axes=(None, 1))(y, (f32(2, 3).T.copy().T, f32(2, 3)))
    assert np.asarray(got).shape == (3, 2)


def test_out_axes_as_prefix_pytrees_and_none():
    x = f32(3, 2)
    a, b = didax.vmap(lambda v: (v * 2.0, 5.0), out_axes=(1, None))(x)
    np.testing.assert_allclose(np.asarray(a), (x * 2.0).T)
    assert float(b) == 5.0
    out = didax.vmap(lambda v: {"s": v.sum(), "v": v}, out_axes={"s": 0, "v": -1})(x)
    assert np.asarray(out["v"]).shape == (2, 3)


def test_keyword_arguments_are_mapped_over_axis_0():
    out = didax.vmap(lambda x, y: x + y, in_axes=(None,))(f32(2), y=f32(3, 2))
    assert np.asarray(out).shape == (3, 2)


def test_axis_size_with_nothing_mapped_broadcasts():
    out = didax.vmap(lambda x: x * 2.0, in_axes=None, axis_size=4)(np.float32(1.5))
    np.testing.assert_array_equal(np.asarray(out), [3.0, 3.0, 3.0, 3.0])


def test_a_constant_output_is_broadcast_over_the_batch():
    out = didax.vmap(lambda x: 3)(f32(4, 2))
    assert np.asarray(out).tolist() == [3, 3, 3, 3] and out.weak_type


def test_negative_in_axes():
    x = f32(2, 5)
    np.testing.assert_allclose(np.asarray(didax.vmap(jnp.sum, in_axes=-1)(x)), x.sum(0), rtol=1e-6)


def test_nested_vmap_with_different_axes():
    x, y = f32(2, 3), f32(4, 3)
    outer = didax.vmap(didax.vmap(jnp.dot, in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_allclose(np.asarray(outer(x, y)), x @ y.T, rtol=1e-5)
    inner_axis_1 = didax.vmap(didax.vmap(lambda a: a * 2.0, in_axes=1, out_axes=1), in_axes=0)(f32(2, 3, 4))
    np.testing.assert_allclose(np.asarray(inner_axis_1), f32(2, 3, 4) * 2.0)


def test_inconsistent_sizes_name_every_argument():
    with pytest.raises(ValueError) as e:
        didax.vmap(lambda x, y: x + y)(f32(2, 3), f32(3, 3))
    assert str(e.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument x of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument y of type float32[3,3]"
    )
    with pytest.raises(ValueError, match=r"most axes \(2 of them\) had size 2, e.g. axis 0 of argument a"):
        didax.vmap(lambda a, b, c: a)(f32(2, 3), f32(2, 3), f32(3, 3))
    with pytest.raises(ValueError, match=r"the `axis_size` argument was 4"):
        didax.vmap(lambda a: a, axis_size=4)(f32(2, 3))
    with pytest.raises(ValueError, match=r"axis 0 of kwargs\['b'\]"):
        didax.vmap(lambda a, b: a)(f32(2, 3), b=f32(3, 3))
    with pytest.raises(ValueError, match=r"argument d\['b'\]"):
        didax.vmap(lambda d: d["a"])({"a": f32(2, 3), "b": f32(3, 3)})


@pytest.mark.parametrize("call, error, text", [
    (lambda: didax.vmap(jnp.sin, in_axes=2)(f32(2, 3)), ValueError, "rank should be at least 3, but is only 2"),
    (lambda: didax.vmap(jnp.sin, in_axes=-3)(f32(2, 3)), ValueError, "rank should be at least 3"),
    (lambda: didax.vmap(jnp.sin)(1.0), ValueError, "rank should be at least 1, but is only 0"),
    (lambda: didax.vmap(jnp.add, in_axes=None)(f32(2), f32(2)), ValueError, "at least one non-None value"),
    (lambda: didax.vmap(jnp.add, in_axes=(0, 0, 0))(f32(2), f32(2)), ValueError, "len(in_axes)=3, len(args)=2"),
    (lambda: didax.vmap(lambda d: d, in_axes=({"a": 0},))({"a": f32(2), "b": f32(2)}), ValueError,
     "vmap in_axes specification must be a tree prefix of the corresponding value"),
    (lambda: didax.vmap(jnp.add, in_axes=(0.5, 0)), TypeError, "(nested) container with those types as leaves"),
    (lambda: didax.vmap(jnp.add, out_axes=0.5), TypeError, "vmap out_axes must be an int, None"),
    (lambda: didax.vmap(jnp.add, in_axes={"a": 0}), TypeError, "tuple of entries corresponding to the positional"),
    (lambda: didax.vmap(jnp.sin, out_axes=None)(f32(2)), ValueError, "got axis spec None but output was batched"),
    (lambda: didax.vmap(jnp.sin, out_axes=2)(f32(2)), ValueError, "axis 2 is out of bounds for array of dimension 1"),
    (lambda: didax.vmap(lambda x: (x, x), out_axes=(0, 0, 0))(f32(2)), ValueError,
     "vmap out_axes specification must be a tree prefix"),
    (lambda: didax.vmap(lambda: 1)(), ValueError, "must be passed at least one argument containing an array"),
    (lambda: didax.vmap(lambda x, s: x)(f32(2), "hi"), TypeError, "not a valid"),
    (lambda: didax.vmap(3), TypeError, "Expected a callable value, got 3"),
])
def test_errors_are_jaxs_and_leave_no_state_behind(call, error, text):
    with pytest.raises(error) as e:
        call()
    assert text in str(e.value)
    assert len(trace_state.trace_stack) == 1
    np.testing.assert_allclose(np.asarray(didax.vmap(jnp.sin)(f32(2))), np.sin(f32(2)), rtol=1e-6)


def test_an_unmapped_string_passes_through():
    assert np.asarray(didax.vmap(lambda x, s: x * len(s), in_axes=(0, None))(f32(2), "hi")).shape == (2,)


def test_a_leaked_batch_tracer_is_an_error():
    leaked = []
    didax.vmap(lambda x: leaked.append(x) or x)(f32(2))
    with pytest.raises(UnexpectedTracerError):
        jnp.sin(leaked[0])


def test_missing_rule_names_the_primitive(monkeypatch):
    monkeypatch.delitem(batching_rules, lax.sin_p)
    with pytest.raises(NotImplementedError, match="Batching rule for 'sin' not implemented"):
        didax.vmap(jnp.sin)(f32(2))


def test_the_batch_axis_is_moved_only_when_needed():
    seen = []
    process = BatchTrace.process_primitive

    def record(self, primitive, tracers, params):
        out = process(self, primitive, tracers, params)
        seen.append(primitive.name)
        return out

    BatchTrace.process_primitive = record
    try:
        didax.vmap(lambda x, y: jnp.tanh(x * y + 1.0).sum(0), in_axes=1)(f32(2, 3), f32(2, 3))
    finally:
        BatchTrace.process_primitive = process
    # Elementwise operations and the reduction keep the batch axis where it is: no transpose.
    assert "transpose" not in seen and seen.count("mul") == 1


# --- composition with jvp, and jacfwd ---------------------------------------------------------


def test_vmap_of_jvp_and_jvp_of_vmap_agree_with_the_loop(x64):
    x, t = np.linspace(0.1, 1.0, 6).reshape(3, 2), np.linspace(1.0, 2.0, 6).reshape(3, 2)

    def f(v):
        return jnp.sin(v) * v.sum()

    tangents_of_vmap = didax.jvp(didax.vmap(f), (x,), (t,))[1]
    vmap_of_jvp = didax.vmap(lambda a, b: didax.jvp(f, (a,), (b,))[1])(x, t)
    want = np.stack([np.asarray(didax.jvp(f, (a,), (b,))[1]) for a, b in zip(x, t)])
    np.testing.assert_allclose(np.asarray(tangents_of_vmap), want, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(vmap_of_jvp), want, rtol=1e-13)


def _finite_difference_jacobian(f: Callable, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    columns = []
    for i in range(x.size):
        step = np.zeros(x.size)
        step[i] = eps
        step = step.reshape(x.shape)
        columns.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * eps))
    out = np.stack(columns, axis=-1)
    return out.reshape(np.shape(f(x)) + x.shape)


def test_jacfwd_matches_finite_differences(x64):
    x = np.linspace(0.2, 1.4, 6).reshape(2, 3)

    def f(v):
        return jnp.tanh(v @ v.T) * v[:, :2].sum()

    np.testing.assert_allclose(np.asarray(didax.jacfwd(f)(x)), _finite_difference_jacobian(f, x), rtol=1e-7)


def test_jacfwd_argnums_pytrees_and_has_aux(x64):
    def f(a, b):
        return {"p": a["u"] * b, "q": jnp.sum(a["v"])}, a["u"].sum()

    a, b = {"u": np.array([1.0, 2.0]), "v": np.array([3.0, 4.0, 5.0])}, np.array([0.5, 1.5])
    jac, aux = didax.jacfwd(f, argnums=(0, 1), has_aux=True)(a, b)
    assert float(aux) == 3.0
    np.testing.assert_allclose(np.asarray(jac["p"][0]["u"]), np.diag(b))
    np.testing.assert_allclose(np.asarray(jac["p"][1]), np.diag(a["u"]))
    np.testing.assert_allclose(np.asarray(jac["q"][0]["v"]), np.ones(3))
    assert np.asarray(jac["q"][0]["u"]).shape == (2,)


def test_jacfwd_of_jacfwd_is_the_hessian(x64):
    x = np.array([0.3, 0.7])
    hessian = didax.jacfwd(didax.jacfwd(lambda v: jnp.sin(v[0]) * v[1] ** 2))(x)
    want = [[-np.sin(0.3) * 0.49, 2 * 0.7 * np.cos(0.3)], [2 * 0.7 * np.cos(0.3), 2 * np.sin(0.3)]]
    np.testing.assert_allclose(np.asarray(hessian), want, rtol=1e-13)


def test_jacfwd_errors():
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        didax.jacfwd(jnp.sin)(np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex dtype"):
        didax.jacfwd(jnp.abs, holomorphic=True)(np.array([1j], np.complex64))
    with pytest.raises(ValueError, match="got value 3 for len"):
        didax.jacfwd(jnp.add, argnums=3)(1.0, 2.0)


def test_jacfwd_holomorphic(x64):
    z = np.array([1.0 + 2.0j, -0.5j])
    np.testing.assert_allclose(np.asarray(didax.jacfwd(jnp.exp, holomorphic=True)(z)), np.diag(np.exp(z)))


# --- printing --------------------------------------------------------------------------------------


def test_a_vmap_tracer_prints_one_examples_type_and_the_batchs_as_jax_does():
    # The texts are JAX 0.10.2's, from print(x) inside jax.vmap (repr, str and f-strings agree).
    seen: list[str] = []

    def spy(x):
        assert repr(x) == str(x) == f"{x}"
        seen.append(repr(x))
        return x

    didax.vmap(spy)(jnp.stack([jnp.asarray(1.0)] * 2))
    didax.vmap(spy, in_axes=1)(jnp.ones((2, 3)))
    didax.vmap(didax.vmap(spy))(jnp.ones((2, 3), jnp.int32))
    didax.vmap(lambda x: didax.jvp(spy, (x,), (x,)))(jnp.arange(3.0))
    assert seen == [
        "VmapTracer(aval=~float32[], batched=~float32[2])",
        "VmapTracer(aval=float32[2], batched=float32[2,3])",
        "VmapTracer(aval=int32[], batched=int32[3])",
        "JVPTracer(primal=VmapTracer(aval=float32[], batched=float32[3]), "
        "tangent=VmapTracer(aval=float32[], batched=float32[3]))",
    ]


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_of_the_fourier_transforms_is_a_loop(in_axis):
    # The batch axis may be among the transformed ones: the rule moves it out of their way.
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 6, 3)).astype(np.float32)

    def f(a):
        return jnp.fft.irfft2(jnp.fft.rfft2(a) * jnp.fft.fft(a, axis=0)[:, : a.shape[1] // 2 + 1], s=a.shape)

    got = didax.vmap(f, in_axes=in_axis, out_axes=1)(x)
    want = np.stack([np.asarray(f(np.take(x, i, in_axis))) for i in range(x.shape[in_axis])], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_vmap_of_reduce_precision_is_a_loop():
    x = np.random.default_rng(2).normal(size=(3, 5)).astype(np.float32) * 1e3
    got = didax.vmap(lambda a: lax.reduce_precision(a, 5, 2), in_axes=1)(x)
    want = np.stack([np.asarray(lax.reduce_precision(x[:, i], 5, 2)) for i in range(5)])
    np.testing.assert_array_equal(got, want)


CONV_GROUPS = [dict(), dict(feature_group_count=2), dict(batch_group_count=2)]


@pytest.mark.parametrize("groups", CONV_GROUPS, ids=["plain", "feature groups", "batch groups"])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 2), (3, 1), (0, 0)])
def test_vmap_of_a_convolution_is_a_loop(in_axes, groups):
    # The vmap axis is folded into the batch, the features or the groups, and split out again.
    rng = np.random.default_rng(6)
    size, numbers = 3, ("NHWC", "OIHW", "CNHW")
    x = rng.normal(size=(4, 5, 6, 4)).astype(np.float32)  # N H W C
    w = rng.normal(size=(4, 2 if "feature_group_count" in groups else 4, 3, 2)).astype(np.float32)  # O I H W
    xs = x if in_axes[0] is None else np.stack([x + i for i in range(size)], axis=in_axes[0])
    ws = w if in_axes[1] is None else np.stack([w * (i + 1) for i in range(size)], axis=in_axes[1])

    def f(a, b):
        return lax.conv_general_dilated(a, b, (2, 1), [(1, 0), (0, 1)], rhs_dilation=(1, 2),
                                        dimension_numbers=numbers, **groups)  # fmt: skip

    got = didax.vmap(f, in_axes=in_axes)(xs, ws)
    pick = [(lambda a, i: a) if ax is None else partial(lambda a, i, ax: np.take(a, i, ax), ax=ax) for ax in in_axes]
    want = np.stack([np.asarray(f(pick[0](xs, i), pick[1](ws, i))) for i in range(size)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_vmap_of_a_convolution_over_no_examples():
    got = didax.vmap(lambda a, b: lax.conv(a, b, (1,), "SAME"))(np.ones((0, 2, 3, 5)), np.ones((0, 4, 3, 2)))
    assert got.shape == (0, 2, 4, 5)


@pytest.mark.parametrize("name, init", [("add", 0.0), ("max", -np.inf), ("min", np.inf)])
@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_of_a_windowed_reduction_is_a_loop(name, init, in_axis):
    x = np.random.default_rng(7).normal(size=(4, 5, 6)).astype(np.float32)

    def f(a):
        return lax.reduce_window(a, init, getattr(lax, name), (2, 3), (1, 2), "SAME", (2, 1), (1, 2))

    got = didax.vmap(f, in_axes=in_axis)(x)
    want = np.stack([np.asarray(f(np.take(x, i, in_axis))) for i in range(x.shape[in_axis])])
    np.testing.assert_allclose(got, want, rtol=1e-6)
