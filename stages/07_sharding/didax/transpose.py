"""Transposition: run a linear function backwards. Stage 06 introduced it.

Partial evaluation (partial_eval.py) turns ``jvp`` into a *linear* jaxpr: tangents in, tangents
out, the known primal values (residuals) as constants. A linear function ``t -> A t`` has a
transpose ``c -> A^T c``, and that is what reverse mode needs: applied to an output cotangent it
gives the cotangents of the inputs, a vector-Jacobian product, the gradient when the output is a
scalar and ``c = 1``.

``backward_pass`` transposes a jaxpr one equation at a time, from the last to the first. The
inputs being transposed are ``UndefinedPrimal``: their values are not known, only their types,
and a linear equation reads exactly one of them (or values computed from them). Each primitive
that can appear on that linear path has a transpose rule, ``transpose_rules[p](ct, *args,
**params)``: given the cotangent of the equation's output and its inputs (undefined or known), it
returns a cotangent for each undefined input. A value read several times gets the sum of its
cotangents. A cotangent known to be zero stays symbolic (ad.Zero), as tangents do in forward mode.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import ad, batching, dtypes, lax
from .ad import Zero, _undo_scatter, instantiate, tangent_aval
from .array import Array
from .core import Primitive, ShapedArray, get_aval, trace_state
from .jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, eval_jaxpr
from .lowering.core import lowering_rules
from .lowering.elementwise import simple
from .lax.conditionals import hoist_branch_consts
from .lax import linalg
from .lax.convolution import dilate_shape
from .lax.loops import bind_scan, split_list
from .staging import trace_to_jaxpr

# ----------------------------------------------------------------------------------------------
# Undefined primals and cotangents.


class UndefinedPrimal:
    """An input of a linear function being transposed: its type, and no value (JAX's name)."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x: Any) -> bool:
    return type(x) is UndefinedPrimal


def add_cotangents(x: Any, y: Any) -> Any:
    """The sum of two cotangents of one value, either maybe a symbolic zero."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)


# Cotangents are summed with a primitive of their own, ``add_any``, as in JAX: an addition reverse
# mode made, not one the program wrote, which a jaxpr shows apart. It is ``add`` in every rule.
add_any_p = lax.elementwise.binop("add_any", np.add, lax.elementwise.NUMBER)


def zeros_like_aval(aval: ShapedArray) -> Any:
    return instantiate(Zero(aval))


# ----------------------------------------------------------------------------------------------
# The backward pass.


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any], cts_out: Sequence[Any]) -> list[Any]:
    """Transpose ``jaxpr`` with respect to its ``UndefinedPrimal`` arguments: the cotangents of
    those arguments (symbolic zeros where nothing flows back), given the cotangents of its outputs.

    First, a forward sweep evaluates the equations that read no undefined input (they compute
    from residuals alone: a jaxpr made by partial evaluation has few, a rematerialized one many).
    Then the linear equations run backwards, each through its primitive's transpose rule.
    """
    if trace_state.check_vma:  # JAX's result depends on types didax does not have yet (stage 07)
        raise NotImplementedError(
            "reverse-mode differentiation inside the body of a shard_map with check_vma=True is not implemented in "
            "didax: JAX transposes psum and its implicit pvary by the replication types (vma) of the values, which "
            "didax does not track yet. Differentiate outside the shard_map, or pass check_vma=False (pmap's rules)."
        )
    primal_env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts))
    linear: set[Var] = set()
    for v, x in zip(jaxpr.invars, args):
        if is_undefined_primal(x):
            linear.add(v)
        else:
            primal_env[v] = x

    def read_primal(x: Any) -> Any:
        if type(x) is Literal:
            return x.val
        return UndefinedPrimal(x.aval) if x in linear else primal_env[x]

    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(type(x) is Var and x in linear for x in eqn.invars):
            linear.update(eqn.outvars)
            linear_eqns.append(eqn)
        else:
            outs = eqn.primitive.bind(*map(read_primal, eqn.invars), **eqn.params)
            primal_env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))

    ct_env: dict[Var, Any] = {}

    def write_ct(x: Any, ct: Any) -> None:
        if ct is not None and type(x) is Var and x in linear and type(ct) is not Zero:
            ct_env[x] = add_cotangents(ct_env[x], ct) if x in ct_env else ct

    for v, ct in zip(jaxpr.outvars, cts_out):
        write_ct(v, ct)
    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(ct is None for ct in cts):
            continue  # nothing flows back through this equation
        rule = transpose_rules.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for '{eqn.primitive}' "
                                      "not implemented")  # fmt: skip
        if eqn.primitive.multiple_results:
            cts = [Zero(tangent_aval(v.aval)) if ct is None else ct for v, ct in zip(eqn.outvars, cts)]
            cts_in = rule(cts, *map(read_primal, eqn.invars), **eqn.params)
        else:
            cts_in = rule(cts[0], *map(read_primal, eqn.invars), **eqn.params)
        for x, ct in zip(eqn.invars, cts_in):
            write_ct(x, ct)
    return [ct_env.get(v, Zero(tangent_aval(v.aval))) for v, x in zip(jaxpr.invars, args) if is_undefined_primal(x)]


def transpose_jaxpr(closed: ClosedJaxpr, linear: Sequence[bool]) -> ClosedJaxpr:
    """The transpose of ``closed`` as a jaxpr: ``(*non-linear inputs, *output cotangents) ->
    cotangents of the linear inputs`` (zeros where none flows back). jit, cond and scan transpose
    the jaxprs they hold with it. Remembered: the same jaxpr gives the same transpose each time,
    so that jit finds its compilation again."""
    key = (closed, tuple(linear))
    known = _transposed.get(key)
    if known is not None:
        return known
    in_avals = closed.in_avals
    nonlinear_avals = [a for a, lin in zip(in_avals, linear) if not lin]
    ct_avals = [tangent_aval(a) for a in closed.out_avals]

    def transposed(*args: Any) -> list[Any]:
        res, cts = args[: len(nonlinear_avals)], args[len(nonlinear_avals) :]
        it = iter(res)
        primals = [UndefinedPrimal(a) if lin else next(it) for a, lin in zip(in_avals, linear)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts)
        return [instantiate(ct) for ct in cts_in]

    result, _ = trace_to_jaxpr(transposed, [*nonlinear_avals, *ct_avals])
    if len(_transposed) > 1024:
        _transposed.clear()
    _transposed[key] = result
    return result


_transposed: dict[tuple[ClosedJaxpr, tuple[bool, ...]], ClosedJaxpr] = {}


# ----------------------------------------------------------------------------------------------
# Rules. ``transpose_rules[p](ct, *args, **params)`` returns a cotangent per argument: None for
# one that is not an undefined primal (a residual, an index), a symbolic Zero for one that gets
# nothing. For a primitive with several results ``ct`` is a list, maybe holding Zeros.

TransposeRule = Callable[..., list[Any]]
transpose_rules: dict[Primitive, TransposeRule] = {}


def _aval(x: Any) -> ShapedArray:
    return x.aval if is_undefined_primal(x) else get_aval(x)


def unbroadcast(aval: ShapedArray, ct: Any) -> Any:
    """``ct`` summed back to ``aval``'s shape, where the forward operation broadcast a size-1 or a
    missing leading axis (lax's elementwise operations broadcast scalars that way)."""
    shape, ct_shape = aval.shape, get_aval(ct).shape
    if shape == ct_shape:
        return ct
    lead = len(ct_shape) - len(shape)
    axes = (*range(lead), *(lead + i for i, d in enumerate(shape) if d == 1 and ct_shape[lead + i] != 1))
    return lax.reshape(lax.reduce_sum(ct, axes), shape)


def _linear_terms(*fns: Callable[..., Any] | None) -> TransposeRule:
    """A rule for a primitive linear in each operand separately (add, sub): ``fns[i](ct)`` is the
    cotangent of operand i before unbroadcasting."""

    def rule(ct: Any, *args: Any, **params: Any) -> list[Any]:
        return [unbroadcast(x.aval, fn(ct)) if is_undefined_primal(x) and fn else None for x, fn in zip(args, fns)]

    return rule


transpose_rules[lax.add_p] = _linear_terms(lambda ct: ct, lambda ct: ct)
transpose_rules[add_any_p] = _linear_terms(lambda ct: ct, lambda ct: ct)
ad.defjvp(add_any_p, lambda t, ans, x, y: t, lambda t, ans, x, y: t)
batching.defelementwise(add_any_p)
lowering_rules[add_any_p] = simple("stablehlo.add")
transpose_rules[lax.sub_p] = _linear_terms(lambda ct: ct, lax.neg)
transpose_rules[lax.neg_p] = lambda ct, x: [lax.neg(ct)]


def _mul_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if is_undefined_primal(x) and is_undefined_primal(y):
        raise NotImplementedError("mul of two undefined primals is not linear: it has no transpose")
    if is_undefined_primal(x):
        return [unbroadcast(x.aval, lax.mul(ct, y)), None]
    return [None, unbroadcast(y.aval, lax.mul(x, ct))]


def _div_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if is_undefined_primal(y):
        raise NotImplementedError("div is linear in its numerator only: it has no transpose in the denominator")
    return [unbroadcast(x.aval, lax.div(ct, y)), None]


transpose_rules[lax.mul_p] = _mul_transpose
transpose_rules[lax.div_p] = _div_transpose


def _convert_element_type_transpose(ct: Any, x: Any, *, new_dtype: Any, weak_type: bool, **_: Any) -> list[Any]:
    aval = x.aval
    if not dtypes.is_inexact(aval.dtype):  # an integer's cotangent is a float0 zero
        return [Zero(tangent_aval(aval))]
    return [lax.convert_element_type_p.bind(ct, new_dtype=aval.dtype, weak_type=aval.weak_type)]


transpose_rules[lax.convert_element_type_p] = _convert_element_type_transpose


def _real_transpose(ct: Any, x: Any) -> list[Any]:
    return [lax.convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type)]


def _imag_transpose(ct: Any, x: Any) -> list[Any]:
    # imag(x) = Re(-i x): its transpose maps c to -i c.
    dtype = x.aval.dtype
    as_complex = lax.convert_element_type_p.bind(ct, new_dtype=dtype, weak_type=x.aval.weak_type)
    return [lax.mul(as_complex, Array(np.array(-1j, dtype)))]


def _conj_transpose(ct: Any, x: Any, *, input_dtype: Any) -> list[Any]:
    # conj is its own transpose; of a real x (conj(x) = x + 0i) it is real's transpose's: Re ct.
    return [lax.conj(ct) if np.dtype(input_dtype).kind == "c" else lax.real(ct)]


transpose_rules[lax.real_p] = _real_transpose
transpose_rules[lax.imag_p] = _imag_transpose
transpose_rules[lax.conj_p] = _conj_transpose
# complex(x, y) = x + iy: x gets Re ct, y gets Re(i ct) = -Im ct (the pairing is bilinear, no conjugate).
transpose_rules[lax.complex_p] = _linear_terms(lax.real, lambda ct: lax.neg(lax.imag(ct)))

# --- structure -------------------------------------------------------------------------------


def _reduce_sum_transpose(ct: Any, x: Any, *, axes: tuple[int, ...]) -> list[Any]:
    shape = x.aval.shape
    kept = tuple(d for d in range(len(shape)) if d not in axes)
    return [lax.broadcast_in_dim(ct, shape, kept)]


def _broadcast_in_dim_transpose(
    ct: Any, x: Any, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...], **_: Any
) -> list[Any]:
    x_shape = x.aval.shape
    stretched = [d for d, n in zip(broadcast_dimensions, x_shape) if n == 1 and shape[d] != 1]
    new = [d for d in range(len(shape)) if d not in broadcast_dimensions]
    summed = lax.reduce_sum(ct, tuple(sorted(new + stretched))) if new or stretched else ct
    return [lax.reshape(summed, x_shape)]


