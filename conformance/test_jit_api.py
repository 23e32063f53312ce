"""``jax.jit``'s call API and device arrays: a jitted function traces once per signature (argument
shapes, dtypes, weak types, tree structure, static argument values, the x64 mode) and never for new
values; ``static_argnums``/``static_argnames``, JAX's errors for unhashable static arguments and
for Python control flow on traced values; donation; ``lower(...).as_text()`` and ``.compile()``;
``jax_disable_jit``; and the arrays a jitted function returns (``block_until_ready``, NumPy
interop, read-only views, printing, bfloat16, ``device_get``/``device_put``/``devices``).

Tracing is counted by a Python side effect in the function (a list it appends to): it runs when
the function is traced, never when a compiled program runs. Values are compared with the eager
function's as in test_jit.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from conformance.checks import RTOL, assert_dtype, assert_values, show_call
from conformance.impl import Impl
from conformance.missing import Namespace, unwrap
from conformance.test_jit import assert_like_eager

pytestmark = [pytest.mark.area("jit"), pytest.mark.requires("jit")]

F32, F64, I32 = (np.dtype(n) for n in ("float32", "float64", "int32"))
BF16 = np.dtype(ml_dtypes.bfloat16)
COUNTED = ("traces = []\ndef f(p):\n    traces.append(None)\n"
           "    return jax.tree_util.tree_map(lambda v: v * 2, p)\ng = jax.jit(f)\n")


def _jax(impl: Impl) -> Any:
    return Namespace(impl.module, "jax")


def counted(impl: Impl, body: Callable[..., Any], **jit_kwargs: Any) -> tuple[Callable[..., Any], list[Any]]:
    """``jit(f, **jit_kwargs)`` of an ``f`` that runs ``body`` and notes each time it is traced."""
    traces: list[Any] = []

    def f(*args: Any, **kwargs: Any) -> Any:
        traces.append(None)
        return body(*args, **kwargs)

    return _jax(impl).jit(f, **jit_kwargs), traces


def _doubled(impl: Impl) -> Callable[[Any], Any]:
    return lambda p: _jax(impl).tree_util.tree_map(lambda v: v * 2, p)


def _bumped(tree: Any) -> Any:
    """The same types, new values: every leaf plus one (NumPy arrays keep their dtype)."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_bumped(t) for t in tree)
    if isinstance(tree, dict):
        return {k: _bumped(v) for k, v in tree.items()}
    if isinstance(tree, (np.ndarray, np.generic)):
        return (tree + 1).astype(tree.dtype)
    return tree + 1


# --- tracing once per signature -------------------------------------------------------------------------------

V3 = np.array([1.0, 2.0, 3.0], np.float32)
V4 = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
# (id, an argument, another argument of another signature)
SIGNATURES = [
    ("shape", V3, np.array([1.0, 2.0, 3.0, 4.0], np.float32)),
    ("rank", V3, V3.reshape(1, 3)),
    ("dtype", V3, V3.astype(np.int32)),
    ("weak_type", 2.0, np.float32(2.0)),  # a Python float is weakly typed, a NumPy scalar strongly
    ("python_int_and_float", 2, 2.0),
    ("tree_dict_keys", {"a": V3}, {"b": V3}),
    ("tree_tuple_and_list", (V3, V3), [V3, V3]),
    ("tree_length", (V3,), (V3, V3)),
    ("tree_nesting", {"a": (V3, V3)}, {"a": ((V3,), V3)}),
]


@pytest.mark.parametrize("kind", ["numpy", "device"])
@pytest.mark.parametrize("first, second", [s[1:] for s in SIGNATURES], ids=[s[0] for s in SIGNATURES])
def test_traces_once_per_signature(impl: Impl, first: Any, second: Any, kind: str) -> None:
    """``g = jit(f)`` called with an argument, again with new values of the same types, then with an
    argument of another signature (twice), then the first again: f is traced twice in all, and each
    call gives f's value. The leaves are NumPy values and Python scalars, or the same put on the
    device with ``jax.device_put`` (the case a fast dispatch path serves, trees included)."""
    g, traces = counted(impl, _doubled(impl))
    calls = [first, _bumped(first), second, _bumped(second), _bumped(_bumped(first))]
    if kind == "device":
        calls = [_jax(impl).device_put(c) for c in calls]
    show_call(f"{COUNTED}[g(a), g(b), g(c), g(d), g(e)], len(traces)  # 2 traces",
              **dict(zip("abcde", calls)))  # fmt: skip
    for k, arg in enumerate(calls):
        assert_like_eager(impl, g(arg), _doubled(impl)(arg), f"call {k}: output")
    assert len(traces) == 2, f"{len(traces)} traces for two signatures (one per signature expected)"


def test_a_tree_of_device_arrays_keeps_its_leaves_in_place(impl: Impl) -> None:
    """Arguments in containers, already on the device and called again: each leaf still meets its
    own parameter. A dict's leaves go in the order of its sorted keys whatever order it was built
    in, a None is an empty node, and keyword arguments are part of the tree."""
    jax = _jax(impl)
    f = lambda tree, *, scale: [tree["b"] * scale[0], tree["a"][0] - tree["a"][1], tree["c"]]  # noqa: E731
    g = jax.jit(f)
    v = {"b": V3, "c": None, "a": (V4, V4[::-1].copy())}
    show_call("f = lambda tree, *, scale: [tree['b'] * scale[0], tree['a'][0] - tree['a'][1], tree['c']]\n"
              "jax.jit(f)({'b': put(v['b']), 'c': None, 'a': (put(v['a'][0]), put(v['a'][1]))}, "
              "scale=(put(2.0),))  # three times, put = jax.device_put", v=v)
    put = jax.device_put
    for k in range(3):  # (the dict built after the puts: device_put's own result has its keys sorted)
        tree, scale = {"b": put(V3), "c": None, "a": (put(V4), put(V4[::-1].copy()))}, (put(np.float32(2.0 + k)),)
        assert_like_eager(impl, g(tree, scale=scale), f(v, scale=(np.float32(2.0 + k),)), f"call {k}: output")


