"""didax.random's raw keys: key_data and wrap_key_data hand back didax arrays, never the caller's buffer."""

import numpy as np
import pytest

from didax import random
from didax.array import Array


@pytest.mark.parametrize("fn", [random.key_data, random.wrap_key_data])
def test_a_key_made_from_a_numpy_buffer_does_not_change_with_it(fn):
    buf = np.array([[1, 2], [3, 4]], np.uint32)
    keys = fn(buf)
    assert isinstance(keys, Array)
    before = random.uniform(keys[1], (3,)).tolist()
    buf[:] = 9  # JAX copies the words into its own array: so does didax
    assert np.asarray(random.key_data(keys)).tolist() == [[1, 2], [3, 4]]
    assert random.uniform(keys[1], (3,)).tolist() == before