def _reshape_transpose(ct: Any, x: Any, **_: Any) -> list[Any]:
    return [lax.reshape(ct, x.aval.shape)]


def _transpose_transpose(ct: Any, x: Any, *, permutation: tuple[int, ...]) -> list[Any]:
    return [lax.transpose(ct, tuple(np.argsort(permutation)))]


def _pad_transpose(ct: Any, x: Any, padding_value: Any, *, padding_config: Any) -> list[Any]:
    # Undo the edges (a negative pad crops), then take every (interior + 1)-th element.
    lo, hi, interior = zip(*padding_config)
    zero = Array(np.zeros((), get_aval(ct).dtype))
    uncropped = lax.pad(ct, zero, [(-a, -b, 0) for a, b in zip(lo, hi)])
    ct_x = lax.slice(uncropped, (0,) * len(lo), get_aval(uncropped).shape, tuple(i + 1 for i in interior))
    ct_x_out = ct_x if is_undefined_primal(x) else None
    if not is_undefined_primal(padding_value):
        return [ct_x_out, None]
    all_axes = tuple(range(len(lo)))
    ct_value = lax.sub(lax.reduce_sum(ct, all_axes), lax.reduce_sum(ct_x, all_axes))
    return [ct_x_out, ct_value]


def _concatenate_transpose(ct: Any, *xs: Any, dimension: int) -> list[Any]:
    cts, start = [], 0
    for x in xs:
        size = _aval(x).shape[dimension]
        cts.append(lax.slice_in_dim(ct, start, start + size, axis=dimension) if is_undefined_primal(x) else None)
        start += size
    return cts