def test_new_values_never_retrace(impl: Impl) -> None:
    """NumPy arrays, the implementation's arrays (jnp.asarray, device_put) and a jitted function's
    own result, all of one type: one trace."""
    jax, jnp = _jax(impl), impl.numpy
    g, traces = counted(impl, lambda x: x * 2.0 + 1.0)
    arguments = [V3, V3 * 3, jnp.asarray(V3 - 1), jax.device_put(V3 + 5)]
    arguments.append(g(arguments[-1]))
    show_call("traces = []\ndef f(x):\n    traces.append(None)\n    return x * 2.0 + 1.0\ng = jax.jit(f)\n"
              "[g(x), g(x * 3), g(jnp.asarray(x - 1)), g(g(jax.device_put(x + 5)))], len(traces)  # 1 trace", x=V3)
    for k, x in enumerate(arguments):
        assert_values(g(x), np.asarray(x).astype(F64) * 2 + 1, F32)
    assert len(traces) == 1, f"{len(traces)} traces for arguments of one type"


@pytest.mark.parametrize("make", ["jnp.asarray", "jax.device_put"])
def test_new_arrays_of_two_shapes_trace_once_per_signature(impl: Impl, make: str) -> None:
    """Arrays of the implementation, new ones for each call, of two shapes in turn: two traces, and
    each call gives its own argument's value (an array made eagerly and one put on the device)."""
    jax, jnp = _jax(impl), impl.numpy
    new = jnp.asarray if make == "jnp.asarray" else jax.device_put
    g, traces = counted(impl, lambda x: x * 2.0 + 1.0)
    values = [V3, V3 + 1, V4, V4 + 1, V3 + 2, V4 + 2]
    show_call(f"traces = []\ndef f(x):\n    traces.append(None)\n    return x * 2.0 + 1.0\ng = jax.jit(f)\n"
              f"[g({make}(v)) for v in (a, a + 1, b, b + 1, a + 2, b + 2)], len(traces)  # 2 traces", a=V3, b=V4)
    for k, v in enumerate(values):
        assert_values(g(new(v)), v.astype(F64) * 2 + 1, F32)
    assert len(traces) == 2, f"{len(traces)} traces for arrays of two shapes"


RESULT_TREES = {
    "array": lambda x: x * 2.0,
    "tuple": lambda x: (x, x * 2.0),
    "one_tuple": lambda x: (x * 2.0,),
    "list": lambda x: [x, x * 2.0],
    "dict": lambda x: {"b": x, "a": (x * 2.0, [x])},
}


@pytest.mark.parametrize("name", list(RESULT_TREES))
def test_results_keep_their_tree_on_every_call(impl: Impl, name: str) -> None:
    """A jitted function's result has the tree of the function's own result (a tuple stays a tuple,
    a list a list), on the first call and on the cached calls after it."""
    jax = _jax(impl)
    f = RESULT_TREES[name]
    g = jax.jit(f)
    x = jax.device_put(V3)
    want = jax.tree_util.tree_structure(f(V3))
    show_call(f"g = jax.jit(f)  # f's result: {name}\nx = jax.device_put(x)\n[type(g(x)) for _ in range(3)]", x=V3)
    for k in range(3):
        got = g(x)
        assert jax.tree_util.tree_structure(got) == want, f"call {k}: tree {jax.tree_util.tree_structure(got)}"
        if name != "array":  # (f's own result is a NumPy array there)
            assert type(got) is type(f(V3)), f"call {k}: a {type(got).__name__}, not a {type(f(V3)).__name__}"


def test_arrays_the_function_closed_over_are_used_on_every_call(impl: Impl) -> None:
    """A jitted function that closed over arrays (one of the implementation's, one of NumPy's) uses
    them on every call, the cached ones with device arrays included, and is traced once."""
    jax, jnp = _jax(impl), impl.numpy
    w, b = jnp.asarray(V3 * 10), V3[::-1].copy()
    g, traces = counted(impl, lambda x: x * w + b)
    show_call("w, b = jnp.asarray(v * 10), v[::-1].copy()\ng = jax.jit(lambda x: x * w + b)\n"
              "[g(jax.device_put(v + k)) for k in range(3)]", v=V3)
    for k in range(3):
        x = V3 + np.float32(k)
        assert_values(g(jax.device_put(x)), x.astype(F64) * (V3 * 10) + V3[::-1], F32)
    assert len(traces) == 1, f"{len(traces)} traces for arguments of one type"


def test_a_python_scalar_and_a_weakly_typed_array_share_a_signature(impl: Impl) -> None:
    """A Python float and the implementation's weakly typed float32 scalar (``jnp.asarray(3.0)``)
    have one type, float32 weak: one trace; a strongly typed float32 scalar is another."""
    jnp = impl.numpy
    g, traces = counted(impl, lambda x: x * 2)
    show_call("traces = []\ndef f(x):\n    traces.append(None)\n    return x * 2\ng = jax.jit(f)\n"
              "g(2.0), g(jnp.asarray(3.0)), g(np.float32(4.0)), len(traces)  # 2 traces")
    for x, weak in [(2.0, True), (jnp.asarray(3.0), True), (np.float32(4.0), False)]:
        got = g(x)
        assert_dtype(got, F32, f"g({x!r})", weak=weak)
        assert_values(got, np.float64(x) * 2, F32)
    assert len(traces) == 2, f"{len(traces)} traces for a weak and a strong float32 scalar"


def test_weak_and_strong_device_arrays_have_their_own_traces(impl: Impl) -> None:
    """Arrays already on the device (the case a fast dispatch path serves) are found by their whole
    type: a weakly typed float32 after a strong one is a new trace, and its result is weak too."""
    jax, jnp = _jax(impl), impl.numpy
    g, traces = counted(impl, lambda x: x * 2)
    strong, weak = jax.device_put(np.float32(3.0)), jax.device_put(jnp.asarray(3.0))
    show_call("traces = []\ndef f(x):\n    traces.append(None)\n    return x * 2\ng = jax.jit(f)\n"
              "s, w = jax.device_put(np.float32(3.0)), jax.device_put(jnp.asarray(3.0))\n"
              "g(s), g(s), g(w), g(w), len(traces)  # 2 traces; g(w) is weak")
    for x, weak_type in [(strong, False), (strong, False), (weak, True), (weak, True), (strong, False)]:
        got = g(x)
        assert_dtype(got, F32, f"g({'weak' if weak_type else 'strong'} device float32)", weak=weak_type)
        assert_values(got, 6.0, F32)
    assert len(traces) == 2, f"{len(traces)} traces for a strong and a weak device float32"


