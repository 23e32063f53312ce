"""What a user reads when printing types, traced values and jaxprs: the parts of the printouts that
say what a value is. A type prints in short, ``float32[3]``, with ``~`` in front of a weak type
(``~float32[]``) and its ``repr`` spelled out (``ShapedArray(float32[], weak_type=True)``); a traced
value prints the same for ``print``, ``repr`` and f-strings, and names its type (under ``vmap``, one
example's and the batch's; under ``jvp``, its primal and tangent); a jaxpr's binders and literals
carry their types (``a:f32[3]``, ``3.0:f32[]``).

The exact words around them (``JitTracer(...)``, line breaks) are a release's, and are pinned by the
stages' own tests, not here. One exception: what jax.numpy and lax functions stage (which equations,
in which order, with which parameters) is compared with JAX 0.10.2's printout, whitespace aside and
without the sharding parameters (``sharding=None``, ``out_sharding=None``) of a JAX that has them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from conformance.checks import release_detail, show_call
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


# --- what numpy and lax functions stage: JAX 0.10.2's printouts ---------------------------------------

F = np.float32
# (id, source of f, its arguments, JAX 0.10.2's print(jax.make_jaxpr(f)(*args))).
STAGED = [
    ("rank_promotion", "lambda x, y: x + y", (np.ones((2, 3), F), np.ones(3, F)), """
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[2,3] = add a c
  in (d,) }"""),
    ("keepdims", "lambda x: jnp.max(x, axis=1, keepdims=True)", (np.ones((2, 3), F),), """
{ lambda ; a:f32[2,3]. let
    b:f32[2] = reduce_max[axes=(1,) out_sharding=None] a
    c:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b
  in (c,) }"""),
    ("dot", "lambda a, b: jnp.dot(a, b)", (np.ones((2, 3), F), np.ones((3, 4), F)), """
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
    ("matmul_vector_matrix", "lambda a, b: a @ b", (np.ones(3, F), np.ones((3, 4), F)), """
{ lambda ; a:f32[3] b:f32[3,4]. let
    c:f32[4] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
    ("matmul_batch_of_one", "lambda a, b: a @ b", (np.ones((5, 2, 3), F), np.ones((1, 3, 4), F)), """
{ lambda ; a:f32[5,2,3] b:f32[1,3,4]. let
    c:f32[3,4] = squeeze[dimensions=(0,)] b
    d:f32[5,2,4] = dot_general[
      dimension_numbers=(([2], [0]), ([], []))
      preferred_element_type=float32
    ] a c
  in (d,) }"""),
    ("matmul_batch_on_one_side", "lambda a, b: jnp.matmul(a, b)", (np.ones((2, 3), F), np.ones((5, 3, 4), F)), """
{ lambda ; a:f32[2,3] b:f32[5,3,4]. let
    c:f32[2,5,4] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[5,2,4] = transpose[permutation=(1, 0, 2)] c
  in (d,) }"""),
    ("index_int", "lambda x: x[1]", (np.ones((3, 4), F),), """
{ lambda ; a:f32[3,4]. let
    b:f32[1,4] = slice[limit_indices=(2, 4) start_indices=(1, 0) strides=None] a
    c:f32[4] = squeeze[dimensions=(0,)] b
  in (c,) }"""),
    ("index_step", "lambda x: x[::2, 1]", (np.ones((5, 4), F),), """
{ lambda ; a:f32[5,4]. let
    b:f32[3,1] = slice[limit_indices=(5, 2) start_indices=(0, 1) strides=(2, 1)] a
    c:f32[3] = squeeze[dimensions=(1,)] b
  in (c,) }"""),
    ("index_negative_step", "lambda x: x[3::-2]", (np.ones(6, F),), """
{ lambda ; a:f32[6]. let
    b:f32[2] = slice[limit_indices=(4,) start_indices=(1,) strides=(2,)] a
    c:f32[2] = rev[dimensions=(0,)] b
  in (c,) }"""),
    ("index_new_axes", "lambda x: x[None, 1, :, None]", (np.ones((3, 4), F),), """
{ lambda ; a:f32[3,4]. let
    b:f32[1,4] = slice[limit_indices=(2, 4) start_indices=(1, 0) strides=None] a
    c:f32[4] = squeeze[dimensions=(0,)] b
    d:f32[1,4,1] = broadcast_in_dim[broadcast_dimensions=(1,)] c
  in (d,) }"""),
    ("index_dynamic", "lambda x, i: x[i]", (np.ones(5, F), np.int32(2)), """
{ lambda ; a:f32[5] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 5:i32[]
    e:i32[] = select_n c b d
    f:f32[1] = dynamic_slice[slice_sizes=(1,)] a e
    g:f32[] = squeeze[dimensions=(0,)] f
  in (g,) }"""),
    ("switch", "lambda i, x: lax.switch(i, [jnp.sin, jnp.cos], x)", (np.int32(1), F(1.0)), """
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] = clamp 0:i32[] a 1:i32[]
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = sin e in (f,) }
        { lambda ; g:f32[]. let h:f32[] = cos g in (h,) }
      )
    ] c b
  in (d,) }"""),
    ("astype_to_its_own_dtype", "lambda x: x.astype(jnp.float32) + 1", (np.ones(3, F),), """
{ lambda ; a:f32[3]. let b:f32[3] = add a 1.0:f32[] in (b,) }"""),
]


def _comparable(text: str) -> str:
    """A printout without JAX's sharding parameters, its whitespace made single spaces."""
    text = " ".join(re.sub(r" ?\b(out_)?sharding=None", "", text).split())
    return text.replace("[ ", "[").replace(" ]", "]")


@pytest.mark.area("jaxpr")
@pytest.mark.requires("jaxpr")
@pytest.mark.parametrize("source, args, want", [c[1:] for c in STAGED], ids=[c[0] for c in STAGED])
def test_numpy_and_lax_functions_stage_what_jax_stages(impl: Impl, source: str, args: tuple, want: str) -> None:
    """The equations a jaxpr shows are the ones JAX's functions stage: rank promotion and keepdims
    as broadcast_in_dim, an integer index as slice and squeeze (strides=None for unit steps), a
    negative step as a slice then rev, matmul as one dot_general with no broadcast operand and
    dot_general's preferred_element_type named, no convert_element_type to the type a value has.
    Which equations a function stages is JAX 0.10.2's choice, not a promise of the API (JAX 0.4
    staged several of these differently): a release detail."""
    jax = Namespace(impl.module, "jax")
    scope = {"jnp": impl.numpy, "lax": impl.lax, "np": np}
    f = eval(source, scope)  # the suite's own text
    show_call(f"print(jax.make_jaxpr({source})(*args))", args=args)
    got = str(jax.make_jaxpr(f)(*args))
    release_detail(_comparable(got) == _comparable(want), f"printed\n{got}\nJAX 0.10.2 prints\n{want.strip()}")