def _slice_transpose(
    ct: Any, x: Any, *, start_indices: tuple[int, ...], limit_indices: tuple[int, ...], strides: Any
) -> list[Any]:
    shape, ct_shape = x.aval.shape, get_aval(ct).shape
    steps = strides or (1,) * len(shape)
    # Where the last element taken along each axis ends (the start itself for an empty slice).
    ends = [s + (n - 1) * k + 1 if n else s for s, n, k in zip(start_indices, ct_shape, steps)]
    zero = Array(np.zeros((), get_aval(ct).dtype))
    return [lax.pad(ct, zero, [(s, d - e, k - 1) for s, d, e, k in zip(start_indices, shape, ends, steps)])]


def _dynamic_slice_transpose(ct: Any, x: Any, *starts: Any, slice_sizes: tuple[int, ...]) -> list[Any]:
    zeros = zeros_like_aval(tangent_aval(x.aval))
    return [lax.dynamic_update_slice(zeros, ct, starts), *[None] * len(starts)]


def _dynamic_update_slice_transpose(ct: Any, x: Any, update: Any, *starts: Any) -> list[Any]:
    update_aval = _aval(update)
    ct_x = ct_update = None
    if is_undefined_primal(x):
        ct_x = lax.dynamic_update_slice(ct, zeros_like_aval(tangent_aval(update_aval)), starts)
    if is_undefined_primal(update):
        ct_update = lax.dynamic_slice(ct, starts, update_aval.shape)
    return [ct_x, ct_update, *[None] * len(starts)]