def test_keyword_arguments_are_traced_by_type_too(impl: Impl) -> None:
    """Non-static keyword arguments are traced arguments: new values do not retrace, a new shape does."""
    g, traces = counted(impl, lambda x, *, y: x * y)
    show_call("traces = []\ndef f(x, *, y):\n    traces.append(None)\n    return x * y\ng = jax.jit(f)\n"
              "g(x, y=x), g(x, y=x + 1), g(x, y=x[:1]), len(traces)  # 2 traces", x=V3)
    for y in [V3, V3 + 1, V3[:1]]:
        assert_values(g(V3, y=y), V3.astype(F64) * y, F32)
    assert len(traces) == 2, f"{len(traces)} traces for two signatures of y"


@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_the_x64_mode_is_part_of_the_signature(impl: Impl, flags, kind: str) -> None:
    """The same arguments under another jax_enable_x64 mode trace again (a constant made inside is
    float64 there); back in the first mode, the first trace is used again. Each call is made twice,
    and the argument is a NumPy array or one already on the device (a fast dispatch path's case)."""
    jnp = impl.numpy
    g, traces = counted(impl, lambda x: x + jnp.arange(3.0))
    xs = np.array([1, 2, 3], np.int32)
    arg = xs if kind == "numpy" else _jax(impl).device_put(xs)
    show_call("traces = []\ndef f(x):\n    traces.append(None)\n    return x + jnp.arange(3.0)\ng = jax.jit(f)\n"
              "a = g(x)\njax.config.update('jax_enable_x64', True)\nb = g(x)\n"
              "jax.config.update('jax_enable_x64', False)\nc = g(x)\na.dtype, b.dtype, c.dtype, len(traces)", x=xs)
    for x64, dt in [(False, F32), (False, F32), (True, F64), (True, F64), (False, F32)]:
        flags("jax_enable_x64", x64)
        got = g(arg)
        assert_dtype(got, dt, f"result with x64 {'on' if x64 else 'off'}", weak=False)
        assert_values(got, xs + np.arange(3.0), dt)
    assert len(traces) == 2, f"{len(traces)} traces for one argument type in two x64 modes"


@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_the_promotion_mode_is_part_of_the_signature(impl: Impl, kind: str) -> None:
    """A function that promotes int32 with float32, called in the standard promotion mode (float32)
    and then inside ``numpy_dtype_promotion('strict')``: there it raises TypePromotionError, as an
    eager call would, instead of running the standard mode's trace; back outside, it works again."""
    jax = _jax(impl)
    g = jax.jit(lambda x, y: x + y)
    i, f = np.array([1, 2, 3], np.int32), V3
    args = (i, f) if kind == "numpy" else (jax.device_put(i), jax.device_put(f))
    show_call("g = jax.jit(lambda x, y: x + y)\ng(i, f)\nwith jax.numpy_dtype_promotion('strict'):\n    g(i, f)",
              i=i, f=f)  # fmt: skip
    for _ in range(2):  # the second time from the caches
        assert_values(g(*args), i + f.astype(F64), F32)
    with impl.numpy_dtype_promotion("strict"), pytest.raises(impl.TypePromotionError):
        g(*args)
    assert_values(g(*args), i + f.astype(F64), F32)


def test_none_and_an_array_not_on_the_device_yet_are_different_arguments(impl: Impl) -> None:
    """``g(x, None)`` with x on the device, then ``g(x, y)`` with y an array made eagerly: the second
    call traces its own case (x + y), as in JAX, instead of taking y for the None of the first."""
    jax, jnp = _jax(impl), impl.numpy
    g = jax.jit(lambda x, y: x if y is None else x + y)
    show_call("g = jax.jit(lambda x, y: x if y is None else x + y)\nx = g(jnp.ones(3), None)\n"
              "g(x, jnp.full(3, 10.0))")  # fmt: skip
    x = g(jnp.ones(3), None)
    g(x, None)
    assert_values(g(x, jnp.full(3, 10.0)), np.full(3, 11.0), F32)
    assert_values(g(x, jnp.full(3, 5.0)), np.full(3, 6.0), F32)


def test_a_new_jit_of_the_same_function_shares_its_traces(impl: Impl) -> None:
    """``jax.jit(f)(x)`` written anew at every call (in a loop, say) traces f once per signature, as
    JAX's cache is keyed by the function (JAX's "Common gotchas" tutorial); jits of it with other
    options (static_argnums, donate_argnums) keep their own traces."""
    jax = _jax(impl)
    traces: list[None] = []

    def f(x: Any, n: int = 2) -> Any:
        traces.append(None)
        return x * n

    show_call("traces = []\ndef f(x, n=2):\n    traces.append(None)\n    return x * n\n"
              "jax.jit(f)(4.0), jax.jit(f)(5.0), [jax.jit(f)(jax.device_put(x)) for _ in range(3)], len(traces)",
              x=V3)  # fmt: skip
    assert float(jax.jit(f)(4.0)) == 8.0 and float(jax.jit(f)(5.0)) == 10.0
    assert len(traces) == 1, f"{len(traces)} traces of one signature by two jits of one function"
    for _ in range(3):
        assert_values(jax.jit(f)(jax.device_put(V3)), V3.astype(F64) * 2, F32)
    assert len(traces) == 2, f"{len(traces)} traces for two signatures"
    assert float(jax.jit(f, static_argnums=1)(4.0, 3)) == 12.0
    assert len(traces) == 3, "a jit with static_argnums used the trace of a jit without"
    x = jax.device_put(V3)
    assert_values(jax.jit(f, donate_argnums=0)(x), V3.astype(F64) * 2, F32)
    assert x.is_deleted(), "a jit with donate_argnums ran the trace of a jit without (nothing was donated)"


