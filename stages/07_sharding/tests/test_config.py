"""The flags JAX programs commonly set: accepted, remembered, and jax_debug_nans checks results."""

import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax


@pytest.fixture
def debug_nans():
    didax.config.update("jax_debug_nans", True)
    try:
        yield
    finally:
        didax.config.update("jax_debug_nans", False)


def test_debug_nans_raises_on_an_eager_nan_with_the_primitive_named(debug_nans):
    with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
        jnp.log(jnp.float32(-1.0))
    with pytest.raises(FloatingPointError, match="encountered in sqrt"):
        jnp.sqrt(jnp.array([-1.0, 2.0]))
    with pytest.raises(FloatingPointError, match="encountered in sin"):
        lax.sin(np.float32(np.inf))


def test_debug_nans_lets_inf_and_integers_through(debug_nans):
    assert np.isinf(np.asarray(jnp.exp(jnp.float32(1000.0))))
    assert int(jnp.int32(3) // 0) == -2


def test_debug_nans_off_by_default_and_the_next_call_works():
    assert didax.config.jax_debug_nans is False
    assert np.isnan(np.asarray(jnp.log(-1.0)))
    didax.config.update("jax_debug_nans", True)
    try:
        with pytest.raises(FloatingPointError):
            jnp.log(-1.0)
    finally:
        didax.config.update("jax_debug_nans", False)
    assert np.isnan(np.asarray(jnp.log(-1.0)))


def test_platform_name_and_matmul_precision_are_accepted_and_read_back():
    saved = didax.config.values()
    try:
        didax.config.update("jax_platform_name", "cpu")
        assert didax.config.read("jax_platform_name") == "cpu"
        didax.config.update("jax_default_matmul_precision", "highest")
        assert didax.config.jax_default_matmul_precision == "highest"
        didax.config.update("jax_default_matmul_precision", None)
        with pytest.raises(ValueError, match="new enum value must be None or in"):
            didax.config.update("jax_default_matmul_precision", "fastest")
    finally:
        for name, value in saved.items():
            didax.config.update(name, value)


@pytest.mark.parametrize(
    "environment, says",
    [
        ({"JAX_ENABLE_X64": "1"}, "True standard float64"),
        ({"JAX_ENABLE_X64": "off", "JAX_NUMPY_DTYPE_PROMOTION": "strict"}, "False strict float32"),
        ({"JAX_ENABLE_X64": "maybe"}, "ValueError invalid truth value 'maybe' for environment 'JAX_ENABLE_X64'"),
    ],
)
def test_flags_start_from_their_environment_variables(environment, says):
    """As in JAX, each flag's first value comes from the variable of its name in capitals, read at
    import; a truth value that is neither true nor false is a ValueError naming the variable."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    source = (
        "try:\n import didax, didax.numpy as jnp\nexcept ValueError as e:\n print('ValueError', e)\n"
        "else:\n c = didax.config\n print(c.jax_enable_x64, c.jax_numpy_dtype_promotion, jnp.arange(3.0).dtype)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")} | environment
    stage = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", source], cwd=stage, env=env, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == says, result.stderr