transpose_rules[lax.reduce_sum_p] = _reduce_sum_transpose
transpose_rules[lax.broadcast_in_dim_p] = _broadcast_in_dim_transpose
transpose_rules[lax.reshape_p] = _reshape_transpose
transpose_rules[lax.squeeze_p] = _reshape_transpose
transpose_rules[lax.transpose_p] = _transpose_transpose
transpose_rules[lax.rev_p] = lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)]
transpose_rules[lax.pad_p] = _pad_transpose
transpose_rules[lax.concatenate_p] = _concatenate_transpose
transpose_rules[lax.slice_p] = _slice_transpose
transpose_rules[lax.dynamic_slice_p] = _dynamic_slice_transpose
transpose_rules[lax.dynamic_update_slice_p] = _dynamic_update_slice_transpose
transpose_rules[lax.cumsum_p] = lambda ct, x, *, axis, reverse: [lax.cumsum(ct, axis, reverse=not reverse)]
# JAX declares reduce_precision linear: the cotangent is rounded as the tangent was.
transpose_rules[lax.reduce_precision_p] = lambda ct, x, **params: [lax.reduce_precision_p.bind(ct, **params)]


# --- the Fourier transform --------------------------------------------------------------------
# The DFT matrix is symmetric, so FFT and IFFT are their own transposes (transposes, not adjoints:
# no conjugate). RFFT and IRFFT map between n real points and m = n // 2 + 1 complex bins; every
# bin but the zero frequency (and n / 2, for even n) stands for itself and its mirror image, so
# their transposes weigh the bins by 1 or 2 (JAX's rules, which give the same cotangents).


def _bin_weights(n: int, m: int, dtype: np.dtype, ndim: int) -> Array:
    """How often each of the m bins of the last axis counts in the full spectrum of n points,
    shaped to broadcast against an array of rank ``ndim``."""
    weights = np.full(m, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return Array(weights.astype(dtype).reshape((1,) * (ndim - 1) + (m,)))


def _fft_transpose(ct: Any, x: Any, *, fft_type: lax.FftType, fft_lengths: tuple[int, ...]) -> list[Any]:
    aval, n, points = get_aval(ct), fft_lengths[-1], int(np.prod(fft_lengths))
    if fft_type == lax.FftType.RFFT:  # complex bins back to real points: an IRFFT, undone of its 1 / n
        weights = _bin_weights(n, aval.shape[-1], aval.dtype, aval.ndim)
        real = lax.fft(lax.div(lax.conj(ct), weights), lax.FftType.IRFFT, fft_lengths)
        return [lax.mul(real, Array(np.asarray(points, get_aval(real).dtype)))]
    if fft_type == lax.FftType.IRFFT:  # real points to complex bins: an RFFT, with IRFFT's 1 / n
        bins = lax.fft(ct, lax.FftType.RFFT, fft_lengths)
        spectrum = get_aval(bins)
        weights = _bin_weights(n, spectrum.shape[-1], spectrum.dtype, spectrum.ndim)
        return [lax.conj(lax.mul(bins, lax.div(weights, Array(np.asarray(points, spectrum.dtype)))))]
    return [lax.fft(ct, fft_type, fft_lengths)]


transpose_rules[lax.fft_p] = _fft_transpose


def _triangular_solve_transpose(ct: Any, a: Any, b: Any, *, transpose_a: bool, **params: Any) -> list[Any]:
    """X = op(A)^-1 B is linear in B (not in A): B's cotangent is op(A)^-T ct, the same solve with
    the transpose flipped (the conjugation stays: a transpose, not an adjoint)."""
    if is_undefined_primal(a):
        raise NotImplementedError("triangular_solve is not linear in its matrix: it has no transpose for it")
    return [None, linalg.triangular_solve_p.bind(a, ct, transpose_a=not transpose_a, **params)]


transpose_rules[linalg.triangular_solve_p] = _triangular_solve_transpose


# --- collectives (stage 07) -------------------------------------------------------------------
# psum adds every example's value and gives the sum to each: its transpose does the same to the
# cotangents. all_gather and psum_scatter are each other's transposes; all_to_all and ppermute
# send the cotangents back the way the values came.


def _all_gather_transpose(ct: Any, x: Any, *, all_gather_dimension: int, **params: Any) -> list[Any]:
    return [lax.reduce_scatter_p.bind(ct, scatter_dimension=all_gather_dimension, **params)]


def _reduce_scatter_transpose(ct: Any, x: Any, *, scatter_dimension: int, **params: Any) -> list[Any]:
    return [lax.all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, **params)]