def test_an_argument_nested_800_lists_deep(impl: Impl) -> None:
    """A pytree argument 800 lists deep (deeper than a recursive walk of Python's default limit
    allows, with the frames around it): traced, run and run again from the caches, as JAX does."""
    jax = _jax(impl)
    tree: Any = jax.device_put(V3)
    for _ in range(800):
        tree = [tree]
    g = jax.jit(lambda t: t)
    show_call("t = jax.device_put(x)\nfor _ in range(800):\n    t = [t]\njax.jit(lambda t: t)(t)", x=V3)
    for _ in range(2):
        out = g(tree)
        for _ in range(800):
            assert isinstance(out, list) and len(out) == 1
            out = out[0]
        np.testing.assert_array_equal(np.asarray(out), V3)


# --- static arguments -----------------------------------------------------------------------------------------


def _scaled(x: Any, n: int) -> Any:
    return x * n if n > 0 else x - n  # Python control flow on n: only a static n allows it


def test_static_argnums_trace_once_per_static_value(impl: Impl) -> None:
    """A static argument is a Python value in f (control flow on it works); a new value traces again,
    an equal one does not (another tuple with the same items included)."""
    g, traces = counted(impl, lambda x, n, shape: _scaled(x, n).reshape(shape), static_argnums=(1, 2))
    calls = [(V3, 2, (3,)), (V3 + 1, 2, (3,)), (V3, 3, (3,)), (V3, -1, (3,)), (V3 - 1, 2, tuple([3])),
             (V3, 2, (1, 3)), (V3 * 2, 3, (3,))]  # fmt: skip
    show_call("traces = []\ndef f(x, n, shape):\n    traces.append(None)\n"
              "    return (x * n if n > 0 else x - n).reshape(shape)\ng = jax.jit(f, static_argnums=(1, 2))\n"
              "[g(*c) for c in calls], len(traces)  # 4 traces", calls=calls)  # fmt: skip
    for x, n, shape in calls:
        assert_values(g(x, n, shape), _scaled(x.astype(F64), n).reshape(shape), F32)
    assert len(traces) == 4, f"{len(traces)} traces for 4 distinct static values"


def test_static_argnames_trace_once_per_static_value(impl: Impl) -> None:
    """A static keyword argument, by name: a new value traces again, the same value does not."""
    g, traces = counted(impl, lambda x, n=1: _scaled(x, n), static_argnames="n")
    show_call("traces = []\ndef f(x, n=1):\n    traces.append(None)\n    return x * n if n > 0 else x - n\n"
              "g = jax.jit(f, static_argnames='n')\n"
              "g(x, n=2), g(x + 1, n=2), g(x, n=-3), g(x, n=-3), len(traces)  # 2 traces", x=V3)  # fmt: skip
    for x, n in [(V3, 2), (V3 + 1, 2), (V3, -3), (V3 * 2, -3)]:
        assert_values(g(x, n=n), _scaled(x.astype(F64), n), F32)
    assert len(traces) == 2, f"{len(traces)} traces for 2 static values"


def test_equal_static_values_of_different_types_are_different_signatures(impl: Impl) -> None:
    """2, 2.0 and True are equal and hash alike, but trace apart, as JAX keys them by type too: an
    int times 2 is an int, times 2.0 a float."""
    x = np.int32(3)
    g, traces = counted(impl, lambda x, n: x * n, static_argnums=1)
    show_call("traces = []\ndef f(x, n):\n    traces.append(None)\n    return x * n\n"
              "g = jax.jit(f, static_argnums=1)\ng(x, 2), g(x, 2.0), g(x, True), len(traces)  # 3 traces", x=x)
    for n, dtype, weak in [(2, I32, False), (2.0, F32, True), (True, I32, False), (2, I32, False)]:
        got = g(x, n)  # an int32 times a Python float is a weak float32
        assert_dtype(got, dtype, f"g(int32 3, static {n!r})", weak=weak)
        assert_values(got, 3 * n, dtype)
    assert len(traces) == 3, f"{len(traces)} traces for the static values 2, 2.0 and True"


def test_a_static_argument_may_be_any_hashable_value(impl: Impl) -> None:
    """A string naming the function to apply, a frozen set, None: static, hashable, and not arrays."""
    jnp = impl.numpy

    def f(x: Any, name: str, skip: frozenset, extra: Any) -> Any:
        y = getattr(jnp, name)(x)
        return y if extra is None or "extra" in skip else y + extra

    g = _jax(impl).jit(f, static_argnums=(1, 2, 3))
    show_call("def f(x, name, skip, extra):\n    y = getattr(jnp, name)(x)\n"
              "    return y if extra is None or 'extra' in skip else y + extra\n"
              "g = jax.jit(f, static_argnums=(1, 2, 3))\n"
              "g(x, 'sin', frozenset(), None), g(x, 'cos', frozenset(), 2.0)", x=V3)
    assert_values(g(V3, "sin", frozenset(), None), np.sin(V3.astype(F64)), F32)
    assert_values(g(V3, "cos", frozenset(), 2.0), np.cos(V3.astype(F64)) + 2.0, F32)
    assert_values(g(V3, "cos", frozenset({"extra"}), 2.0), np.cos(V3.astype(F64)), F32)


@pytest.mark.parametrize("value", [[1, 2], {"n": 2}, np.array([1, 2])], ids=["list", "dict", "numpy_array"])
def test_an_unhashable_static_argument_raises_value_error(impl: Impl, value: Any) -> None:
    """JAX's ValueError, which says what went wrong; the jitted function works afterwards."""
    g = _jax(impl).jit(lambda x, n: x * len(n), static_argnums=1)
    show_call("g = jax.jit(lambda x, n: x * len(n), static_argnums=1)\ng(x, n)", x=V3, n=value)
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        g(V3, value)
    assert_values(g(V3, (1, 2)), V3.astype(F64) * 2, F32)


@pytest.mark.parametrize("option", ["static_argnames", "donate_argnames"])
def test_an_argname_the_function_does_not_take_raises_value_error(impl: Impl, option: str) -> None:
    """``jit(lambda x: x, static_argnames='zz')`` fails at once with ValueError, as in JAX (a typo
    would otherwise make nothing static); a function with ``**kwargs`` takes any name."""
    jax = _jax(impl)
    show_call(f"jax.jit(lambda x: x, {option}='zz')")
    with pytest.raises(ValueError, match="zz"):
        jax.jit(lambda x: x, **{option: "zz"})
    assert float(jax.jit(lambda x, **kw: x * 2, **{option: "zz"})(2.0)) == 4.0


