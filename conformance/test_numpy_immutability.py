"""Arrays are immutable values: nothing done to a NumPy array changes an array made from it, and
NumPy's view of an array cannot be written to. The oracle is a copy taken before the mutation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.checks import show_call
from conformance.impl import Impl

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

# Operations that NumPy would answer with a view of its input: the likeliest way to alias.
VIEWS: dict[str, Callable[[Any, Any], Any]] = {
    "asarray": lambda jnp, x: x,
    "reshape": lambda jnp, x: jnp.reshape(x, (-1,)),
    "transpose": lambda jnp, x: x.T,
    "slice": lambda jnp, x: x[::-1],
    "squeeze": lambda jnp, x: jnp.squeeze(jnp.expand_dims(x, 0), 0),
    "broadcast_to": lambda jnp, x: jnp.broadcast_to(x, (2, *x.shape)),
    "array": lambda jnp, x: jnp.array(x),
}


@pytest.mark.parametrize("view", list(VIEWS))
@given(data=st.data())
def test_arrays_do_not_change_when_their_numpy_source_does(impl: Impl, view: str, data: st.DataObject) -> None:
    buf = data.draw(S.arrays(np.dtype(np.float32), S.shapes(min_dims=1, max_dims=3, min_side=1)), label="buf")
    show_call(f"y = <{view} of> jnp.asarray(buf); buf[...] = 7; np.asarray(y)", buf=buf)
    y = VIEWS[view](impl.numpy, impl.numpy.asarray(buf))
    before = np.array(y, copy=True)
    buf[...] = 7
    np.testing.assert_array_equal(np.asarray(y), before)


def test_filling_one_buffer_in_a_loop_keeps_every_value(impl: Impl) -> None:
    buf = np.zeros(2, np.int32)
    kept = []
    for i in range(4):
        buf[:] = i
        kept.append(impl.numpy.asarray(buf))
    assert [np.asarray(a).tolist() for a in kept] == [[i, i] for i in range(4)]


# arange's buffer may already be read-only inside (a broadcast iota): the others' buffers are not.
MADE = {
    "arange": lambda jnp: jnp.arange(3),
    "asarray": lambda jnp: jnp.asarray([0, 1, 2]),
    "asarray-numpy": lambda jnp: jnp.asarray(np.arange(3, dtype=np.int32)),
    "sum": lambda jnp: jnp.arange(3) + 0,
}


@pytest.mark.parametrize("made_by", list(MADE))
def test_numpy_views_of_arrays_are_read_only(impl: Impl, made_by: str) -> None:
    x = MADE[made_by](impl.numpy)
    view = np.asarray(x)
    with pytest.raises(ValueError):
        view[0] = 5
    assert np.asarray(x).tolist() == [0, 1, 2]
