"""reduce_window's three monoids, and other computations folded over the window, against windows
cut out by hand: padding, strides, both dilations, every dtype they take; JAX's choice of primitive
from the computation and initial value; and the errors."""

import numpy as np
import pytest

from didax import lax

rng = np.random.default_rng(1)
X = rng.normal(size=(5, 7)).astype(np.float32)


def by_hand(x, window, strides, pads, identity, reduce, base=(1, 1), dilation=(1, 1)):
    """Each window's elements gathered with explicit loops over a padded, spread-out copy."""
    spread = np.full([(n - 1) * b + 1 for n, b in zip(x.shape, base)], identity, x.dtype)
    spread[:: base[0], :: base[1]] = x
    padded = np.pad(spread, [(max(lo, 0), max(hi, 0)) for lo, hi in pads], constant_values=identity)
    padded = padded[-min(pads[0][0], 0) or None: padded.shape[0] + min(pads[0][1], 0),
                    -min(pads[1][0], 0) or None: padded.shape[1] + min(pads[1][1], 0)]  # fmt: skip
    spans = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
    rows = range(0, padded.shape[0] - spans[0] + 1, strides[0])
    cols = range(0, padded.shape[1] - spans[1] + 1, strides[1])
    return np.array([[reduce(padded[i: i + spans[0]: dilation[0], j: j + spans[1]: dilation[1]]) for j in cols]
                     for i in rows], x.dtype).reshape(len(rows), len(cols))  # fmt: skip


@pytest.mark.parametrize("name, identity, reduce", [("add", 0.0, np.sum), ("max", -np.inf, np.max),
                                                    ("min", np.inf, np.min)])  # fmt: skip
def test_each_monoid_is_its_reduction_over_each_window(name, identity, reduce):
    got = lax.reduce_window(X, identity, getattr(lax, name), (2, 3), (2, 1), [(1, 0), (2, -1)], (1, 2), (2, 1))
    want = by_hand(X, (2, 3), (2, 1), [(1, 0), (2, -1)], identity, reduce, base=(1, 2), dilation=(2, 1))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    assert got.dtype == np.float32


def test_same_padding_and_the_primitive_chosen():
    got = lax.reduce_window(X, -np.inf, lax.max, (3, 3), (2, 2), "SAME")
    np.testing.assert_array_equal(np.asarray(got), by_hand(X, (3, 3), (2, 2), [(1, 1), (1, 1)], -np.inf, np.max))
    assert got.shape == (3, 4)
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(lax.reduce_window(ints, np.iinfo(np.int32).min, lax.max, (2, 2), (1, 1), "VALID"),
                                  [[5, 6, 7], [9, 10, 11]])  # fmt: skip
    np.testing.assert_array_equal(lax.reduce_window(ints > 5, True, lax.min, (1, 2), (1, 2), "VALID"),
                                  [[False, False], [False, True], [True, True]])  # fmt: skip


def test_other_computations_fold_over_the_window():
    """A product, a sum from 1 (not its identity: the 1 counts once in every window, and pads and
    holes not at all, as in JAX), and a pair of operands, the maximum and its column, against
    windows cut out by hand."""
    args = ((2, 3), (2, 1), [(1, 0), (2, -1)], (1, 2), (2, 1))
    got = lax.reduce_window(X, 1.0, lax.mul, *args)
    want = by_hand(X, (2, 3), (2, 1), [(1, 0), (2, -1)], 1.0, np.prod, base=(1, 2), dilation=(2, 1))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    got = lax.reduce_window(X, 1.0, lax.add, *args)  # pads and holes skipped, as XLA skips them
    want = by_hand(X, (2, 3), (2, 1), [(1, 0), (2, -1)], 0.0, np.sum, base=(1, 2), dilation=(2, 1)) + 1
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    spread = lax.reduce_window(X[0], 0.5, lax.add, (2,), (1,), "VALID", (2,))  # holes alone, not pads
    np.testing.assert_allclose(np.asarray(spread), X[0][(np.arange(12) + 1) // 2] + 0.5, rtol=1e-6)  # one element each
    columns = np.broadcast_to(np.arange(7, dtype=np.int32), X.shape)
    first_max = lambda a, b: (lax.max(a[0], b[0]), lax.select(a[0] >= b[0], a[1], b[1]))  # noqa: E731
    values, where = lax.reduce_window((X, columns), (-np.inf, np.int32(0)), first_max, (1, 3), (1, 3), "VALID")
    want = X[:, :6].reshape(5, 2, 3)
    np.testing.assert_array_equal(values, want.max(-1))
    np.testing.assert_array_equal(where, want.argmax(-1) + [0, 3])
    with pytest.raises(TypeError, match="inconsistent dtypes for operands and init_values"):
        lax.reduce_window(X, 1, lax.mul, (2, 2), (1, 1), "VALID")  # an int initial value for floats
    with pytest.raises(ValueError, match="must have the same tree structure"):
        lax.reduce_window((X, X), 1.0, lax.mul, (2, 2), (1, 1), "VALID")


@pytest.mark.parametrize("args, error, message", [
    (((2,), (1, 1), "VALID"), TypeError, "wrong number of window_dimensions"),
    (((2, 2), (0, 1), "VALID"), TypeError, "strictly positive"),
    (((2, 2), (1, 1), "FULL"), RuntimeError, "Unrecognized padding type"),
])  # fmt: skip
def test_misuse(args, error, message):
    with pytest.raises(error, match=message):
        lax.reduce_window(X, 0.0, lax.add, *args)
    # The identity in another type still names the monoid, as in JAX.
    np.testing.assert_allclose(lax.reduce_window(X, np.float16(0), lax.add, (5, 7)), [[X.sum()]], rtol=1e-6)