# --- errors inside jit ----------------------------------------------------------------------------------------

# (id, f, the error class in jax.errors)
TRACER_MISUSES = [
    ("if", "f = lambda x: x if x > 0 else -x", "TracerBoolConversionError"),
    ("while", "def f(x):\n    while x > 0:\n        x = x - 1\n    return x", "TracerBoolConversionError"),
    ("and", "f = lambda x: (x > 0) and x", "TracerBoolConversionError"),
    ("float", "f = lambda x: float(x) * 2", "ConcretizationTypeError"),
    ("int_as_an_index", "f = lambda x: [1.0, 2.0, 3.0][x]", "TracerIntegerConversionError"),
]


@pytest.mark.parametrize("source, error", [m[1:] for m in TRACER_MISUSES], ids=[m[0] for m in TRACER_MISUSES])
def test_python_on_a_traced_value_raises_jaxs_tracer_error(impl: Impl, source: str, error: str) -> None:
    """Python control flow and conversions need concrete values: inside jit they raise JAX's tracer
    errors (TypeErrors); the jitted function and jit itself work afterwards."""
    jax = _jax(impl)
    scope: dict[str, Any] = {"jnp": impl.numpy}
    exec(compile(source, "<jit misuse>", "exec"), scope)  # the suite's own text
    arg = np.int32(1) if "index" in error or "Integer" in error else np.float32(1.5)
    show_call(f"{source}\njax.jit(f)(x)", x=arg)
    with pytest.raises(getattr(jax.errors, error)) as info:
        jax.jit(scope["f"])(arg)
    assert isinstance(info.value, TypeError), f"{type(info.value).__name__} is no TypeError"
    assert_values(jax.jit(lambda x: x * 2.0)(V3), V3.astype(F64) * 2, F32)


def test_python_control_flow_on_shapes_and_static_values_is_fine(impl: Impl) -> None:
    """Shapes, dtypes and static arguments are Python values while tracing."""
    jnp = impl.numpy

    def f(x: Any, n: int) -> Any:
        if x.ndim == 1 and x.shape[0] > 2 and x.dtype == jnp.float32:
            return jnp.sum(x[:n])
        return x

    show_call("def f(x, n):\n    if x.ndim == 1 and x.shape[0] > 2 and x.dtype == jnp.float32:\n"
              "        return jnp.sum(x[:n])\n    return x\njax.jit(f, static_argnums=1)(x, 2)", x=V3)
    assert_values(_jax(impl).jit(f, static_argnums=1)(V3, 2), np.float64(3.0), F32)


# --- donation -------------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Some donated buffers were not usable")
@pytest.mark.parametrize("donate", [0, (0, 1), (1,)], ids=["first", "both", "second"])
def test_donation_does_not_change_results(impl: Impl, donate: Any) -> None:
    """Donated arguments (the implementation's arrays, made for the call, and NumPy arrays) may give
    their memory to the results: the results are what they are without donation."""
    jax, jnp = _jax(impl), impl.numpy
    f = lambda x, y: (x * 2.0 + y, jnp.sin(y) - x)  # noqa: E731
    want = f(jnp.asarray(V3), jnp.asarray(V3[::-1]))
    g = jax.jit(f, donate_argnums=donate)
    show_call(f"f = lambda x, y: (x * 2.0 + y, jnp.sin(y) - x)\njax.jit(f, donate_argnums={donate!r})"
              "(jax.device_put(x), jnp.asarray(y)), f(x, y)", x=V3, y=V3[::-1].copy())  # fmt: skip
    for _ in range(2):  # the second call runs the compiled program again, with new buffers to donate
        got = g(jax.device_put(V3), jnp.asarray(V3[::-1]))
        assert_like_eager(impl, got, want)
    assert_like_eager(impl, g(V3.copy(), V3[::-1].copy()), want, "with NumPy arguments: output")


def test_a_donated_array_is_deleted_after_the_call(impl: Impl) -> None:
    """An argument donated to a call whose result can take its memory is gone afterwards, as in JAX:
    ``is_deleted()`` says so and reading it raises RuntimeError, on the first call and on cached ones,
    also when the array was read before the call (an implementation may keep a host copy of it)."""
    jax = _jax(impl)
    g = jax.jit(lambda x: x * 2.0, donate_argnums=0)
    show_call("g = jax.jit(lambda x: x * 2.0, donate_argnums=0); y = g(x); x.is_deleted()", x=V3)
    for call in ("first call", "cached call", "cached call of an array read before", "an array whose aval is held"):
        x = jax.device_put(V3)
        if call.endswith("read before"):
            np.testing.assert_array_equal(np.asarray(x), V3)  # its values copied to the host, maybe
        aval = x.aval  # a type: it holds no data that could keep x's buffer alive
        assert (tuple(aval.shape), np.dtype(aval.dtype)) == (V3.shape, F32), aval
        np.testing.assert_array_equal(np.asarray(g(x)), V3 * 2.0, err_msg=f"{call}: output")
        assert x.is_deleted(), f"{call}: the donated array is not deleted"
        with pytest.raises(RuntimeError):
            np.asarray(x)


def test_passing_a_donated_array_again_raises_value_error(impl: Impl) -> None:
    """A second call with an array an earlier call took by donation is a ValueError, as in JAX."""
    jax = _jax(impl)
    g = jax.jit(lambda x: x * 2.0, donate_argnums=0)
    show_call("g = jax.jit(lambda x: x * 2.0, donate_argnums=0)\nx = jax.device_put(v)\ng(x)\ng(x)", v=V3)
    x = jax.device_put(V3)
    g(x)
    with pytest.raises(ValueError):
        g(x)
    np.testing.assert_array_equal(np.asarray(g(jax.device_put(V3))), V3 * 2.0)  # nothing left behind


