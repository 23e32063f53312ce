"""max and min order -0.0 below +0.0, as XLA does (NumPy returns whichever zero came second):
elementwise, reduced, running and scattered, in lax and in didax.numpy. fmax and fmin return
the second of two zeros, and complex max/min pick y wherever x > y (x < y) fails."""

import numpy as np
import pytest

import didax.numpy as jnp
from didax import lax

P, N = 0.0, -0.0


def signs(x) -> list[bool]:
    return np.signbit(np.asarray(x)).tolist()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_max_prefers_positive_zero_and_min_negative_zero_in_either_order(dtype: str) -> None:
    x = jnp.array([P, N, P, N], dtype)
    y = jnp.array([N, P, P, N], dtype)
    assert signs(lax.max(x, y)) == [False, False, False, True]
    assert signs(lax.min(x, y)) == [True, True, False, True]
    assert signs(jnp.maximum(y, x)) == [False, False, False, True]
    assert signs(jnp.minimum(y, x)) == [True, True, False, True]


def test_fmax_and_fmin_return_the_second_of_two_zeros() -> None:
    x, y = np.array([P, N], np.float32), np.array([N, P], np.float32)
    assert signs(jnp.fmax(x, y)) == signs(jnp.fmin(x, y)) == [True, False]


@pytest.mark.parametrize(
    ("values", "max_negative", "min_negative"),
    [([P, N], False, True), ([N, P], False, True), ([N, N, -1.0, N], True, True), ([N, 1.0, P], False, True),
     ([P, -1.0, P], False, True), ([P, 1.0, P], False, False)],
)
def test_reductions_give_the_preferred_zero_if_any_element_is_it(values, max_negative, min_negative) -> None:
    x = np.array(values, np.float32)
    assert signs(lax.reduce_max(x, (0,))) == signs(jnp.max(x)) == signs(jnp.nanmax(x)) == max_negative
    assert signs(lax.reduce_min(x, (0,))) == signs(jnp.amin(x)) == signs(jnp.nanmin(x)) == min_negative


def test_initial_takes_part_in_the_sign_of_a_zero_extremum() -> None:
    assert signs(jnp.max(jnp.array([N]), initial=P)) is False
    assert signs(jnp.min(jnp.array([P]), initial=N)) is True


def test_running_extrema_keep_the_preferred_zero_once_seen() -> None:
    assert signs(lax.cummax(jnp.array([N, P, N]))) == [True, False, False]
    assert signs(lax.cummin(jnp.array([P, N, P]))) == [False, True, True]
    assert signs(lax.cummax(jnp.array([P, N]), reverse=True)) == [False, True]
    assert signs(lax.cummax(jnp.array([[N, P], [N, N]]), axis=0)) == [[True, False], [True, False]]


def test_scatter_max_and_min_with_repeated_indices_prefer_their_zero() -> None:
    assert signs(jnp.array([N, N]).at[jnp.array([0, 0])].max(jnp.array([P, N]))) == [False, True]
    assert signs(jnp.array([P, P]).at[jnp.array([1, 1])].min(jnp.array([P, N]))) == [False, True]
    assert signs(jnp.array([N]).at[0].max(N)) == [True]


def test_clip_and_clamp_follow_max_and_min() -> None:
    x = jnp.array([N, P])
    assert signs(jnp.clip(x, P, 1.0)) == [False, False]
    assert signs(jnp.clip(x, -1.0, N)) == [True, True]
    assert signs(lax.clamp(P, x, 1.0)) == [False, False]


def test_complex_max_and_min_pick_y_on_ties_and_nans() -> None:
    x = jnp.array([complex(P, P), complex(np.nan, 0), complex(1, 0)])
    y = jnp.array([complex(N, P), complex(1, 0), complex(np.nan, 0)])
    for f in (lax.max, lax.min):
        got = np.asarray(f(x, y))
        assert np.signbit(got[0].real)
        assert got[1] == 1 and np.isnan(got[2].real)