def _all_to_all_transpose(ct: Any, x: Any, *, split_axis: int, concat_axis: int, **params: Any) -> list[Any]:
    return [lax.all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)]


def _ppermute_transpose(ct: Any, x: Any, *, axis_name: tuple, perm: tuple) -> list[Any]:
    return [lax.ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((dst, src) for src, dst in perm))]


transpose_rules[lax.psum_p] = lambda ct, x, **params: [lax.psum_p.bind(ct, **params)]
transpose_rules[lax.all_gather_p] = _all_gather_transpose
transpose_rules[lax.reduce_scatter_p] = _reduce_scatter_transpose
transpose_rules[lax.all_to_all_p] = _all_to_all_transpose
transpose_rules[lax.ppermute_p] = _ppermute_transpose
# JAX transposes pvary to a psum. didax transposes a shard_map body by pmap's rule (shard_map.py),
# where a value shared by the devices needs no sum until it leaves the body: there, once.
transpose_rules[lax.pvary_p] = lambda ct, x, **params: [ct]


def _select_n_transpose(ct: Any, which: Any, *cases: Any) -> list[Any]:
    if is_undefined_primal(which):
        raise NotImplementedError("select_n is not linear in its predicate: it has no transpose there")
    zeros = zeros_like_aval(get_aval(ct))
    return [None, *[
        lax.select_n(which, *[ct if j == i else zeros for j in range(len(cases))]) if is_undefined_primal(c) else None
        for i, c in enumerate(cases)
    ]]  # fmt: skip


transpose_rules[lax.select_n_p] = _select_n_transpose

# --- contraction ------------------------------------------------------------------------------