@pytest.mark.parametrize("make", ["jnp.asarray", "jax.device_put", "a jitted function's result"])
def test_a_deleted_array_cannot_be_read(impl: Impl, make: str) -> None:
    """``x.delete()`` frees an array at once: ``is_deleted()`` says so, and reading it raises
    RuntimeError, also when it was read before (whatever copy of it was kept is gone too)."""
    jax, jnp = _jax(impl), impl.numpy
    makers = {"jnp.asarray": jnp.asarray, "jax.device_put": jax.device_put,
              "a jitted function's result": lambda v: jax.jit(lambda x: x + 0.0)(v)}  # fmt: skip
    show_call(f"x = {make}(v); np.asarray(x); x.delete(); x.is_deleted()", v=V3)
    x = makers[make](V3)
    np.testing.assert_array_equal(np.asarray(x), V3)
    assert not x.is_deleted(), "a new array says it is deleted"
    x.delete()
    assert x.is_deleted(), "x.delete() did not delete it"
    with pytest.raises(RuntimeError):
        np.asarray(x)


# --- lowering and compiling -----------------------------------------------------------------------------------


def test_lower_gives_stablehlo_text(impl: Impl) -> None:
    """``jit(f).lower(x).as_text()``: a StableHLO module, its public @main taking the argument's type."""
    jnp = impl.numpy
    show_call("jax.jit(lambda x: jnp.sin(x) * 2.0).lower(x).as_text()", x=V3)
    text = _jax(impl).jit(lambda x: jnp.sin(x) * 2.0).lower(V3).as_text()
    assert isinstance(text, str)
    for words in ["stablehlo", "func.func public @main", "tensor<3xf32>"]:
        assert words in text, f"no {words!r} in the lowered text:\n{text}"


def test_lower_with_static_arguments_and_a_tree(impl: Impl) -> None:
    """A static argument is no input of the lowered program; a tree's leaves are, each of its type."""
    jnp = impl.numpy
    g = _jax(impl).jit(lambda p, n: p["a"] * n + jnp.sum(p["b"]), static_argnums=1)
    show_call("g = jax.jit(lambda p, n: p['a'] * n + jnp.sum(p['b']), static_argnums=1)\n"
              "g.lower({'a': x, 'b': i}, 3).as_text()",
              x=V3, i=np.arange(4, dtype=np.int32))  # fmt: skip
    text = g.lower({"a": V3, "b": np.arange(4, dtype=np.int32)}, 3).as_text()
    main = next(line for line in text.splitlines() if "@main" in line)
    assert "tensor<3xf32>" in main and "tensor<4xi32>" in main, main
    assert main.count("%arg") == 2, f"@main should take two arguments: {main}"


def test_compile_gives_an_executable(impl: Impl) -> None:
    """``lower(x).compile()`` works; its ``as_text()`` is text and ``cost_analysis()`` a dict, a
    list of dicts or None (what XLA can tell depends on the platform, as in JAX)."""
    jnp = impl.numpy
    show_call("c = jax.jit(lambda x: jnp.sin(x) * 2.0).lower(x).compile()\nc.as_text(), c.cost_analysis()", x=V3)
    compiled = _jax(impl).jit(lambda x: jnp.sin(x) * 2.0).lower(V3).compile()
    text = compiled.as_text()
    assert isinstance(text, str) and text, f"compile().as_text() gave {text!r}"
    cost = compiled.cost_analysis()
    ok = cost is None or isinstance(cost, dict) or (isinstance(cost, list) and all(isinstance(c, dict) for c in cost))
    assert ok, f"cost_analysis() gave a {type(cost).__name__}"


def test_lowered_out_info_gives_the_outputs_shapes_and_dtypes(impl: Impl) -> None:
    jax = _jax(impl)
    show_call("jax.jit(lambda x: {'s': x.sum(), 'i': (x > 0, x.astype(jnp.int32))}).lower(x).out_info", x=V3)
    info = jax.jit(lambda x: {"s": x.sum(), "i": (x > 0, x.astype(impl.numpy.int32))}).lower(V3).out_info
    got = {"s": info["s"], "i0": info["i"][0], "i1": info["i"][1]}
    want = {"s": ((), F32), "i0": ((3,), np.dtype(bool)), "i1": ((3,), I32)}
    assert {k: (tuple(v.shape), np.dtype(v.dtype)) for k, v in got.items()} == want


def test_clear_cache_makes_the_next_call_trace_again(impl: Impl) -> None:
    g, traces = counted(impl, lambda x: x + 1.0)
    show_call(f"{COUNTED}g(x); g(x); g.clear_cache(); g(x); len(traces)  # 2", x=V3)
    g(V3)
    g(V3)
    g.clear_cache()
    assert_values(g(V3), V3.astype(F64) + 1, F32)
    assert len(traces) == 2, f"{len(traces)} traces (one before clear_cache, one after expected)"


# --- jax_debug_nans -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_debug_nans_raises_floating_point_error_under_jit(impl: Impl, flags, kind: str) -> None:
    """With ``jax_debug_nans`` on, a jitted function whose output holds a NaN raises FloatingPointError
    as the eager function does (a call without a NaN runs); with it off again, the NaN is a value,
    also from the cache.

    Not asked here: that a call cached while the flag was off raises once it is on. JAX 0.10.2's
    own fast path skips the check then, in a process that has run a jitted jvp before (the suite's
    jit area does); stage 05's own tests ask it of didax."""
    jax, jnp = _jax(impl), impl.numpy
    g = jax.jit(lambda x: jnp.log(x) * 2.0)
    x = np.array([1.0, -1.0], np.float32)
    arg = x if kind == "numpy" else jax.device_put(x)
    show_call("jax.config.update('jax_debug_nans', True)\ng = jax.jit(lambda x: jnp.log(x) * 2.0)\ng(x)", x=x)
    flags("jax_debug_nans", True)
    with pytest.raises(FloatingPointError):
        g(arg)
    assert_values(g(np.array([1.0, 2.0], np.float32)), np.log([1.0, 2.0]) * 2, F32)  # no NaN, no error
    flags("jax_debug_nans", False)
    for _ in range(2):
        assert np.isnan(np.asarray(g(arg))[1])


# --- float0 ---------------------------------------------------------------------------------------------------


