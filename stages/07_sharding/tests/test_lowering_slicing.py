"""Lowering of gather and the scatters, through NumPy indexing and ``x.at[...]``, compiled by XLA
and compared with eager evaluation: in-bounds, out-of-bounds and negative indices, every mode."""

import numpy as np
import pytest
from lowering_harness import check_compiled

import didax.numpy as jnp
from didax import lax

rng = np.random.default_rng(2)
X = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
N = jnp.asarray(rng.integers(-50, 50, size=(4, 5)).astype(np.int32))
U = jnp.asarray(rng.integers(0, 200, size=(4, 5)).astype(np.uint8))
B = jnp.asarray(rng.integers(0, 2, size=(4, 5)).astype(np.bool_))
IN_BOUNDS = jnp.asarray([0, 3, 1, 3], jnp.int32)
NEGATIVE = jnp.asarray([-1, -4, 2, -2], jnp.int32)
OUT = jnp.asarray([4, -5, 9, -100, 2], jnp.int32)  # past either end of axis 0 (size 4)
INDICES = [IN_BOUNDS, NEGATIVE, OUT]


@pytest.mark.parametrize("i", INDICES, ids=["in", "negative", "out"])
@pytest.mark.parametrize("x", [X, N, U, B], ids=["f32", "i32", "u8", "bool"])
def test_indexing_reads(x, i):
    j = i % 5 - 2  # column indices, some negative
    check_compiled(lambda x, i, j: (x[i], x[:, j], x[i, j[: i.shape[0]]], x[i[:, None], j[None, :3]], x[1:, i[1]]),
                   x, i, j)  # fmt: skip


@pytest.mark.parametrize("i", INDICES, ids=["in", "negative", "out"])
def test_gather_modes(i):
    """fill: out-of-bounds windows read the fill value (default: NaN, the lowest or highest
    integer, True); clip: they move back inside; promise_in_bounds: XLA's clamping too."""
    for x in (X, N, U, B):
        check_compiled(lambda x, i: (x.at[i].get(mode="fill"), x.at[i].get(mode="clip"),
                                     x.at[i].get(mode="promise_in_bounds"), x.at[:, i].get(mode="fill", fill_value=1),
                                     jnp.take(x, i, axis=1, mode="fill"), jnp.take(x, i, axis=0, mode="clip")),
                       x, i)  # fmt: skip


def test_gather_fill_on_windows_and_batching_dims():
    """A window of several rows (lax.gather directly) is out of bounds when it does not fit
    whole; batching dims pair indices with operand rows."""
    dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0,))
    starts = jnp.asarray([[0], [2], [3], [-1]], jnp.int32)
    for mode in ("fill", "clip", "promise_in_bounds"):
        check_compiled(lambda x, s: lax.gather(x, s, dn, (2, 5), mode=mode), X, starts)
    batched = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                         operand_batching_dims=(0,), start_indices_batching_dims=(0,))  # fmt: skip
    cols = jnp.asarray([[1], [7], [4], [-1]], jnp.int32)
    check_compiled(lambda x, c: (lax.gather(x, c, batched, (1, 1), mode="fill"),
                                 lax.gather(x, c, batched, (1, 1), mode="clip")), X, cols)  # fmt: skip


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint32])
def test_gather_indices_of_small_and_unsigned_types(dtype):
    i = jnp.asarray(np.array([0, 3, 100, 2], np.int64).astype(dtype))
    check_compiled(lambda x, i: (x.at[i].get(mode="fill"), x[i], x.at[i].get(mode="clip")), X, i)


@pytest.mark.parametrize("i", INDICES, ids=["in", "negative", "out"])
@pytest.mark.parametrize("mode", [None, "clip", "drop", "promise_in_bounds"])
def test_scatters(i, mode):
    """Repeated indices accumulate (add, mul, min, max) or one write wins (set; the repeats below
    write the same value); out-of-bounds updates are dropped or clipped."""
    row = jnp.arange(5, dtype=jnp.float32) - 2.0
    check_compiled(lambda x, i: (x.at[i].set(row, mode=mode), x.at[i].add(row, mode=mode), x.at[i].mul(1.5, mode=mode),
                                 x.at[i].min(row, mode=mode), x.at[i].max(row, mode=mode),
                                 x.at[i, 1].add(1.0, mode=mode), x.at[:, i[:2]].set(7.0, mode=mode)),
                   X, i)  # fmt: skip
    check_compiled(lambda n, i: (n.at[i].add(3, mode=mode), n.at[i].mul(-2, mode=mode), n.at[i].min(0, mode=mode),
                                 n.at[i].max(0, mode=mode), n.at[i].set(9, mode=mode)), N, i)  # fmt: skip
    check_compiled(lambda u, i: (u.at[i].add(100, mode=mode), u.at[i].max(150, mode=mode)), U, i)
    check_compiled(lambda b, i: (b.at[i].set(True, mode=mode), b.at[i].max(True, mode=mode),
                                 b.at[i].min(False, mode=mode)), B, i)  # fmt: skip


def test_scatter_sub_apply_and_nan():
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))  # fmt: skip
    i = jnp.asarray([[1], [1], [3], [7]], jnp.int32)
    upd = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
    check_compiled(lambda x, i, u: (lax.scatter_sub(x, i, u, dn), lax.scatter_sub(x, i, u, dn, mode="clip")), X, i, upd)
    check_compiled(lambda x, i: (x.at[i[:, 0]].apply(jnp.sin), x.at[i[:, 0]].apply(lambda v: v * 2 + 1, mode="clip")),
                   X, i)  # fmt: skip
    nan = X.at[1, 2].set(jnp.nan)
    check_compiled(lambda x, i: (x.at[i[:, 0]].max(0.0), x.at[i[:, 0]].min(0.0), x.at[1].max(jnp.nan)), nan, i)


def test_scatter_signed_zeros():
    z = jnp.asarray([0.0, -0.0, 0.0, -0.0], jnp.float32)
    i = jnp.asarray([0, 1, 1, 2, 3], jnp.int32)
    upd = jnp.asarray([-0.0, 0.0, -0.0, 0.0, -0.0], jnp.float32)
    check_compiled(lambda z, i, u: (z.at[i].max(u), z.at[i].min(u)), z, i, upd)