def _dot_general_transpose(ct: Any, x: Any, y: Any, *, dimension_numbers: Any, preferred_element_type: Any) -> list[Any]:
    """Each operand's cotangent is itself a contraction: of the output cotangent with the other
    operand, over the other operand's free axes, then transposed into the operand's layout."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    if is_undefined_primal(x) and is_undefined_primal(y):
        raise NotImplementedError("dot_general of two undefined primals is not linear: it has no transpose")
    if is_undefined_primal(x):
        return [_contract_back(ct, y, x.aval, (x_contract, x_batch), (y_contract, y_batch), other_first=False), None]
    return [None, _contract_back(ct, x, y.aval, (y_contract, y_batch), (x_contract, x_batch), other_first=True)]


def _contract_back(ct: Any, other: Any, aval: ShapedArray, mine: tuple, others: tuple, other_first: bool) -> Any:
    """The cotangent of one dot_general operand (``aval``, with contracting and batch axes
    ``mine``) from the output cotangent and the other operand (its axes ``others``)."""
    (my_contract, my_batch), (other_contract, other_batch) = mine, others
    my_free = [d for d in range(len(aval.shape)) if d not in my_contract and d not in my_batch]
    other_ndim = get_aval(other).ndim
    other_free = [d for d in range(other_ndim) if d not in other_contract and d not in other_batch]
    n_batch = len(my_batch)
    # The output's axes: batch, then lhs's free axes, then rhs's free axes.
    if other_first:  # I am rhs: my free axes come last in the output
        ct_other_free = list(range(n_batch, n_batch + len(other_free)))
    else:
        ct_other_free = list(range(n_batch + len(my_free), n_batch + len(my_free) + len(other_free)))
    numbers = ((tuple(ct_other_free), tuple(other_free)), (tuple(range(n_batch)), tuple(other_batch)))
    out = lax.dot_general(ct, other, numbers)
    # Its axes are: batch, my free axes, then the other's contracting axes in their order, which
    # pair with my contracting axes.
    paired = [my_contract[i] for i in np.argsort(other_contract)]
    source = [*my_batch, *my_free, *paired]
    out = lax.transpose(out, tuple(int(i) for i in np.argsort(source)))
    if get_aval(out).dtype != aval.dtype:
        out = lax.convert_element_type_p.bind(out, new_dtype=aval.dtype, weak_type=aval.weak_type)
    return out


transpose_rules[lax.dot_general_p] = _dot_general_transpose

# --- convolution ------------------------------------------------------------------------------
# Each operand's cotangent is again a convolution. The input's: the output cotangent spread out by
# the strides, convolved with the kernel flipped in space, its two feature axes swapped. The
# kernel's: the input convolved with the output cotangent as the kernel, the batch axis now the
# one contracted over. Groups change places: the kernel's groups become the batch's and back.


def _conv_transpose(ct: Any, lhs: Any, rhs: Any, **params: Any) -> list[Any]:
    if is_undefined_primal(lhs) and is_undefined_primal(rhs):
        raise NotImplementedError("conv_general_dilated of two undefined primals is not linear: it has no transpose")
    if is_undefined_primal(lhs):
        return [_conv_lhs_cotangent(ct, rhs, lhs.aval, **params), None]
    return [None, _conv_rhs_cotangent(ct, lhs, rhs.aval, **params)]


def _spatial(shape: Sequence[int], spec: Sequence[int]) -> list[int]:
    return [shape[d] for d in spec[2:]]


def _conv_lhs_cotangent(ct: Any, rhs: Any, aval: ShapedArray, *, window_strides: tuple[int, ...],
                        padding: tuple, lhs_dilation: tuple[int, ...], rhs_dilation: tuple[int, ...],
                        dimension_numbers: Any, feature_group_count: int, batch_group_count: int,
                        **_: Any) -> Any:  # fmt: skip
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    window = dilate_shape(_spatial(get_aval(rhs).shape, rhs_spec), rhs_dilation)
    inputs = dilate_shape(_spatial(aval.shape, lhs_spec), lhs_dilation)
    outputs = dilate_shape(_spatial(get_aval(ct).shape, out_spec), window_strides)
    # Where the flipped window starts reading the spread cotangent, and where it must stop.
    pads = [(k - 1 - lo, n + k - 1 - m - (k - 1 - lo)) for k, (lo, _), n, m in zip(window, padding, inputs, outputs)]
    groups = max(feature_group_count, batch_group_count)
    if groups > 1:  # each group's kernels: their group moves from the kernels' axis to the features'
        rhs = batching.split_axis(rhs, rhs_spec[0], groups)
        rhs = batching.merge_axes(batching.moveaxis(rhs, rhs_spec[0], rhs_spec[1]), rhs_spec[1])
    rhs = _as_dtype(lax.rev(rhs, rhs_spec[2:]), get_aval(ct).dtype)
    swapped = (rhs_spec[1], rhs_spec[0], *rhs_spec[2:])
    out = lax.conv_general_dilated(ct, rhs, lhs_dilation, pads, window_strides, rhs_dilation,
                                   lax.ConvDimensionNumbers(out_spec, swapped, lhs_spec), feature_group_count=groups)
    if batch_group_count > 1:  # the groups came out as features: they are blocks of the batch
        out = batching.split_axis(out, lhs_spec[1], batch_group_count)
        out = batching.merge_axes(batching.moveaxis(out, lhs_spec[1], lhs_spec[0]), lhs_spec[0])
    return _as_dtype(out, aval.dtype)


def _conv_rhs_cotangent(ct: Any, lhs: Any, aval: ShapedArray, *, window_strides: tuple[int, ...],
                        padding: tuple, lhs_dilation: tuple[int, ...], rhs_dilation: tuple[int, ...],
                        dimension_numbers: Any, feature_group_count: int, batch_group_count: int,
                        **_: Any) -> Any:  # fmt: skip
    if 0 in get_aval(ct).shape:  # no output: nothing flows back (and a window of 0 could not say so)
        return zeros_like_aval(aval)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    window = dilate_shape(_spatial(aval.shape, rhs_spec), rhs_dilation)
    inputs = dilate_shape(_spatial(get_aval(lhs).shape, lhs_spec), lhs_dilation)
    outputs = dilate_shape(_spatial(get_aval(ct).shape, out_spec), window_strides)
    # The padded input must hold exactly the kernel's positions: (window - 1) + outputs elements.
    pads = [(lo, k - 1 + m - n - lo) for k, (lo, _), n, m in zip(window, padding, inputs, outputs)]
    swap = lambda spec: (spec[1], spec[0], *spec[2:])  # noqa: E731
    numbers = lax.ConvDimensionNumbers(swap(lhs_spec), swap(out_spec), swap(rhs_spec))
    out = lax.conv_general_dilated(_as_dtype(lhs, get_aval(ct).dtype), ct, rhs_dilation, pads, lhs_dilation,
                                   window_strides, numbers, feature_group_count=batch_group_count,
                                   batch_group_count=feature_group_count)  # fmt: skip
    return _as_dtype(out, aval.dtype)


def _as_dtype(x: Any, dtype: np.dtype) -> Any:
    return x if get_aval(x).dtype == dtype else lax.convert_element_type(x, dtype)


transpose_rules[lax.conv_general_dilated_p] = _conv_transpose

# --- windowed sums ----------------------------------------------------------------------------
# Each operand element goes into the sum of every window that covers it, so its cotangent is the
# sum of those windows' cotangents: the output cotangent spread out by the strides and padded so
# that a window sum, stepping by the operand's own spacing, lands on each operand element once.


def _reduce_window_sum_transpose(ct: Any, x: Any, *, window_dimensions: tuple[int, ...],
                                 window_strides: tuple[int, ...], padding: tuple, base_dilation: tuple[int, ...],
                                 window_dilation: tuple[int, ...]) -> list[Any]:  # fmt: skip
    spans = dilate_shape(window_dimensions, window_dilation)
    sizes = dilate_shape(x.aval.shape, base_dilation)
    spread = dilate_shape(get_aval(ct).shape, window_strides)
    config = []
    for span, (lo, _), n, m, stride in zip(spans, padding, sizes, spread, window_strides):
        before = span - 1 - lo
        config.append((before, n + span - 1 - m - before, stride - 1))
    padded = lax.pad(ct, Array(np.zeros((), get_aval(ct).dtype)), config)
    ones = (1,) * len(window_dimensions)
    return [lax.reduce_window_sum_p.bind(padded, window_dimensions=window_dimensions, window_strides=base_dilation,
                                         padding=((0, 0),) * len(ones), base_dilation=ones,
                                         window_dilation=window_dilation)]  # fmt: skip


transpose_rules[lax.reduce_window_sum_p] = _reduce_window_sum_transpose

# --- gather and scatter -----------------------------------------------------------------------


def _gather_transpose(
    ct: Any, operand: Any, indices: Any, *, dimension_numbers: Any, slice_sizes: Any, unique_indices: bool,
    indices_are_sorted: bool, mode: Any, fill_value: Any,
) -> list[Any]:  # fmt: skip
    """Every slice the gather read gets its cotangent added back where it came from."""
    dn = dimension_numbers
    scatter_dn = lax.ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map, operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )  # fmt: skip
    zeros = zeros_like_aval(tangent_aval(operand.aval))
    ct_operand = lax.scatter_add(zeros, indices, ct, scatter_dn, indices_are_sorted=indices_are_sorted,
                                 unique_indices=unique_indices, mode=mode)  # fmt: skip
    return [ct_operand, None]


def _scatter_add_transpose(sign: Callable[[Any], Any]) -> TransposeRule:
    def rule(ct: Any, operand: Any, indices: Any, updates: Any, **params: Any) -> list[Any]:
        ct_operand = ct if is_undefined_primal(operand) else None
        ct_updates = None
        if is_undefined_primal(updates):
            ct_updates = sign(_undo_scatter(ct, indices, updates.aval.shape, **params))
        return [ct_operand, None, ct_updates]

    return rule


def _scatter_transpose(ct: Any, operand: Any, indices: Any, updates: Any, **params: Any) -> list[Any]:
    """An overwriting scatter is linear where each position is written once at most."""
    if not params["unique_indices"]:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    updates_aval = _aval(updates)
    ct_operand = ct_updates = None
    if is_undefined_primal(operand):  # what was overwritten gets nothing back
        ct_operand = lax.scatter_p.bind(ct, indices, zeros_like_aval(tangent_aval(updates_aval)), **params)
    if is_undefined_primal(updates):
        ct_updates = _undo_scatter(ct, indices, updates_aval.shape, **params)
    return [ct_operand, None, ct_updates]


def _scatter_mul_transpose(ct: Any, operand: Any, indices: Any, updates: Any, **params: Any) -> list[Any]:
    if is_undefined_primal(updates):
        raise NotImplementedError("scatter_mul gradients are only implemented for the operand")
    return [lax.scatter_mul_p.bind(ct, indices, updates, **params), None, None]


transpose_rules[lax.gather_p] = _gather_transpose
transpose_rules[lax.scatter_add_p] = _scatter_add_transpose(lambda ct: ct)
transpose_rules[lax.scatter_sub_p] = _scatter_add_transpose(lax.neg)
transpose_rules[lax.scatter_p] = _scatter_transpose
transpose_rules[lax.scatter_mul_p] = _scatter_mul_transpose

# --- control flow -----------------------------------------------------------------------------


def _cond_transpose(cts: list[Any], index: Any, *ops: Any, branches: tuple[ClosedJaxpr, ...]) -> list[Any]:
    """Run the chosen branch's transpose: the same index picks it, the residuals are the known
    operands, and every branch gives a cotangent for every linear operand."""
    if is_undefined_primal(index):
        raise NotImplementedError("cond is not linear in its index: it has no transpose there")
    linear = [is_undefined_primal(x) for x in ops]
    transposed, consts = hoist_branch_consts([transpose_jaxpr(b, linear) for b in branches])
    res = [x for x in ops if not is_undefined_primal(x)]
    outs = iter(lax.cond_p.bind(index, *consts, *res, *map(instantiate, cts), branches=transposed))
    return [None, *[next(outs) if lin else None for lin in linear]]


def _while_transpose(*args: Any, **params: Any) -> list[Any]:
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop "
        "values. Try using lax.scan, or using fori_loop with static start/stop."
    )


def _scan_transpose(cts: list[Any], *args: Any, jaxpr: ClosedJaxpr, length: int, reverse: bool, unroll: Any,
                    num_consts: int, num_carry: int) -> list[Any]:  # fmt: skip
    """A scan run the other way. Each step transposes the body: the carry's cotangent flows back
    through the carry, each y's cotangent comes in as an x, each linear x's cotangent goes out as a
    y, and the linear constants' cotangents are summed over the steps in an extra carry. The
    residuals (the known constants and xs) are read as they were."""
    consts, init, xs = split_list(list(args), [num_consts, num_carry])
    consts_lin = [is_undefined_primal(x) for x in consts]
    xs_lin = [is_undefined_primal(x) for x in xs]
    # The carry is linear in the loop even where its first value is a known zero.
    body_t = _transposed_scan_body(jaxpr, tuple(consts_lin), num_carry, tuple(xs_lin))
    ct_carry, ct_ys = split_list(list(map(instantiate, cts)), [num_carry])
    res_consts = [x for x in consts if not is_undefined_primal(x)]
    res_xs = [x for x in xs if not is_undefined_primal(x)]
    ct_consts_init = [zeros_like_aval(tangent_aval(x.aval)) for x in consts if is_undefined_primal(x)]
    outs = bind_scan(body_t, res_consts, [*ct_consts_init, *ct_carry], [*ct_ys, *res_xs], length=length,
                     reverse=not reverse, unroll=unroll)  # fmt: skip
    ct_consts, ct_init, ct_xs = split_list(outs, [len(ct_consts_init), num_carry])
    it_consts, it_xs = iter(ct_consts), iter(ct_xs)
    return [*[next(it_consts) if lin else None for lin in consts_lin], *ct_init,
            *[next(it_xs) if lin else None for lin in xs_lin]]  # fmt: skip


@functools.lru_cache(maxsize=256)
def _transposed_scan_body(body: ClosedJaxpr, consts_lin: tuple[bool, ...], num_carry: int,
                          xs_lin: tuple[bool, ...]) -> ClosedJaxpr:  # fmt: skip
    """(residual consts, const cotangent sums, carry cotangent, y cotangents, residual xs) ->
    (const cotangent sums, carry cotangent, linear x cotangents)."""
    linear = (*consts_lin, *[True] * num_carry, *xs_lin)
    t = transpose_jaxpr(body, linear)  # (residual consts, residual xs, carry cts, y cts) -> linear cts
    avals = body.in_avals
    const_avals, carry_avals, x_avals = split_list(avals, [len(consts_lin), num_carry])
    res_const_avals = [a for a, lin in zip(const_avals, consts_lin) if not lin]
    ct_const_avals = [tangent_aval(a) for a, lin in zip(const_avals, consts_lin) if lin]
    res_x_avals = [a for a, lin in zip(x_avals, xs_lin) if not lin]
    ct_carry_avals = [tangent_aval(a) for a in carry_avals]
    ct_y_avals = [tangent_aval(a) for a in body.out_avals[num_carry:]]

    def step(*args: Any) -> list[Any]:
        res_consts, acc, ct_carry, ct_ys, res_xs = split_list(
            list(args), [len(res_const_avals), len(ct_const_avals), num_carry, len(ct_y_avals)])
        cts = eval_jaxpr(t.jaxpr, t.consts, *res_consts, *res_xs, *ct_carry, *ct_ys)
        ct_consts, ct_carry_in, ct_xs = split_list(cts, [len(ct_const_avals), num_carry])
        return [*map(add_cotangents, acc, ct_consts), *ct_carry_in, *ct_xs]

    closed, _ = trace_to_jaxpr(step, [*res_const_avals, *ct_const_avals, *ct_carry_avals, *ct_y_avals, *res_x_avals])
    return closed


transpose_rules[lax.cond_p] = _cond_transpose
transpose_rules[lax.scan_p] = _scan_transpose
transpose_rules[lax.while_p] = _while_transpose