@pytest.mark.requires("jvp", "vmap")
def test_float0_tangents_come_out_of_jit(impl: Impl) -> None:
    """A jitted jvp of a function with an integer output gives its float0 tangent as float0 zeros, on
    the first call and from the caches; jit of jacfwd of it gives int32 zeros; vmap of such a jit too."""
    jax, jnp = _jax(impl), impl.numpy
    float0 = np.dtype([("float0", np.void, 0)])  # jax.dtypes.float0
    g = jax.jit(lambda a: jax.jvp(lambda b: b.astype(jnp.int32), (a,), (a,)))
    show_call("g = jax.jit(lambda a: jax.jvp(lambda b: b.astype(jnp.int32), (a,), (a,)))\n"
              "g(x), g(jax.device_put(x + 1)), g(jax.device_put(x + 2))", x=V3)  # fmt: skip
    for k in range(3):  # a NumPy argument, then device arrays (a fast dispatch path's case)
        primal, tangent = g(V3 if k == 0 else jax.device_put(V3 + k))
        np.testing.assert_array_equal(np.asarray(primal), (V3 + k).astype(np.int32))
        assert tangent.dtype == float0 and tuple(tangent.shape) == V3.shape, (tangent.dtype, tangent.shape)
        assert np.asarray(tangent).dtype == float0 and np.asarray(tangent).shape == V3.shape
    jac = jax.jit(jax.jacfwd(lambda a: a.astype(jnp.int32)))(V3)
    assert np.asarray(jac).dtype == I32
    np.testing.assert_array_equal(np.asarray(jac), np.zeros((3, 3), np.int32))
    primal, tangent = jax.vmap(g)(np.stack([V3, V3 * 2]))
    assert tangent.dtype == float0 and tuple(tangent.shape) == (2, 3), (tangent.dtype, tangent.shape)
    np.testing.assert_array_equal(np.asarray(primal), np.stack([V3, V3 * 2]).astype(np.int32))


# --- disable_jit ----------------------------------------------------------------------------------------------


def test_disable_jit_runs_the_function_eagerly(impl: Impl) -> None:
    """With jax_disable_jit on, a jitted function runs as Python each call (its side effects run
    every time, Python control flow on values works); off again, it traces once more and is cached."""
    config = impl.config
    g, traces = counted(impl, lambda x: x * 2.0 if float(x[0]) > 0 else x - 1.0)
    h, h_traces = counted(impl, lambda x: x * 2.0)
    show_call("traces = []\ndef f(x):\n    traces.append(None)\n    return x * 2.0\n"
              "jax.config.update('jax_disable_jit', True)\ng = jax.jit(f)\ng(x), g(x), g(x), len(traces)  # 3", x=V3)
    before = bool(getattr(unwrap(config), "jax_disable_jit", False))
    config.update("jax_disable_jit", True)
    try:
        for x in [V3, -V3, V3 + 1]:
            want = x.astype(F64) * 2 if x[0] > 0 else x.astype(F64) - 1
            assert_values(g(x), want, F32)
            assert_values(h(x), x.astype(F64) * 2, F32)
        assert len(traces) == 3 and len(h_traces) == 3, f"{len(h_traces)} runs of f for 3 calls with jit disabled"
    finally:
        config.update("jax_disable_jit", before)
    for x in [V3, V3 + 1]:
        assert_values(h(x), x.astype(F64) * 2, F32)
    assert len(h_traces) == 4, f"with jit enabled again, 2 calls traced f {len(h_traces) - 3} times"


# --- device arrays ----------------------------------------------------------------------------------------------


def test_block_until_ready_returns_the_array(impl: Impl) -> None:
    jax, jnp = _jax(impl), impl.numpy
    show_call("y = jax.jit(lambda x: jnp.sin(x) * 2.0)(x)\n"
              "y.block_until_ready() is y, jax.block_until_ready(y) is y", x=V3)
    y = jax.jit(lambda x: jnp.sin(x) * 2.0)(V3)
    assert y.block_until_ready() is y
    assert jax.block_until_ready(y) is y
    tree = jax.block_until_ready({"a": y, "b": (y,)})
    assert tree["a"] is y and tree["b"][0] is y
    assert_values(y, np.sin(V3.astype(F64)) * 2, F32)


def test_numpy_view_of_a_result_cannot_change_it(impl: Impl) -> None:
    """``np.asarray`` of a result holds its values; it is read-only, or a copy: writing to it (where
    NumPy allows) leaves the array as it was."""
    show_call("y = jax.jit(lambda x: x * 2.0)(x)\na = np.asarray(y)\na.flags.writeable", x=V3)
    y = _jax(impl).jit(lambda x: x * 2.0)(V3)
    a = np.asarray(y)
    np.testing.assert_array_equal(a, V3 * 2)
    if a.flags.writeable:
        a[0] = 100.0
    else:
        with pytest.raises(ValueError):
            a[0] = 100.0
    np.testing.assert_array_equal(np.asarray(y), V3 * 2)
    assert float(y[0]) == 2.0


# (id, f, argument, JAX's repr of jit(f)(argument))
REPRS = [
    ("float32", "f = lambda x: x * 2", np.array([0.5, 1.0], np.float32), "Array([1., 2.], dtype=float32)"),
    ("int32", "f = lambda x: x + 1", np.array([0, 1, 2], np.int32), "Array([1, 2, 3], dtype=int32)"),
    ("bool", "f = lambda x: x > 0", np.array([1.0, -1.0], np.float32), "Array([ True, False], dtype=bool)"),
    ("matrix", "f = lambda x: x * 2", np.array([[0.5, 1], [1.5, 2]], np.float32),
     "Array([[1., 2.],\n       [3., 4.]], dtype=float32)"),
    ("weak_scalar", "f = lambda x: x * 2", 3.0, "Array(6., dtype=float32, weak_type=True)"),
    ("bfloat16", "f = lambda x: x.astype(jnp.bfloat16)", np.array([0.5, 1.3], np.float32),
     "Array([0.5, 1.29688], dtype=bfloat16)"),
]  # fmt: skip


