"""Whole Jacobians: ``jacfwd`` is vmap of jvp (stage 03); ``jacrev`` vmap of vjp (stage 06).

A jvp gives one column of the Jacobian, J @ v, for one input direction v. Pushing every basis
direction through jvp gives every column, and vmap pushes them all in one pass: the basis is a
batch of tangents, the primal is the same for each of them.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes, lax
from .ad import jvp
from .batching import vmap
from .core import get_aval
from .lax.elementwise import convert_to
from .reverse import argnums_partial, check_input_dtype, check_output_dtype, vjp
from .tree_util import tree_flatten, tree_map, tree_structure, tree_transpose, tree_unflatten


def jacfwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` with respect to its positional arguments ``argnums``.

    For each output leaf of shape ``s``, the result holds, per input leaf of shape ``t``, an
    array of shape ``s + t``: ``d out[i] / d in[j]`` at ``[i, j]``. With an int ``argnums`` the
    inner structure is that argument's pytree; with a tuple, a tuple of them. With ``has_aux``,
    ``fun`` returns ``(output, aux)`` and the result is ``(jacobian, aux)``.
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    _check_argnums_type(argnums)

    @functools.wraps(fun)  # the name, module and qualified name of fun, as JAX's jacfwd keeps them
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        nums = _positions(argnums, len(args))
        primals = tuple(args[i] for i in nums)
        for leaf in tree_flatten(primals)[0]:
            _check_input_dtype(holomorphic, leaf)

        def pushfwd(tangents: tuple) -> Any:
            def partial_fun(*dynamic: Any) -> Any:
                full = list(args)
                for i, x in zip(nums, dynamic):
                    full[i] = x
                return fun(*full, **kwargs)

            return jvp(partial_fun, primals, tangents, has_aux=has_aux)

        # The primal output and aux are the same for every direction: out_axes None says so.
        out_axes = (None, -1, None) if has_aux else (None, -1)
        y, jac, *aux = vmap(pushfwd, out_axes=out_axes)(_std_basis(primals))
        for leaf in tree_flatten(y)[0]:
            _check_output_dtype(holomorphic, leaf)
        example = primals[0] if isinstance(argnums, int) else primals
        jac_tree = tree_map(lambda y_leaf, j: _unravel(example, y_leaf, j), y, jac)
        return (jac_tree, aux[0]) if has_aux else jac_tree

    name = getattr(fun, "__name__", "<unnamed function>")
    jacfun.__doc__ = (f"Jacobian of {name} with respect to positional argument(s) {argnums}. Takes the same "
                      f"arguments as {name} but returns the jacobian of the output with respect to the "
                      f"arguments at positions {argnums}.")  # JAX's words
    return jacfun


def jacrev(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` from reverse mode (stage 06): one vjp per output element, all in
    one pass with vmap over the basis of cotangents. Shaped as ``jacfwd``'s: per output leaf,
    per input leaf, ``out.shape + in.shape``. Cheaper than jacfwd when outputs are fewer than inputs."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    _check_argnums_type(argnums)

    @functools.wraps(fun)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        f_partial, dyn_args = argnums_partial(fun, argnums, args, kwargs)
        tree_map(functools.partial(check_input_dtype, "jacrev", holomorphic, allow_int), dyn_args)
        y, pullback, *aux = vjp(f_partial, *dyn_args, has_aux=has_aux)
        tree_map(functools.partial(check_output_dtype, "jacrev", holomorphic), y)
        jac = vmap(pullback)(_std_basis(y))
        jac = jac[0] if isinstance(argnums, int) else jac
        example = dyn_args[0] if isinstance(argnums, int) else dyn_args
        per_input = tree_map(lambda x, j: _unravel_rows(y, x, j), example, jac)
        jac_tree = tree_transpose(tree_structure(example), tree_structure(y), per_input)
        return (jac_tree, aux[0]) if has_aux else jac_tree

    name = getattr(fun, "__name__", "<unnamed function>")
    jacfun.__doc__ = (f"Jacobian of {name} with respect to positional argument(s) {argnums}. Takes the same "
                      f"arguments as {name} but returns the jacobian of the output with respect to the "
                      f"arguments at positions {argnums}.")  # JAX's words
    return jacfun


def jacobian(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """Another name for :func:`jacrev`, as in JAX."""
    return jacrev(fun, argnums=argnums, has_aux=has_aux, holomorphic=holomorphic, allow_int=allow_int)


def hessian(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False, holomorphic: bool = False
) -> Callable[..., Any]:
    """The Hessian of ``fun``: ``jacfwd(jacrev(fun))``, forward over reverse, the cheapest order for a
    scalar function of many inputs. Shaped ``out.shape + in.shape + in.shape`` per pair of leaves."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums, has_aux=has_aux,
                  holomorphic=holomorphic)  # fmt: skip


