"""What a user reads when printing types, traced values and jaxprs: the parts of the printouts that
say what a value is. A type prints in short, ``float32[3]``, with ``~`` in front of a weak type
(``~float32[]``) and its ``repr`` spelled out (``ShapedArray(float32[], weak_type=True)``); a traced
value prints the same for ``print``, ``repr`` and f-strings, and names its type (under ``vmap``, one
example's and the batch's; under ``jvp``, its primal and tangent); a jaxpr's binders and literals
carry their types (``a:f32[3]``, ``3.0:f32[]``).

The exact words around them (``JitTracer(...)``, line breaks) are a release's, and are pinned by the
stages' own tests, not here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from conformance.checks import show_call
from conformance.impl import Impl
from conformance.missing import Namespace

X3 = np.array([0.5, -1.25, 2.0], np.float32)


def _printed(transform: Callable[[Callable[[Any], Any]], Callable[..., Any]], *args: Any) -> str:
    """The text ``print(x)`` shows for the traced ``x`` inside ``transform(f)(*args)``."""
    seen: list[str] = []

    def spy(x: Any) -> Any:
        text = str(x)
        assert repr(x) == text == f"{x}", f"print, repr and f-strings differ: {text!r}, {x!r}, {f'{x}'!r}"
        seen.append(text)
        return x

    transform(spy)(*args)
    assert len(seen) == 1, seen
    return seen[0]


@pytest.mark.area("promotion")
@pytest.mark.requires("eval")
def test_a_type_prints_in_short_with_a_tilde_for_a_weak_type(impl: Impl) -> None:
    core = Namespace(Namespace(impl.module, "jax").core, "jax.core")
    show_call("a = jax.core.ShapedArray((), np.float32, weak_type=True)\nprint(a, repr(a))")
    weak, strong = core.ShapedArray((), np.float32, weak_type=True), core.ShapedArray((2, 3), np.int32)
    assert str(weak) == "~float32[]", str(weak)
    assert repr(weak) == "ShapedArray(float32[], weak_type=True)", repr(weak)
    assert (str(strong), repr(strong)) == ("int32[2,3]", "ShapedArray(int32[2,3])"), (str(strong), repr(strong))


@pytest.mark.area("jaxpr")
@pytest.mark.requires("jaxpr")
def test_a_staged_value_prints_its_type(impl: Impl) -> None:
    jax = Namespace(impl.module, "jax")
    show_call("jax.make_jaxpr(lambda x: print(x) or x)(1.0)")
    weak = _printed(jax.make_jaxpr, 1.0)
    assert "~float32[]" in weak, weak
    strong = _printed(jax.make_jaxpr, X3)
    assert "float32[3]" in strong and "~" not in strong, strong


@pytest.mark.area("jaxpr")
@pytest.mark.requires("jaxpr")
def test_a_printed_jaxpr_types_its_binders_and_literals(impl: Impl) -> None:
    jax = Namespace(impl.module, "jax")
    show_call("print(jax.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(x))", x=X3)
    text = str(jax.make_jaxpr(lambda x: impl.numpy.sin(x) * 3.0)(X3))
    assert text.startswith("{ lambda ; a:f32[3]. let") and text.endswith(" }"), text
    assert "b:f32[3] = sin a" in text and "c:f32[3] = mul b 3.0:f32[]" in text, text


@pytest.mark.area("vmap")
@pytest.mark.requires("vmap")
def test_a_batched_value_prints_one_examples_type_and_the_batchs(impl: Impl) -> None:
    jax = Namespace(impl.module, "jax")
    show_call("jax.vmap(lambda x: print(x) or x)(np.ones((3, 2), np.float32))")
    text = _printed(jax.vmap, np.ones((3, 2), np.float32))
    assert "float32[2]" in text and "float32[3,2]" in text, text


@pytest.mark.area("jvp")
@pytest.mark.requires("jvp")
def test_a_jvp_value_prints_its_primal_and_tangent(impl: Impl) -> None:
    jax = Namespace(impl.module, "jax")
    show_call("jax.jvp(lambda x: print(x) or x, (3.0,), (1.0,))")
    text = _printed(lambda f: lambda: jax.jvp(f, (3.0,), (1.0,)))
    assert "3.0" in text and "1.0" in text, text