@pytest.mark.parametrize("source, arg, want", [r[1:] for r in REPRS], ids=[r[0] for r in REPRS])
def test_a_result_prints_as_jaxs_array(impl: Impl, source: str, arg: Any, want: str) -> None:
    scope: dict[str, Any] = {"jnp": impl.numpy}
    exec(compile(source, "<jit repr>", "exec"), scope)  # the suite's own text
    show_call(f"{source}\nrepr(jax.jit(f)(x))", x=arg)
    assert repr(_jax(impl).jit(scope["f"])(arg)) == want


BF16_INPUTS = np.array([[0.1, -2.7, 3.14159, 1e4], [-1e-3, 65504.0, 0.33333334, -7.5]], np.float32)


def test_bfloat16_results_read_back_correctly(impl: Impl) -> None:
    """bfloat16 results through ``np.asarray``: a conversion from float32 rounds to nearest even
    (ml_dtypes' rounding of the float32 values), and a sum of two bfloat16 arrays is their exact
    float32 sum rounded once."""
    jax, jnp = _jax(impl), impl.numpy
    want = BF16_INPUTS.astype(BF16)
    show_call("np.asarray(jax.jit(lambda x: x.astype(jnp.bfloat16))(x)), x.astype(ml_dtypes.bfloat16)", x=BF16_INPUTS)
    got = np.asarray(jax.jit(lambda x: x.astype(jnp.bfloat16))(BF16_INPUTS))
    assert got.dtype == BF16 and got.shape == want.shape, (got.dtype, got.shape)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    a, b = want, (BF16_INPUTS[::-1] * 0.37).astype(BF16)
    show_call("np.asarray(jax.jit(lambda a, b: a + b)(a, b))", a=a, b=b)
    summed = np.asarray(jax.jit(lambda a, b: a + b)(a, b))
    exact = (a.astype(np.float32) + b.astype(np.float32)).astype(BF16)
    assert summed.dtype == BF16
    np.testing.assert_array_equal(summed.view(np.uint16), exact.view(np.uint16))


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_result_survives_pickle_and_copy(impl: Impl, how: str) -> None:
    """A jitted function's result pickles, deep-copies and copies, with its dtype, weak type and values."""
    import copy
    import pickle

    jax = _jax(impl)
    copier = {"pickle": lambda a: pickle.loads(pickle.dumps(a)), "deepcopy": copy.deepcopy, "copy": copy.copy}[how]
    show_call(f"y = jax.jit(lambda x: x * 2)(x)\n{how}(y)", x=V3)
    for arg, weak in [(V3, False), (2.0, True)]:
        y = copier(jax.jit(lambda x: x * 2)(arg))
        assert_dtype(y, F32, f"{how} of a result", weak=weak)
        np.testing.assert_array_equal(np.asarray(y), np.asarray(arg, F32) * 2)
    random = jax.random
    keys = jax.jit(lambda k: random.split(k, 3))(random.key(7))  # key arrays too: the same keys
    copied = copier(keys)
    assert copied.dtype == keys.dtype and tuple(copied.shape) == (3,), (copied.dtype, copied.shape)
    np.testing.assert_array_equal(np.asarray(random.key_data(copied)), np.asarray(random.key_data(keys)))


def test_a_result_has_jaxs_array_api(impl: Impl) -> None:
    """What JAX's Array offers on one device: ``is_fully_replicated`` (a property), its data through
    ``addressable_data(0)`` and DLPack, ``shape``/``ndim``/``size``/``nbytes``; ``default_backend()``
    names the platform of the default device."""
    jax = _jax(impl)
    y = jax.jit(lambda x: x.reshape(3, 1) * 2)(V3)
    show_call("y = jax.jit(lambda x: x.reshape(3, 1) * 2)(x)\ny.is_fully_replicated, np.asarray(y.addressable_data(0)),"
              " np.from_dlpack(y), (y.shape, y.ndim, y.size, y.nbytes), jax.default_backend()", x=V3)  # fmt: skip
    assert y.is_fully_replicated is True
    np.testing.assert_array_equal(np.asarray(y.addressable_data(0)), V3.reshape(3, 1) * 2)
    np.testing.assert_array_equal(np.from_dlpack(y), V3.reshape(3, 1) * 2)
    assert (tuple(y.shape), y.ndim, y.size, y.nbytes) == ((3, 1), 2, 3, 12)
    assert jax.default_backend() == jax.devices()[0].platform


def test_device_get_gives_numpy_arrays(impl: Impl) -> None:
    """``device_get`` of a result, and of a tree of results: NumPy arrays with the values."""
    jax, jnp = _jax(impl), impl.numpy
    show_call("y = jax.jit(lambda x: (jnp.sin(x), x > 0))(x)\njax.device_get(y[0]), jax.device_get(y)", x=V3)
    y = jax.jit(lambda x: (jnp.sin(x), x > 0))(V3)
    one = jax.device_get(y[0])
    assert isinstance(one, np.ndarray), f"device_get gave a {type(one).__name__}"
    assert_values(one, np.sin(V3.astype(F64)), F32)
    both = jax.device_get(y)
    assert isinstance(both, tuple) and all(isinstance(b, np.ndarray) for b in both), [type(b) for b in both]
    np.testing.assert_array_equal(both[1], V3 > 0)


def test_devices_and_device_put(impl: Impl) -> None:
    """``devices()`` lists at least one device; ``device_put`` makes an array of the implementation's
    with the value's dtype and values, which a jitted function takes like any other argument."""
    jax = _jax(impl)
    devices = jax.devices()
    assert len(devices) >= 1, f"devices() gave {devices!r}"
    show_call("jax.devices(), jax.device_put(x), jax.jit(lambda x: x + 1)(jax.device_put(x))", x=V3)
    put = jax.device_put(V3)
    assert not isinstance(put, np.ndarray), "device_put gave a NumPy array"
    assert_dtype(put, F32, "device_put's array", weak=False)
    np.testing.assert_array_equal(np.asarray(put), V3)
    assert_values(jax.jit(lambda x: x + 1)(put), V3.astype(F64) + 1, F32)
    assert_values(jax.device_put(V3, devices[0]) * 2, V3.astype(F64) * 2, F32, atol=RTOL["float32"])
