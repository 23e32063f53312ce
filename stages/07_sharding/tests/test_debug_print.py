"""debug.print: values printed when computed, eagerly, under jit (through XLA's host callback),
vmap (one line per batch member) and grad (the primal values)."""

import numpy as np

import didax
import didax.numpy as jnp


def f(x):
    didax.debug.print("x = {x}", x=x)
    return x * 2


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_eager_and_jitted_calls_print_the_values(capsys):
    f(3.0)
    assert lines(capsys) == ["x = 3.0"]
    g = didax.jit(f)
    g(3.0)
    g(4.0)  # no tracing the second time: the compiled program prints
    assert lines(capsys) == ["x = 3.0", "x = 4.0"]


def test_positional_arguments_and_arrays_print_as_numpy_does(capsys):
    didax.jit(lambda x: didax.debug.print("{} and {}", x, x + 1))(jnp.arange(3.0))
    assert lines(capsys) == [f"{np.arange(3.0, dtype=np.float32)} and {np.arange(1.0, 4.0, dtype=np.float32)}"]


def test_vmap_prints_each_member_and_grad_the_primal(capsys):
    didax.vmap(f)(jnp.arange(3.0))
    assert lines(capsys) == ["x = 0.0", "x = 1.0", "x = 2.0"]
    assert float(didax.grad(f)(2.0)) == 2.0
    assert lines(capsys) == ["x = 2.0"]
    didax.jit(didax.vmap(didax.grad(f)))(jnp.array([5.0, 6.0]))
    assert lines(capsys) == ["x = 5.0", "x = 6.0"]


def test_a_print_whose_result_is_unused_is_not_eliminated(capsys):
    jaxpr = didax.make_jaxpr(f)(1.0)
    assert "debug_print" in str(jaxpr)
    lowered = didax.jit(f).lower(1.0).as_text()
    assert "xla_ffi_python_cpu_callback" in lowered and "has_side_effect = true" in lowered