def _unravel_rows(y: Any, example: Any, jac: Any) -> Any:
    """Split the leading axis of one input's Jacobian (one row per output element) into a pytree
    shaped like the outputs: per output leaf, ``leaf.shape + example.shape``, in the input's dtype
    and weak type, as JAX gives them."""
    leaves, tree = tree_flatten(y)
    x_aval = get_aval(example)
    if get_aval(jac).dtype == dtypes.float0:  # an integer input: float0 rows, as JAX gives
        return tree_unflatten(tree, [np.zeros((*get_aval(leaf).shape, *x_aval.shape), dtypes.float0)
                                     for leaf in leaves])  # fmt: skip
    pieces, start = [], 0
    for leaf in leaves:
        aval = get_aval(leaf)
        piece = lax.reshape(lax.slice_in_dim(jac, start, start + aval.size, axis=0), (*aval.shape, *x_aval.shape))
        piece = convert_to(piece, x_aval.dtype, x_aval.weak_type)  # the input's type, weak type included
        pieces.append(piece)
        start += aval.size
    return tree_unflatten(tree, pieces)


def _std_basis(primals: tuple) -> Any:
    """The identity matrix as a batch of tangents shaped like ``primals`` (one direction per
    input element), each leaf in its primal's dtype."""
    leaves, tree = tree_flatten(primals)
    avals = [get_aval(x) for x in leaves]
    n = sum(a.size for a in avals)
    eye = np.eye(n, dtype=dtypes.result_type(*leaves))
    pieces, start = [], 0
    for aval in avals:
        pieces.append(eye[:, start : start + aval.size].reshape((n, *aval.shape)).astype(aval.dtype))
        start += aval.size
    return tree_unflatten(tree, pieces)


def _unravel(example: Any, y: Any, jac: Any) -> Any:
    """Split the last axis of one output's Jacobian (one entry per input element) into a pytree
    shaped like the inputs: shape ``y.shape + leaf.shape`` per input leaf, in ``y``'s dtype."""
    leaves, tree = tree_flatten(example)
    y_aval = get_aval(y)
    last = y_aval.ndim
    pieces, start = [], 0
    for leaf in leaves:
        aval = get_aval(leaf)
        if jac.dtype == dtypes.float0:  # an integer output: its derivative is zero, in its own dtype
            pieces.append(lax.full((*y_aval.shape, *aval.shape), 0, y_aval.dtype))
            continue
        piece = lax.slice_in_dim(jac, start, start + aval.size, axis=last)
        piece = lax.reshape(piece, (*y_aval.shape, *aval.shape))
        if get_aval(piece).dtype != y_aval.dtype:
            piece = lax.convert_element_type(piece, y_aval.dtype)
        pieces.append(piece)
        start += aval.size
    return tree_unflatten(tree, pieces)


def _check_argnums_type(argnums: Any) -> None:
    nums = argnums if isinstance(argnums, (tuple, list)) else (argnums,)
    for n in nums:
        operator.index(n)  # a TypeError for anything that is not an int


def _positions(argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError(
                "Positional argument indices, e.g. for `static_argnums`, must have value greater than "
                f"or equal to -len(args) and less than len(args), but got value {n} for len(args) == {nargs}."
            )
    return tuple(n % nargs for n in nums)


def _check_input_dtype(holomorphic: bool, x: Any) -> None:
    dtype = get_aval(x).dtype
    if holomorphic:
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise TypeError(
                f"jacfwd with holomorphic=True requires inputs with complex dtype, but got {dtype.name}."
            )
    elif not dtypes.is_float(dtype):
        raise TypeError(
            "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got "
            f"{dtype.name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp directly."
        )


def _check_output_dtype(holomorphic: bool, x: Any) -> None:
    dtype = get_aval(x).dtype
    if holomorphic and not dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError(
            f"jacfwd with holomorphic=True requires outputs with complex dtype, but got {dtype.name}."
        )
