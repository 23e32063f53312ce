"""``check_grads``, ``check_jvp``, ``check_vjp``: derivatives checked against finite differences,
as ``jax.test_util`` offers them (stage 06, where reverse mode arrives).

Each check looks along one random direction (NumPy's generator, seeded): a JVP against the
central difference ``(f(x + eps t) - f(x - eps t)) / 2 eps``, a VJP by the dot-product test
``<u, J t> = <J^T u, t>``, where ``J t`` is again the central difference. A mismatch raises
AssertionError.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes
from .ad import jvp
from .reverse import linearize, vjp
from .tree_util import tree_flatten, tree_map

EPS = 1e-4

# Tolerance, absolute and relative, by the dtype of the values compared.
_GRADIENT_TOLERANCE: dict[np.dtype, float] = {
    np.dtype(dtypes.bfloat16): 1e-1,
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}


def _tolerance(given: float | dict | None, dtype: np.dtype) -> float:
    if isinstance(given, dict):
        given = given.get(np.dtype(dtype))
    return _GRADIENT_TOLERANCE.get(np.dtype(dtype), 1e-5) if given is None else given


def _assert_close(a: Any, b: Any, atol: Any, rtol: Any, err_msg: str) -> None:
    a_leaves, a_tree = tree_flatten(a)
    b_leaves, b_tree = tree_flatten(b)
    assert a_tree == b_tree, f"{err_msg}: structures differ, {a_tree} and {b_tree}"
    for x, y in zip(a_leaves, b_leaves):
        x, y = np.asarray(x), np.asarray(y)
        dtype = np.promote_types(x.dtype, y.dtype)
        np.testing.assert_allclose(x.astype(dtype), y.astype(dtype), atol=_tolerance(atol, dtype),
                                   rtol=_tolerance(rtol, dtype), err_msg=err_msg)  # fmt: skip


def _random_like(rng: np.random.RandomState, x: Any) -> np.ndarray:
    """Standard normal values of ``x``'s shape and dtype (complex: both parts drawn)."""
    x = np.asarray(x)
    values = rng.randn(*x.shape)
    if np.iscomplexobj(x):
        values = values + 1j * rng.randn(*x.shape)
    return np.asarray(values, x.dtype)


def _step(xs: Any, ts: Any, scale: float) -> Any:
    return tree_map(lambda x, t: np.asarray(np.asarray(x) + scale * np.asarray(t), np.asarray(x).dtype), xs, ts)


def numerical_jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], eps: float = EPS) -> Any:
    """The central difference of ``f`` at ``primals`` along ``tangents``."""
    ahead = f(*_step(tuple(primals), tuple(tangents), eps))
    behind = f(*_step(tuple(primals), tuple(tangents), -eps))
    return tree_map(lambda a, b: (np.asarray(a) - np.asarray(b)) / (2 * eps), ahead, behind)


def _inner(xs: Any, ys: Any) -> complex:
    """The bilinear pairing ``sum(x * y)`` over matching leaves (no conjugation: VJPs transpose)."""
    pairs = zip(tree_flatten(xs)[0], tree_flatten(ys)[0])
    return sum(np.sum(np.asarray(x, np.complex128) * np.asarray(y, np.complex128)) for x, y in pairs)


def check_jvp(f: Callable[..., Any], f_jvp: Callable[..., Any], args: Sequence[Any], atol: Any = None,
              rtol: Any = None, eps: float = EPS, err_msg: str = "") -> None:  # fmt: skip
    """``f_jvp(args, tangents)`` gives ``(f(*args), J @ tangents)``: checked along one random direction."""
    rng = np.random.RandomState(0)
    tangents = tree_map(functools.partial(_random_like, rng), tuple(args))
    out, tangent_out = f_jvp(tuple(args), tangents)
    _assert_close(out, f(*args), atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    expected = numerical_jvp(f, args, tangents, eps)
    _assert_close(tangent_out, expected, atol, rtol, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f: Callable[..., Any], f_vjp: Callable[..., Any], args: Sequence[Any], atol: Any = None,
              rtol: Any = None, eps: float = EPS, err_msg: str = "") -> None:  # fmt: skip
    """``f_vjp(*args)`` gives ``(f(*args), vjp_fun)``: checked by the dot-product test along one
    random input direction and one random output cotangent."""
    rng = np.random.RandomState(0)
    out, vjp_fun = f_vjp(*args)
    _assert_close(out, f(*args), atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    tangents = tree_map(functools.partial(_random_like, rng), tuple(args))
    cotangent = tree_map(functools.partial(_random_like, rng), out)
    cotangents_in = vjp_fun(cotangent)
    forward = _inner(cotangent, numerical_jvp(f, args, tangents, eps))
    backward = _inner(cotangents_in, tangents)
    # The sums are in complex128; the tolerance is that of the output's dtype.
    dtype = np.result_type(*[np.asarray(x).dtype for x in tree_flatten(out)[0]])
    _assert_close(backward, forward, _tolerance(atol, dtype), _tolerance(rtol, dtype),
                  f"{err_msg} projection" if err_msg else "projection")  # fmt: skip


def check_grads(f: Callable[..., Any], args: Sequence[Any], order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol: Any = None, rtol: Any = None, eps: float | None = None) -> None:  # fmt: skip
    """Check ``f``'s derivatives at ``args`` up to ``order``, in forward mode ("fwd"), reverse mode
    ("rev") and through linearize ("lin"); each higher order checks the derivative of the
    function that computes the order below."""
    args, eps = tuple(args), eps or EPS

    def check(fun: Callable[..., Any], xs: tuple, left: int, what: str) -> None:
        def name(mode: str) -> str:
            return f"{mode} of {what}" if what else mode

        if "fwd" in modes:
            check_jvp(fun, functools.partial(jvp, fun), xs, atol, rtol, eps, name("JVP"))
            if left > 1:
                check(functools.partial(jvp, fun), (xs, xs), left - 1, name("JVP"))
        if "rev" in modes:
            check_vjp(fun, functools.partial(vjp, fun), xs, atol, rtol, eps, name("VJP"))
            if left > 1:
                check(functools.partial(_pulled_back_output, fun), xs, left - 1, name("VJP"))
        if "lin" in modes:
            check_jvp(fun, functools.partial(_jvp_by_linearize, fun), xs, atol, rtol, eps, name("LIN"))
            if left > 1:
                check(functools.partial(_jvp_by_linearize, fun), (xs, xs), left - 1, name("LIN"))

    check(f, args, order, "")


def _pulled_back_output(fun: Callable[..., Any], *xs: Any) -> Any:
    """``fun``'s VJP applied to its own output: a function of ``xs`` to differentiate once more."""
    out, pullback = vjp(fun, *xs)
    return pullback(out)


def _jvp_by_linearize(fun: Callable[..., Any], primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    out, fun_lin = linearize(fun, *primals)
    return out, fun_lin(*tangents)


__all__ = ["check_grads", "check_jvp", "check_vjp"]
