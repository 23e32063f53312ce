"""Forward-mode automatic differentiation: the JVP interpreter. Stage 02 introduced it.

``jvp(f, primals, tangents)`` evaluates ``f`` at ``primals`` and, in the same pass, the
derivative of ``f`` there applied to ``tangents``: a Jacobian-vector product. Every value the
function computes travels as a pair, its primal and its tangent, inside a ``JVPTracer``; each
primitive has a rule that maps the pairs of its inputs to the pair of its output. The rules are
at the bottom of this module, one per primitive, in lax's families.

A tangent known to be zero is symbolic: a ``Zero`` holds only the tangent's type. Rules skip
the terms it would contribute, an operation whose tangents are all symbolic zeros runs on its
primals alone, and a ``Zero`` becomes an array of zeros only where a value is needed
(``instantiate``). Integer and boolean values, and PRNG keys, have tangents of the empty dtype
``float0``: they are always zero, and they hold no data.

Nesting needs nothing more: ``jvp`` of a function that calls ``jvp`` pushes a second JVPTrace
on the stack, each tracer knows its level, and ``bind`` sends every operation to the highest
level among its inputs (core.py). Tangents of different levels never meet, so they cannot be
confused.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes, lax, prng
from .array import Array, to_array
from .core import (
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    full_raise,
    get_aval,
    new_main,
)
from .jaxpr import ClosedJaxpr, eval_jaxpr
from .lax import linalg
from .lax.elementwise import convert_to
from .lax.loops import (
    bind_scan,
    bind_while,
    carry_fixed_point,
    interleaved,
    move_binders,
    split_list,
    with_unused_inputs,
)
from .lax.slicing import GatherDimensionNumbers, GatherScatterMode
from .random import distributions
from .staging import trace_to_jaxpr
from .tree_util import tree_flatten, tree_unflatten

# ----------------------------------------------------------------------------------------------
# Tangent types and symbolic zeros.

float0 = dtypes.float0  # the tangent dtype of integers and booleans


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The type of a tangent of a value of type ``aval``: the same, or float0 if not inexact (an
    integer, a bool, a key)."""
    dtype = aval.dtype if dtypes.is_inexact(aval.dtype) else float0
    return ShapedArray(aval.shape, dtype, aval.weak_type)


class Zero:
    """A tangent known to be zero: only its type, no numbers."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @staticmethod
    def like(primal: Any) -> Zero:
        """The zero tangent of ``primal``."""
        return Zero(tangent_aval(get_aval(primal)))

    def __repr__(self) -> str:
        return f"Zero({self.aval})"  # JAX's Zero(~float32[]), Zero(float0[3])


def instantiate(tangent: Any) -> Any:
    """A tangent as a value: a ``Zero`` becomes zeros of its type, anything else stays."""
    if type(tangent) is not Zero:
        return tangent
    aval = tangent.aval
    if aval.dtype == float0:  # JAX gives float0 tangents as NumPy arrays: there is nothing to compute
        return np.zeros(aval.shape, float0)
    zero = Array(np.zeros((), aval.dtype), aval.weak_type)
    return lax.broadcast_in_dim(zero, aval.shape, ())


# ----------------------------------------------------------------------------------------------
# The interpreter.


class JVPTracer(Tracer):
    """A value followed by forward mode: its primal and its tangent (maybe a ``Zero``)."""

    __slots__ = ("_trace", "primal", "tangent")

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        # The primal's: concrete when the primal is known, so Python control flow on it works.
        return get_aval(self.primal)

    def full_lower(self) -> Any:
        # A value with a zero tangent needs no tracer: hand back its primal.
        if type(self.tangent) is Zero:
            return self.primal
        return self

    def __repr__(self) -> str:
        # As JAX prints it, ``JVPTracer(primal=1.0, tangent=1.0)``: both as str() shows them, a
        # tracer of an enclosing transformation in its own form.
        return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"


class JVPTrace(Trace):
    def pure(self, val: Any) -> JVPTracer:
        return JVPTracer(self, val, Zero.like(val))

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list[Any], params: dict) -> Any:
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(type(t) is Zero for t in tangents):  # nothing to differentiate: just evaluate
            return primitive.bind(*primals, **params)
        rule = jvp_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{primitive.name}' not implemented")
        primal_out, tangent_out = rule(primals, tangents, **params)
        if primitive.multiple_results:
            return [JVPTracer(self, p, t) for p, t in zip(primal_out, tangent_out)]
        return JVPTracer(self, primal_out, tangent_out)


# ----------------------------------------------------------------------------------------------
# The API.


def jvp(
    fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False
) -> tuple[Any, ...]:
    """``(fun(*primals), J @ tangents)``, with J the Jacobian of ``fun`` at ``primals``.

    ``primals`` and ``tangents`` are tuples or lists of pytrees with the same structure; each
    tangent has its primal's shape and dtype (``float0`` for integer and boolean primals). With
    ``has_aux``, ``fun`` returns ``(output, aux)`` and ``aux`` comes back as a third result,
    undifferentiated.
    """
    primals_flat, in_tree, tangents_flat = _check_jvp_args(primals, tangents)
    with new_main(JVPTrace) as main:
        trace = JVPTrace(main)
        # An input with a zero tangent is a constant to this transformation: it is not traced.
        args = [p if type(t) is Zero else JVPTracer(trace, p, t) for p, t in zip(primals_flat, tangents_flat)]
        out = fun(*tree_unflatten(in_tree, args))
        if has_aux:
            out, aux = _split_aux(out)
        out_flat, out_tree = tree_flatten(out)
        pairs = [_primal_and_tangent(trace, x) for x in out_flat]
        if has_aux:
            aux_flat, aux_tree = tree_flatten(aux)
            aux = tree_unflatten(aux_tree, [_undifferentiated(main, x) for x in aux_flat])
    primals_out = tree_unflatten(out_tree, [p for p, _ in pairs])
    tangents_out = tree_unflatten(out_tree, [instantiate(t) for _, t in pairs])
    return (primals_out, tangents_out, aux) if has_aux else (primals_out, tangents_out)


def _primal_and_tangent(trace: JVPTrace, x: Any) -> tuple[Any, Any]:
    if _is_float0(x):  # a float0 value (an integer's tangent, in a nested jvp) is a constant
        return x, Zero(ShapedArray(np.shape(x), float0))
    tracer = full_raise(trace, x)
    return tracer.primal, tracer.tangent


def _undifferentiated(main: Any, x: Any) -> Any:
    """An auxiliary result: a tracer of this jvp gives its primal; any other leaf (a lower level's
    tracer, a string, a count) comes back as it is, as in JAX."""
    return x.primal if isinstance(x, JVPTracer) and x._trace.main is main else x


def _split_aux(out: Any) -> tuple[Any, Any]:
    """JAX unpacks the pair, ``out, aux = out``: so a sequence of another length is Python's
    ValueError, and something that cannot be iterated its TypeError."""
    try:
        output, aux = out
    except (TypeError, ValueError) as err:
        raise type(err)(
            "has_aux=True requires the function to return a pair (output, auxiliary data), "
            f"but it returned {type(out).__name__}: {err}"
        ) from None
    return output, aux


def _check_jvp_args(primals: Any, tangents: Any) -> tuple[list[Any], Any, list[Any]]:
    """JAX's checks of jvp's arguments; the flat primals as arrays, their tree, the flat tangents
    (a ``Zero`` where the tangent is float0)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jax.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    primals_flat, in_tree = tree_flatten(primals)
    tangents_flat, tangent_tree = tree_flatten(tangents)
    if in_tree != tangent_tree:
        raise TypeError(
            "primal and tangent arguments to jax.jvp must have the same tree structure; primals "
            f"have tree structure {in_tree} whereas tangents have tree structure {tangent_tree}."
        )
    pairs = [_check_pair(p, t) for p, t in zip(primals_flat, tangents_flat)]
    return [p for p, _ in pairs], in_tree, [t for _, t in pairs]


def _check_pair(primal: Any, tangent: Any) -> tuple[Any, Any]:
    if _is_float0(primal):  # an integer's tangent, given as a primal to an outer jvp: stays as it is
        p_aval = ShapedArray(np.shape(primal), float0)
    else:
        primal = primal if isinstance(primal, Tracer) else to_array(primal)
        p_aval = get_aval(primal)
    expected = tangent_aval(p_aval).dtype
    if _is_float0(tangent):
        t_shape, t_dtype = np.shape(tangent), float0
    else:
        tangent = tangent if isinstance(tangent, Tracer) else to_array(tangent)
        t_shape, t_dtype = get_aval(tangent).shape, get_aval(tangent).dtype
    if t_dtype != expected:
        raise TypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case "
            "of int/bool primal dtype the tangent dtype must be float0."
            f"Got primal dtype {p_aval.dtype} and so expected tangent dtype {expected}, but got "
            f"tangent dtype {t_dtype} instead."
        )
    if t_shape != p_aval.shape:
        raise ValueError(
            "jvp called with different primal and tangent shapes;"
            f"Got primal shape {p_aval.shape} and tangent shape as {t_shape}"
        )
    if t_dtype == float0:
        return primal, Zero(tangent_aval(p_aval))
    return primal, _typed_like_primal(tangent, p_aval)


def _typed_like_primal(tangent: Any, p_aval: ShapedArray) -> Any:
    """The tangent with its primal's weak type. JAX's jnp functions are jitted, and a jitted
    function's JVP takes its tangents' types from the primals (``to_tangent_aval``): the tangent
    np.float32(1) of a weak 2.0 gives weak tangents there, which didax gets by typing it at once."""
    if get_aval(tangent).weak_type == p_aval.weak_type:
        return tangent
    return convert_to(tangent, p_aval.dtype, weak_type=p_aval.weak_type)


def _is_float0(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype == float0


# ----------------------------------------------------------------------------------------------
# The JVP of a jaxpr (stage 04): a control-flow primitive's rule differentiates its bodies, and
# gets a new jaxpr computing primals and tangents together.


def jvp_jaxpr(
    closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool]
) -> tuple[ClosedJaxpr, list[bool]]:
    """The JVP of ``closed`` as a jaxpr ``(*primals, *tangents) -> (*primals_out, *tangents_out)``.

    Only the inputs marked in ``nonzeros`` take a tangent, and only outputs whose tangent is not
    a symbolic zero give one; the list returned says which. An output marked in ``instantiate``
    always gives one (zeros if need be), unless it is an integer, whose tangent is always zero.
    """
    in_avals = closed.in_avals
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    out_nonzeros: list[bool] = []

    def jvp_fun(*args: Any) -> list[Any]:
        primals, given = args[: len(in_avals)], iter(args[len(in_avals) :])
        tangents = [next(given) if nz else Zero(tangent_aval(a)) for a, nz in zip(in_avals, nonzeros)]
        with new_main(JVPTrace) as main:
            trace = JVPTrace(main)
            tracers = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
            pairs = [_primal_and_tangent(trace, x) for x in outs]
        tangents_out = []
        for (_, t), i in zip(pairs, inst):
            if type(t) is Zero and i and t.aval.dtype != float0:
                t = instantiate_zeros(t)
            out_nonzeros.append(type(t) is not Zero)
            if type(t) is not Zero:
                tangents_out.append(t)
        return [p for p, _ in pairs] + tangents_out

    tangent_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros) if nz]
    jaxpr, _ = trace_to_jaxpr(jvp_fun, [*in_avals, *tangent_avals])
    return jaxpr, out_nonzeros


instantiate_zeros = instantiate  # the name the jaxpr helpers use, where ``instantiate`` is a flag


# ----------------------------------------------------------------------------------------------
# Rules. ``jvp_rules[p](primals, tangents, **params)`` returns ``(primal_out, tangent_out)``.
# Most are made by three helpers:
#   defjvp(p, *fns):  one function per operand, ``fn(t, ans, *primals, **params)``, giving that
#                     operand's term of the output tangent (None: the operand has no tangent);
#                     terms of zero tangents are skipped, the others added;
#   deflinear(p):     p is linear in its operands, so it maps tangents as it maps primals;
#   defzero(p):       the output does not change with the operands (comparisons, rounding,
#                     integer results): its tangent is a symbolic zero.

JVPRule = Callable[..., tuple[Any, Any]]
jvp_rules: dict[Primitive, JVPRule] = {}


def defjvp(prim: Primitive, *fns: Callable[..., Any] | None) -> None:
    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
        ans = prim.bind(*primals, **params)
        terms = [
            fn(t, ans, *primals, **params)
            for fn, t in zip(fns, tangents)
            if fn is not None and type(t) is not Zero
        ]
        return ans, _sum_terms(terms, ans)

    jvp_rules[prim] = rule


def _sum_terms(terms: list[Any], ans: Any) -> Any:
    """The sum of an output's tangent terms, shaped like the output (lax broadcasts scalars)."""
    if not terms:
        return Zero.like(ans)
    total = terms[0]
    for term in terms[1:]:
        total = lax.add(total, term)
    return _broadcast_to(total, get_aval(ans).shape)


def deflinear(prim: Primitive) -> None:
    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
        return prim.bind(*primals, **params), prim.bind(*map(instantiate, tangents), **params)

    jvp_rules[prim] = rule


def defzero(prim: Primitive) -> None:
    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
        ans = prim.bind(*primals, **params)
        if prim.multiple_results:
            return ans, [Zero.like(a) for a in ans]
        return ans, Zero.like(ans)

    jvp_rules[prim] = rule


def _const(x: Any, value: Any) -> Array:
    """The constant ``value`` in ``x``'s dtype and weak type."""
    aval = get_aval(x)
    return Array(np.array(value, aval.dtype), aval.weak_type)


def _where(pred: Any, x: Any, y: Any) -> Any:
    """``x`` where ``pred``, else ``y``; broadcast as lax broadcasts (select_n's cases must match)."""
    ranked = [get_aval(v).shape for v in (pred, x, y) if get_aval(v).shape]
    # lax's operands are scalars or of one rank, where an axis of size 1 stretches to the others'
    shape = tuple(next((n for n in sizes if n != 1), 1) for sizes in zip(*ranked))
    return lax.select_n(_broadcast_to(pred, shape), _broadcast_to(y, shape), _broadcast_to(x, shape))


def _broadcast_to(x: Any, shape: tuple[int, ...]) -> Any:
    """``x``, a scalar or an array of ``shape``'s rank with axes of size 1 (``s + arange(4.)``
    with ``s`` of shape (1,)), broadcast to ``shape`` as lax broadcasts its operands."""
    x_shape = get_aval(x).shape
    if x_shape == shape:
        return x
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(x_shape), len(shape))))


def _zeros_like(x: Any) -> Any:
    return lax.broadcast_in_dim(_const(x, 0), get_aval(x).shape, ())


# --- elementwise: arithmetic ----------------------------------------------------------------

deflinear(lax.neg_p)
defjvp(lax.add_p, lambda t, ans, x, y: t, lambda t, ans, x, y: t)
defjvp(lax.sub_p, lambda t, ans, x, y: t, lambda t, ans, x, y: lax.neg(t))
defjvp(lax.mul_p, lambda t, ans, x, y: lax.mul(t, y), lambda t, ans, x, y: lax.mul(x, t))
defjvp(
    lax.div_p,
    lambda t, ans, x, y: lax.div(t, y),
    lambda t, ans, x, y: lax.mul(lax.neg(t), lax.div(ans, y)),  # d(x/y)/dy = -x/y**2 = -ans/y
)
defjvp(
    lax.rem_p,
    lambda t, ans, x, y: t,
    # x - y * trunc(x / y): the truncated quotient is piecewise constant
    lambda t, ans, x, y: lax.mul(lax.neg(t), lax.mul(lax.sign(lax.div(x, y)), lax.floor(lax.abs(lax.div(x, y))))),
)
defjvp(lax.square_p, lambda t, ans, x: lax.mul(t, lax.mul(_const(x, 2), x)))
defjvp(
    lax.integer_pow_p,
    lambda t, ans, x, *, y: (  # x ** 0 is 1 everywhere, even at x = 0: its derivative is 0
        _zeros_like(t) if y == 0 else lax.mul(t, lax.mul(_const(x, y), lax.integer_pow(x, y - 1)))
    ),
)


def _pow_dx(t: Any, ans: Any, x: Any, y: Any) -> Any:
    """d(x**y)/dx = y * x**(y-1); for an integer exponent 0 it is 0, even at x = 0."""
    if dtypes.is_inexact(get_aval(y).dtype):
        return lax.mul(t, lax.mul(y, lax.pow(x, lax.sub(y, _const(y, 1)))))
    y_x = lax.convert_element_type(y, get_aval(x).dtype)
    slope = lax.mul(y_x, lax.pow(x, lax.sub(y, _const(y, 1))))
    return lax.mul(t, _where(lax.eq(y, _const(y, 0)), _zeros_like(slope), slope))


def _pow_dy(t: Any, ans: Any, x: Any, y: Any) -> Any:
    """d(x**y)/dy = log(x) * x**y; at x = 0 JAX takes log(1), so 0 ** y stays flat in y."""
    safe_x = _where(lax.eq(x, _const(x, 0)), lax.full_like(x, 1), x)
    return lax.mul(t, lax.mul(lax.log(safe_x), ans))


defjvp(lax.pow_p, _pow_dx, _pow_dy)


def _balanced_eq(x: Any, ans: Any, other: Any) -> Any:
    """1 where x alone is the result of max/min, 1/2 where x and the other operand tie, else 0."""
    one, half, zero = _const(ans, 1), _const(ans, 0.5), _const(ans, 0)
    share = _where(lax.eq(other, ans), half, one)
    return _where(lax.eq(x, ans), share, zero)


defjvp(
    lax.max_p,
    lambda t, ans, x, y: lax.mul(t, _balanced_eq(x, ans, y)),
    lambda t, ans, x, y: lax.mul(t, _balanced_eq(y, ans, x)),
)
defjvp(
    lax.min_p,
    lambda t, ans, x, y: lax.mul(t, _balanced_eq(x, ans, y)),
    lambda t, ans, x, y: lax.mul(t, _balanced_eq(y, ans, x)),
)


def _abs_jvp(t: Any, ans: Any, x: Any) -> Any:
    if get_aval(x).dtype.kind != "c":
        return _where(lax.ge(x, _const(x, 0)), t, lax.neg(t))
    # d|x| = Re(conj(x) dx) / |x|, taking |x| = 1 where x = 0 as JAX does.
    re_dot = lax.add(lax.mul(lax.real(x), lax.real(t)), lax.mul(lax.imag(x), lax.imag(t)))
    safe = _where(lax.eq(ans, _const(ans, 0)), lax.full_like(ans, 1), ans)
    return lax.div(re_dot, safe)


defjvp(lax.abs_p, _abs_jvp)
deflinear(lax.real_p)
deflinear(lax.imag_p)
deflinear(lax.conj_p)
deflinear(lax.complex_p)


def _clamp_jvp_min(t: Any, ans: Any, lo: Any, x: Any, hi: Any) -> Any:
    return _where(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)), t, _zeros_like(t))


def _clamp_jvp_x(t: Any, ans: Any, lo: Any, x: Any, hi: Any) -> Any:
    return _where(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), t, _zeros_like(t))


def _clamp_jvp_max(t: Any, ans: Any, lo: Any, x: Any, hi: Any) -> Any:
    return _where(lax.lt(hi, x), t, _zeros_like(t))


defjvp(lax.clamp_p, _clamp_jvp_min, _clamp_jvp_x, _clamp_jvp_max)


def _select_n_jvp(primals: list[Any], tangents: list[Any]) -> tuple[Any, Any]:
    which, *cases = primals
    ans = lax.select_n_p.bind(which, *cases)
    if all(type(t) is Zero for t in tangents[1:]):
        return ans, Zero.like(ans)
    return ans, lax.select_n_p.bind(which, *map(instantiate, tangents[1:]))


jvp_rules[lax.select_n_p] = _select_n_jvp


def _convert_element_type_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    ans = lax.convert_element_type_p.bind(x, **params)
    # To or from an integer type the result is piecewise constant: its tangent is zero.
    if not (dtypes.is_inexact(params["new_dtype"]) and dtypes.is_inexact(get_aval(x).dtype)):
        return ans, Zero.like(ans)
    return ans, lax.convert_element_type_p.bind(t, **params)


jvp_rules[lax.convert_element_type_p] = _convert_element_type_jvp

# --- elementwise: transcendental functions ----------------------------------------------------

defjvp(lax.exp_p, lambda t, ans, x: lax.mul(t, ans))
defjvp(lax.exp2_p, lambda t, ans, x: lax.mul(t, lax.mul(_const(x, math.log(2)), ans)))
defjvp(lax.expm1_p, lambda t, ans, x: lax.mul(t, lax.add(ans, _const(ans, 1))))
defjvp(lax.log_p, lambda t, ans, x: lax.div(t, x))
defjvp(lax.log1p_p, lambda t, ans, x: lax.div(t, lax.add(x, _const(x, 1))))
defjvp(lax.sqrt_p, lambda t, ans, x: lax.mul(t, lax.div(_const(x, 0.5), ans)))
defjvp(lax.rsqrt_p, lambda t, ans, x: lax.mul(t, lax.mul(_const(x, -0.5), lax.div(ans, x))))
defjvp(lax.cbrt_p, lambda t, ans, x: lax.mul(t, lax.mul(_const(x, 1 / 3), lax.integer_pow(ans, -2))))
defjvp(lax.logistic_p, lambda t, ans, x: lax.mul(t, lax.mul(ans, lax.sub(_const(ans, 1), ans))))
defjvp(lax.sin_p, lambda t, ans, x: lax.mul(t, lax.cos(x)))
defjvp(lax.cos_p, lambda t, ans, x: lax.neg(lax.mul(t, lax.sin(x))))
defjvp(lax.tan_p, lambda t, ans, x: lax.mul(t, lax.add(_const(ans, 1), lax.square(ans))))
defjvp(lax.tanh_p, lambda t, ans, x: lax.mul(t, lax.sub(_const(ans, 1), lax.square(ans))))
defjvp(lax.sinh_p, lambda t, ans, x: lax.mul(t, lax.cosh(x)))
defjvp(lax.cosh_p, lambda t, ans, x: lax.mul(t, lax.sinh(x)))
defjvp(lax.asin_p, lambda t, ans, x: lax.mul(t, lax.rsqrt(lax.sub(_const(x, 1), lax.square(x)))))
defjvp(lax.acos_p, lambda t, ans, x: lax.neg(lax.mul(t, lax.rsqrt(lax.sub(_const(x, 1), lax.square(x))))))
defjvp(lax.atan_p, lambda t, ans, x: lax.div(t, lax.add(_const(x, 1), lax.square(x))))
defjvp(lax.asinh_p, lambda t, ans, x: lax.mul(t, lax.rsqrt(lax.add(lax.square(x), _const(x, 1)))))
defjvp(
    lax.acosh_p,
    lambda t, ans, x: lax.mul(t, lax.rsqrt(lax.mul(lax.sub(x, _const(x, 1)), lax.add(x, _const(x, 1))))),
)
defjvp(
    lax.atanh_p,
    lambda t, ans, x: lax.div(t, lax.mul(lax.add(_const(x, 1), x), lax.sub(_const(x, 1), x))),
)


def _atan2_denominator(x: Any, y: Any) -> Any:
    return lax.add(lax.square(x), lax.square(y))


defjvp(
    lax.atan2_p,
    lambda t, ans, x, y: lax.mul(t, lax.div(y, _atan2_denominator(x, y))),
    lambda t, ans, x, y: lax.mul(t, lax.div(lax.neg(x), _atan2_denominator(x, y))),
)

# --- special functions ------------------------------------------------------------------------

defjvp(
    lax.erf_p,
    lambda t, ans, x: lax.mul(t, lax.mul(_const(x, 2 / math.sqrt(math.pi)), lax.exp(lax.neg(lax.square(x))))),
)
defjvp(
    lax.erfc_p,
    lambda t, ans, x: lax.mul(t, lax.mul(_const(x, -2 / math.sqrt(math.pi)), lax.exp(lax.neg(lax.square(x))))),
)
defjvp(
    lax.erf_inv_p,
    lambda t, ans, x: lax.mul(t, lax.mul(_const(x, math.sqrt(math.pi) / 2), lax.exp(lax.square(ans)))),
)
defjvp(lax.lgamma_p, lambda t, ans, x: lax.mul(t, lax.digamma(x)))
defjvp(lax.digamma_p, lambda t, ans, x: lax.mul(t, lax.polygamma(_const(x, 1), x)))


def _polygamma_dm(t: Any, ans: Any, m: Any, x: Any) -> Any:
    raise ValueError("polygamma gradient with respect to m is not supported")  # the order is an integer


defjvp(lax.polygamma_p, _polygamma_dm, lambda t, ans, m, x: lax.mul(t, lax.polygamma(lax.add(m, _const(m, 1)), x)))
defjvp(lax.bessel_i0e_p, lambda t, ans, x: lax.mul(t, lax.sub(lax.bessel_i1e(x), lax.mul(lax.sign(x), ans))))


def _bessel_i1e_dx(t: Any, ans: Any, x: Any) -> Any:
    """d/dx e^-|x| I1(x) = i0e(x) - i1e(x) (sign(x) + 1/x); 1/2 at x = 0, where 1/x would be inf."""
    eps = _const(x, dtypes.finfo(get_aval(x).dtype).eps)
    not_tiny = lax.gt(lax.abs(x), eps)
    safe_x = _where(not_tiny, x, eps)
    slope = lax.sub(lax.bessel_i0e(safe_x), lax.mul(ans, lax.add(lax.sign(safe_x), lax.div(_const(x, 1), safe_x))))
    return lax.mul(t, _where(not_tiny, slope, _const(x, 0.5)))


defjvp(lax.bessel_i1e_p, _bessel_i1e_dx)


# The incomplete gamma functions: P = igamma, Q = igammac = 1 - P. In x, P's derivative is the
# density of Gamma(a), through logs as JAX writes it; in a, igamma_grad_a, which itself has no rule
# (as in JAX).


def _igamma_dx(t: Any, ans: Any, a: Any, x: Any) -> Any:
    """dP/dx = x^(a-1) e^-x / Gamma(a) = exp(-x + (a - 1) log x - lgamma(a))."""
    log_density = lax.sub(lax.add(lax.neg(x), lax.mul(lax.sub(a, _const(a, 1)), lax.log(x))), lax.lgamma(a))
    return lax.mul(t, lax.exp(log_density))


defjvp(lax.igamma_p, lambda t, ans, a, x: lax.mul(t, lax.igamma_grad_a(a, x)), _igamma_dx)
defjvp(
    lax.igammac_p,
    lambda t, ans, a, x: lax.neg(lax.mul(t, lax.igamma_grad_a(a, x))),
    lambda t, ans, a, x: lax.neg(_igamma_dx(t, ans, a, x)),
)


# random_gamma_grad, g = dx/da for a sample x of Gamma(a) with P(a, x) held fixed, is -(dP/da) / p, p
# the density. Its derivatives in a are the primitive random_gamma_grad_da[order=k] (the k-th), whose
# own derivative in a is the next order. In x, from d/dx dP/da = dp/da = p (log x - digamma(a)) and
# dp/dx = p ((a - 1)/x - 1): dg/dx = -(log x - digamma(a)) - g ((a - 1)/x - 1), and differentiating
# that k times in a (Leibniz's rule) gives the k-th order's derivative in x:
# polygamma(k, a) - g_k ((a - 1)/x - 1) - k g_(k-1) / x.


def _inside_gamma_domain(a: Any, x: Any, tangent: Any) -> Any:
    """``tangent`` where a > 0 and x > 0, 0 elsewhere: there JAX's random_gamma_grad selects
    constants (0 at x = 0, nan outside the domain), whose tangents are 0."""
    inside = lax.bitwise_and(lax.gt(a, _const(a, 0)), lax.gt(x, _const(x, 0)))
    return _where(inside, tangent, _const(tangent, 0))


def _sample_derivative(a: Any, x: Any, order: int) -> Any:
    """The order-th derivative of random_gamma_grad in a (order 0: itself)."""
    if order == 0:
        return lax.random_gamma_grad(a, x)
    return lax.incomplete_gamma.random_gamma_grad_da_p.bind(a, x, order=order)


def _sample_derivative_da(t: Any, ans: Any, a: Any, x: Any, order: int = 0) -> Any:
    """In a: the next order."""
    return _inside_gamma_domain(a, x, lax.mul(t, _sample_derivative(a, x, order + 1)))


def _sample_derivative_dx(t: Any, ans: Any, a: Any, x: Any, order: int = 0) -> Any:
    """In x: the formula above, ans being g_k."""
    slope = lax.sub(lax.div(lax.sub(a, _const(a, 1)), x), _const(x, 1))  # (a - 1)/x - 1
    if order == 0:
        first = lax.sub(lax.digamma(a), lax.log(x))
    else:
        previous = lax.div(lax.mul(_const(x, order), _sample_derivative(a, x, order - 1)), x)
        first = lax.sub(lax.polygamma(_const(a, order), a), previous)
    return _inside_gamma_domain(a, x, lax.mul(t, lax.sub(first, lax.mul(ans, slope))))


defjvp(lax.incomplete_gamma.random_gamma_grad_p, _sample_derivative_da, _sample_derivative_dx)
defjvp(lax.incomplete_gamma.random_gamma_grad_da_p, _sample_derivative_da, _sample_derivative_dx)

# --- piecewise constant and integer-valued: zero tangents --------------------------------------

for _prim in (
    lax.sign_p, lax.floor_p, lax.ceil_p, lax.round_p, lax.is_finite_p, lax.stop_gradient_p,
    lax.eq_p, lax.ne_p, lax.lt_p, lax.le_p, lax.gt_p, lax.ge_p,
    lax.and_p, lax.or_p, lax.not_p, lax.xor_p,
    lax.shift_left_p, lax.shift_right_logical_p, lax.shift_right_arithmetic_p,
    lax.population_count_p, lax.clz_p, lax.bitcast_convert_type_p,
    lax.argmax_p, lax.argmin_p, lax.reduce_and_p, lax.reduce_or_p, lax.reduce_xor_p, lax.iota_p,
):  # fmt: skip
    defzero(_prim)
# nextafter, zeta and igamma_grad_a have no rule, as in JAX: differentiating them raises
# NotImplementedError.

# --- structure: linear in the operands -------------------------------------------------------

for _prim in (
    lax.broadcast_in_dim_p, lax.reshape_p, lax.transpose_p, lax.squeeze_p, lax.rev_p, lax.slice_p,
    lax.concatenate_p, lax.pad_p, lax.reduce_sum_p, lax.cumsum_p,
    lax.fft_p,  # the Fourier transform: a matrix product, so its JVP is the transform of the tangent
    lax.reduce_precision_p,  # as in JAX: the tangent is rounded to the narrower format too
    lax.reduce_window_sum_p,
    # the collectives that move or add values across examples (stage 07), and pvary, which only
    # marks a value; pmax and pmin have no rule, as in JAX: differentiating them raises
    # NotImplementedError
    lax.psum_p, lax.all_gather_p, lax.reduce_scatter_p, lax.all_to_all_p, lax.ppermute_p, lax.pvary_p,
):  # fmt: skip
    deflinear(_prim)


def _dynamic_slice_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    operand, *starts = primals
    ans = lax.dynamic_slice_p.bind(operand, *starts, **params)
    return ans, lax.dynamic_slice_p.bind(instantiate(tangents[0]), *starts, **params)


def _dynamic_update_slice_jvp(primals: list[Any], tangents: list[Any]) -> tuple[Any, Any]:
    operand, update, *starts = primals
    ans = lax.dynamic_update_slice_p.bind(operand, update, *starts)
    t_operand, t_update = map(instantiate, tangents[:2])
    return ans, lax.dynamic_update_slice_p.bind(t_operand, t_update, *starts)


jvp_rules[lax.dynamic_slice_p] = _dynamic_slice_jvp
jvp_rules[lax.dynamic_update_slice_p] = _dynamic_update_slice_jvp



def defbilinear(prim: Primitive) -> None:
    """A product of its two operands: each one's tangent goes through the product with the other."""
    defjvp(prim, lambda t, ans, x, y, **params: prim.bind(t, y, **params),
           lambda t, ans, x, y, **params: prim.bind(x, t, **params))


defbilinear(lax.dot_general_p)
defbilinear(lax.conv_general_dilated_p)  # at each window, a dot product

# --- windowed maxima and minima ----------------------------------------------------------------
# Each output is one element of its window: its tangent is that element's tangent. The windows are
# cut out as a stack of strided slices, one per window offset, and the first element to win
# (argmax in the window's row-major order: JAX's choice among ties too) picks the tangent.


def window_stack(x: Any, fill: Any, out_shape: tuple[int, ...], *, window_dimensions: tuple[int, ...],
                 window_strides: tuple[int, ...], padding: tuple, base_dilation: tuple[int, ...],
                 window_dilation: tuple[int, ...]) -> Any:  # fmt: skip
    """x's windows as a stack: element k of every window, for each window offset k, on a new
    leading axis; shape (window size, *out_shape)."""
    x = lax.pad(x, fill, [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation)])
    pieces = []
    for offset in itertools.product(*map(range, window_dimensions)):
        start = [k * d for k, d in zip(offset, window_dilation)]
        limit = [s + (n - 1) * stride + 1 for s, n, stride in zip(start, out_shape, window_strides)]
        piece = lax.slice(x, start, limit, window_strides)
        pieces.append(lax.broadcast_in_dim(piece, (1, *out_shape), tuple(range(1, len(out_shape) + 1))))
    return lax.concatenate(pieces, 0)


def _window_extremum_jvp(prim: Primitive, choose: Callable[..., Any]) -> JVPRule:
    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, **params)
        out = get_aval(ans).shape
        if 0 in out:  # no window: nothing to choose
            return ans, Zero.like(ans)
        values = window_stack(x, Array(lax.windowed.identity(prim, get_aval(x).dtype)), out, **params)
        t = instantiate(t)
        moves = window_stack(t, Array(np.zeros((), get_aval(t).dtype)), out, **params)
        chosen = lax.eq(lax.broadcasted_iota(np.dtype(np.int32), get_aval(values).shape, 0),
                        lax.broadcast_in_dim(choose(values, 0, np.dtype(np.int32)), get_aval(values).shape,
                                             tuple(range(1, len(out) + 1))))  # fmt: skip
        return ans, lax.reduce_sum(lax.select_n(chosen, lax.full_like(moves, 0), moves), (0,))

    return rule


jvp_rules[lax.reduce_window_max_p] = _window_extremum_jvp(lax.reduce_window_max_p, lax.argmax)
jvp_rules[lax.reduce_window_min_p] = _window_extremum_jvp(lax.reduce_window_min_p, lax.argmin)

# --- reductions --------------------------------------------------------------------------------


def _reduce_chooser_jvp(prim: Primitive) -> JVPRule:
    """max and min: the tangent of the chosen entry, averaged over the entries that tie."""

    def rule(primals: list[Any], tangents: list[Any], *, axes: tuple[int, ...]) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, axes=axes)
        shape = get_aval(x).shape
        kept = tuple(d for d in range(len(shape)) if d not in axes)
        chosen = lax.eq(x, lax.broadcast_in_dim(ans, shape, kept))
        weights = lax.convert_element_type(chosen, get_aval(t).dtype)
        total = lax.reduce_sum_p.bind(lax.mul(t, weights), axes=axes)
        return ans, lax.div(total, lax.reduce_sum_p.bind(weights, axes=axes))

    return rule


jvp_rules[lax.reduce_max_p] = _reduce_chooser_jvp(lax.reduce_max_p)
jvp_rules[lax.reduce_min_p] = _reduce_chooser_jvp(lax.reduce_min_p)


def _reduce_prod_jvp(primals: list[Any], tangents: list[Any], *, axes: tuple[int, ...]) -> tuple[Any, Any]:
    """d(x1 * ... * xn) = sum_i t_i * (product of the others). The product of the others is the
    product of those before i times those after it, so a zero among the x is handled exactly."""
    (x,), (t,) = primals, tangents
    ans = lax.reduce_prod_p.bind(x, axes=axes)
    shape = get_aval(x).shape
    kept = [d for d in range(len(shape)) if d not in axes]
    n = math.prod(shape[d] for d in axes)
    if n == 0:
        return ans, Zero.like(ans)
    # Move the reduced axes last and flatten them into one axis of length n.
    flat_shape = tuple(shape[d] for d in kept) + (n,)
    xs = lax.reshape(lax.transpose(x, (*kept, *axes)), flat_shape)
    ts = lax.reshape(lax.transpose(instantiate(t), (*kept, *axes)), flat_shape)
    last = len(kept)
    before = _exclusive_cumprod(xs, last, reverse=False)
    after = _exclusive_cumprod(xs, last, reverse=True)
    return ans, lax.reduce_sum_p.bind(lax.mul(ts, lax.mul(before, after)), axes=(last,))


def _exclusive_cumprod(x: Any, axis: int, reverse: bool) -> Any:
    """Products of the entries strictly before each one along ``axis`` (after, if reverse)."""
    n = get_aval(x).shape[axis]
    inclusive = lax.cumprod(x, axis=axis, reverse=reverse)
    config = [(0, 0, 0)] * get_aval(x).ndim
    if reverse:
        config[axis] = (0, 1, 0)
        return lax.pad(lax.slice_in_dim(inclusive, 1, n, axis=axis), _const(x, 1), config)
    config[axis] = (1, 0, 0)
    return lax.pad(lax.slice_in_dim(inclusive, 0, n - 1, axis=axis), _const(x, 1), config)


jvp_rules[lax.reduce_prod_p] = _reduce_prod_jvp


def _prefix_scan(combine: Callable[[Any, Any], Any], x: Any, axis: int, reverse: bool) -> Any:
    """The running ``combine`` of ``x`` along ``axis`` from slices and concatenation (the
    Hillis-Steele scan: log2(n) rounds, each combining every entry with the one 2**k before it)."""
    if reverse:
        x = lax.rev(x, (axis,))
    n = get_aval(x).shape[axis]
    shift = 1
    while shift < n:
        head = lax.slice_in_dim(x, 0, shift, axis=axis)
        body = combine(lax.slice_in_dim(x, 0, n - shift, axis=axis), lax.slice_in_dim(x, shift, n, axis=axis))
        x = lax.concatenate([head, body], axis)
        shift *= 2
    return lax.rev(x, (axis,)) if reverse else x


def _logaddexp(a: Any, b: Any) -> Any:
    """log(exp(a) + exp(b)), written so that its derivative is exact where a == b."""
    delta = lax.sub(a, b)
    a_larger = lax.gt(delta, _const(delta, 0))
    softplus = lambda d: lax.log1p(lax.exp(d))  # noqa: E731
    return _where(a_larger, lax.add(a, softplus(lax.neg(delta))), lax.add(b, softplus(delta)))


def _cumulative_jvp(prim: Primitive, combine: Callable[[Any, Any], Any]) -> JVPRule:
    """cumprod, cummax, cummin, cumlogsumexp: differentiate the same running combination written
    as a scan of lax operations, whose rules are above (JAX does the same)."""

    def rule(primals: list[Any], tangents: list[Any], *, axis: int, reverse: bool) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, axis=axis, reverse=reverse)
        scan = lambda v: _prefix_scan(combine, v, axis, reverse)  # noqa: E731
        _, tangent = jvp(scan, (x,), (t,))
        return ans, tangent

    return rule


jvp_rules[lax.cumprod_p] = _cumulative_jvp(lax.cumprod_p, lax.mul)
jvp_rules[lax.cummax_p] = _cumulative_jvp(lax.cummax_p, lax.max)
jvp_rules[lax.cummin_p] = _cumulative_jvp(lax.cummin_p, lax.min)
jvp_rules[lax.cumlogsumexp_p] = _cumulative_jvp(lax.cumlogsumexp_p, _logaddexp)

# --- sorting: the tangents follow the primals' permutation --------------------------------------


def _permuted(t: Any, positions: Any, axis: int) -> Any:
    """``t`` with its entries along ``axis`` taken from ``positions`` (others stay in place)."""
    if type(t) is Zero:
        return Zero(ShapedArray(get_aval(positions).shape, t.aval.dtype, t.aval.weak_type))
    shape = get_aval(positions).shape
    index = tuple(
        positions if d == axis else lax.broadcasted_iota(np.int32, shape, d) for d in range(len(shape))
    )
    return t[index]


def _sort_jvp(primals: list[Any], tangents: list[Any], *, dimension: int, **params: Any) -> tuple[Any, Any]:
    shape = get_aval(primals[0]).shape
    iota = lax.broadcasted_iota(np.int32, shape, dimension)
    *sorted_primals, order = lax.sort_p.bind(*primals, iota, dimension=dimension, **params)
    return sorted_primals, [_permuted(t, order, dimension) for t in tangents]


def _top_k_jvp(primals: list[Any], tangents: list[Any], *, k: int, axis: int) -> tuple[Any, Any]:
    values, indices = lax.top_k_p.bind(primals[0], k=k, axis=axis)
    return [values, indices], [_permuted(tangents[0], indices, axis), Zero.like(indices)]


jvp_rules[lax.sort_p] = _sort_jvp
jvp_rules[lax.top_k_p] = _top_k_jvp

# --- gather and scatter ------------------------------------------------------------------------


def _gather_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    operand, indices = primals
    ans = lax.gather_p.bind(operand, indices, **params)
    if params["mode"] == GatherScatterMode.FILL_OR_DROP:  # a filled entry is a constant
        params = {**params, "fill_value": 0}
    return ans, lax.gather_p.bind(instantiate(tangents[0]), indices, **params)


jvp_rules[lax.gather_p] = _gather_jvp


def _scatter_add_jvp(prim: Primitive) -> JVPRule:
    """scatter-add and scatter-sub are linear in operand and updates together."""

    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
        operand, indices, updates = primals
        ans = prim.bind(operand, indices, updates, **params)
        return ans, prim.bind(instantiate(tangents[0]), indices, instantiate(tangents[2]), **params)

    return rule


jvp_rules[lax.scatter_add_p] = _scatter_add_jvp(lax.scatter_add_p)
jvp_rules[lax.scatter_sub_p] = _scatter_add_jvp(lax.scatter_sub_p)


def _undo_scatter(x: Any, indices: Any, updates_shape: tuple[int, ...], *, dimension_numbers: Any, mode: Any,
                  **_: Any) -> Any:  # fmt: skip
    """Read ``x`` back at every position of the updates: the gather that undoes the scatter.
    Positions a dropped update would have written read 0."""
    dn = dimension_numbers
    gather_dn = GatherDimensionNumbers(
        offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims, operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )
    window = iter(updates_shape[d] for d in dn.update_window_dims)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    sizes = tuple(1 if d in dropped else next(window) for d in range(get_aval(x).ndim))
    fill = 0 if mode == GatherScatterMode.FILL_OR_DROP else None
    return lax.gather_p.bind(x, indices, dimension_numbers=gather_dn, slice_sizes=sizes, unique_indices=False,
                             indices_are_sorted=False, mode=mode, fill_value=fill)  # fmt: skip


def _update_ids(updates_shape: tuple[int, ...], window_dims: Sequence[int]) -> Any:
    """Numbers 1, 2, ... one per update window, broadcast over each window's entries."""
    scatter_axes = [d for d in range(len(updates_shape)) if d not in window_dims]
    scatter_shape = tuple(updates_shape[d] for d in scatter_axes)
    ids = lax.add(lax.iota(np.int32, math.prod(scatter_shape)), np.int32(1))
    return lax.broadcast_in_dim(lax.reshape(ids, scatter_shape), updates_shape, tuple(scatter_axes))


def _scatter_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    """Overwriting scatter. Where indices repeat, one update wins, and the tangent must come from
    the same one. Scatter a number per update, read the numbers back: an update won where it
    reads its own number, the operand survived where no number landed. Then the result is a
    scatter-add of the winners alone, for the primal and the tangent alike."""
    if params["update_jaxpr"] is not None:  # x.at[...].apply(f): no rule, as in JAX
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    t_operand, _, t_updates = map(instantiate, tangents)
    if params["unique_indices"]:
        ans = lax.scatter_p.bind(operand, indices, updates, **params)
        return ans, lax.scatter_p.bind(t_operand, indices, t_updates, **params)
    shape, updates_shape = get_aval(operand).shape, get_aval(updates).shape
    ids = _update_ids(updates_shape, params["dimension_numbers"].update_window_dims)
    no_ids = lax.broadcast_in_dim(np.int32(0), shape, ())
    landed = lax.scatter_p.bind(no_ids, indices, ids, **params)
    won = lax.eq(_undo_scatter(landed, indices, updates_shape, **params), ids)
    survived = lax.eq(landed, no_ids)

    def combine(x: Any, u: Any) -> Any:
        kept_x = _where(survived, x, _zeros_like(x))
        return lax.scatter_add_p.bind(kept_x, indices, _where(won, u, _zeros_like(u)), **params)

    return combine(operand, updates), combine(t_operand, t_updates)


def _scatter_mul_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    ans = lax.scatter_mul_p.bind(operand, indices, updates, **params)
    terms = []
    if type(t_operand) is not Zero:  # linear in the operand
        terms.append(lax.scatter_mul_p.bind(t_operand, indices, updates, **params))
    if type(t_updates) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
        spread = lax.scatter_add_p.bind(_zeros_like(operand), indices, t_updates, **params)
        terms.append(lax.mul(operand, spread))
    return ans, _sum_terms(terms, ans)


def _scatter_chooser_jvp(prim: Primitive) -> JVPRule:
    """scatter-min and scatter-max: every contender equal to the result (the operand and any
    update landing there) shares the tangent equally, as reduce_max's entries do."""

    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
        operand, indices, updates = primals
        t_operand, _, t_updates = map(instantiate, tangents)
        ans = prim.bind(operand, indices, updates, **params)
        dtype = get_aval(t_operand).dtype
        as_weight = lambda chosen: lax.convert_element_type(chosen, dtype)  # noqa: E731
        operand_won = as_weight(lax.eq(operand, ans))
        update_won = as_weight(lax.eq(updates, _undo_scatter(ans, indices, get_aval(updates).shape, **params)))
        count = lax.scatter_add_p.bind(operand_won, indices, update_won, **params)
        total = lax.scatter_add_p.bind(lax.mul(t_operand, operand_won), indices, lax.mul(t_updates, update_won),
                                       **params)  # fmt: skip
        return ans, lax.div(total, count)

    return rule


jvp_rules[lax.scatter_p] = _scatter_jvp
jvp_rules[lax.scatter_mul_p] = _scatter_mul_jvp
jvp_rules[lax.scatter_min_p] = _scatter_chooser_jvp(lax.scatter_min_p)
jvp_rules[lax.scatter_max_p] = _scatter_chooser_jvp(lax.scatter_max_p)


# --- random numbers: keys and random bits do not move with anything -------------------------------
# Every operand of these primitives is a key or an integer, whose tangent is a symbolic zero, so
# forward mode runs them on their primals alone; the rules say the same, as JAX's defjvp_zero does.

for _prim in (
    prng.random_seed_p, prng.random_split_p, prng.random_fold_in_p, prng.random_bits_p,
    prng.random_wrap_p, prng.random_unwrap_p,
):  # fmt: skip
    defzero(_prim)


# --- random_gamma: a sample's derivative in a, by implicit reparameterization, as JAX's ----------
# A sample x of Gamma(a) moves with a so that its quantile P(a, x) stays fixed: dx/da is
# random_gamma_grad(a, x), not the derivative of the rejection loops that drew it. The keys get none.


def _gamma_grad(sample: Any, a: Any, *, log_space: bool) -> Any:
    """d(sample)/da. A log-space sample is log x, whose derivative is (dx/da) / x; exp of a very
    negative log sample rounds to 0, which JAX replaces by the smallest normal number."""
    if not log_space:
        return lax.random_gamma_grad(a, sample)
    x = lax.exp(sample)
    x = _where(lax.eq(x, _const(x, 0)), _const(x, np.finfo(get_aval(x).dtype).tiny), x)
    return lax.div(lax.random_gamma_grad(a, x), x)


defjvp(
    distributions.random_gamma_p,
    None,
    lambda t, ans, keys, a, *, log_space: lax.mul(t, _gamma_grad(ans, a, log_space=log_space)),
)


# --- control flow: cond and switch (stage 04) --------------------------------------------------
# Each branch is differentiated as a jaxpr, and the cond runs the chosen branch's JVP. All
# branches must give the same outputs, so an output's tangent is a symbolic zero only where it is
# one in every branch; the branches where it is not zero give zeros for it (instantiate).

from .lax.conditionals import cond_p, hoist_branch_consts  # noqa: E402


def _cond_jvp(
    primals: list[Any], tangents: list[Any], *, branches: tuple[ClosedJaxpr, ...]
) -> tuple[Any, Any]:
    index, *ops = primals
    ops_dot = tangents[1:]  # the index is an integer: it has no tangent
    nonzeros = [type(t) is not Zero for t in ops_dot]
    out_nonzeros = [any(nz) for nz in zip(*[jvp_jaxpr(b, nonzeros, False)[1] for b in branches])]
    jvp_branches, consts = hoist_branch_consts([jvp_jaxpr(b, nonzeros, out_nonzeros)[0] for b in branches])
    nonzero_dots = [t for t in ops_dot if type(t) is not Zero]
    outs = cond_p.bind(index, *consts, *ops, *nonzero_dots, branches=jvp_branches)
    primals_out, nonzero_tangents = outs[: len(out_nonzeros)], iter(outs[len(out_nonzeros) :])
    tangents_out = [
        next(nonzero_tangents) if nz else Zero.like(p) for p, nz in zip(primals_out, out_nonzeros)
    ]
    return primals_out, tangents_out


jvp_rules[cond_p] = _cond_jvp


# --- control flow: loops (stage 04) ------------------------------------------------------------
# A loop's JVP is a loop over the JVP of its body, carrying tangents beside the primals. Which
# carries need a tangent is a fixed point: those with a nonzero one at the start, and those the
# body gives one (from a constant's tangent, an xs tangent, or another carry's).


def _while_jvp(primals: list[Any], tangents: list[Any], *, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
               cond_nconsts: int, body_nconsts: int) -> tuple[list[Any], list[Any]]:  # fmt: skip
    nonzeros = [type(t) is not Zero for t in tangents]
    _, bconst_nz, init_nz = split_list(nonzeros, [cond_nconsts, body_nconsts])
    carry_nz = carry_fixed_point(lambda nz: jvp_jaxpr(body_jaxpr, bconst_nz + nz, nz)[1], init_nz)
    body_jvp, _ = jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
    n_bconst_dot, n_carry_dot = sum(bconst_nz), sum(carry_nz)
    # (bconsts, carry, bconst_dots, carry_dots) -> (carry, carry_dots), regrouped as while's operands.
    body_jvp = move_binders(body_jvp, interleaved([body_nconsts, len(init_nz)], [n_bconst_dot, n_carry_dot]),
                            range(len(init_nz) + n_carry_dot))  # fmt: skip
    cconsts, bconsts, init = split_list(primals, [cond_nconsts, body_nconsts])
    _, bconst_dots, init_dots = split_list(tangents, [cond_nconsts, body_nconsts])
    bconst_dots = [t for t, nz in zip(bconst_dots, bconst_nz) if nz]
    init_dots = [instantiate_zeros(t) for t, nz in zip(init_dots, carry_nz) if nz]
    # The condition reads only the primals: it takes the tangents and ignores them.
    carry_avals = cond_jaxpr.in_avals[cond_nconsts:]
    cond = with_unused_inputs(cond_jaxpr, [tangent_aval(a) for a, nz in zip(carry_avals, carry_nz) if nz])
    outs = bind_while(cond, body_jvp, cconsts, [*bconsts, *bconst_dots], [*init, *init_dots])
    carry_out, carry_dots = split_list(outs, [len(init)])
    return carry_out, _with_zeros(carry_out, carry_nz, carry_dots)


def _scan_jvp(primals: list[Any], tangents: list[Any], *, jaxpr: ClosedJaxpr, length: int, reverse: bool,
              unroll: int, num_consts: int, num_carry: int) -> tuple[list[Any], list[Any]]:  # fmt: skip
    nonzeros = [type(t) is not Zero for t in tangents]
    const_nz, init_nz, xs_nz = split_list(nonzeros, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry

    def carry_out_nz(carry_nz: list[bool]) -> list[bool]:
        return jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * num_ys)[1][:num_carry]

    carry_nz = carry_fixed_point(carry_out_nz, init_nz)
    body_jvp, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * num_ys)
    ys_nz = out_nz[num_carry:]
    # (consts, carry, xs, their tangents) -> (carry, ys, their tangents), regrouped as scan's operands.
    in_order = interleaved([num_consts, num_carry, len(xs_nz)], [sum(const_nz), sum(carry_nz), sum(xs_nz)])
    body_jvp = move_binders(body_jvp, in_order, interleaved([num_carry, num_ys], [sum(carry_nz), sum(ys_nz)]))
    consts, init, xs = split_list(primals, [num_consts, num_carry])
    const_dots, init_dots, xs_dots = split_list(tangents, [num_consts, num_carry])
    const_dots = [t for t, nz in zip(const_dots, const_nz) if nz]
    init_dots = [instantiate_zeros(t) for t, nz in zip(init_dots, carry_nz) if nz]
    xs_dots = [t for t, nz in zip(xs_dots, xs_nz) if nz]
    outs = bind_scan(body_jvp, [*consts, *const_dots], [*init, *init_dots], [*xs, *xs_dots],
                               length=length, reverse=reverse, unroll=unroll)  # fmt: skip
    carry, carry_dots, ys, ys_dots = split_list(outs, [num_carry, len(init_dots), num_ys])
    return [*carry, *ys], _with_zeros([*carry, *ys], carry_nz + ys_nz, [*carry_dots, *ys_dots])


def _with_zeros(primals: list[Any], nonzeros: list[bool], given: list[Any]) -> list[Any]:
    """A tangent per primal: the next of ``given`` where marked nonzero, a symbolic zero elsewhere."""
    it = iter(given)
    return [next(it) if nz else Zero.like(p) for p, nz in zip(primals, nonzeros)]


jvp_rules[lax.while_p] = _while_jvp
jvp_rules[lax.scan_p] = _scan_jvp


# --- linear algebra ----------------------------------------------------------------------------
# The Cholesky factor's tangent (Murray, "Differentiation of the Cholesky decomposition", 2016):
# from A = L L^H, dA = dL L^H + L dL^H, so L^-1 dA L^-H = L^-1 dL + (L^-1 dL)^H, whose lower
# triangle (the diagonal halved) is the lower-triangular L^-1 dL: two triangular solves and a product.


def _cholesky_jvp(primals: list[Any], tangents: list[Any]) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    factor = linalg.tril(linalg.cholesky_p.bind(x))
    if type(dx) is Zero:
        return factor, Zero.like(factor)
    right = linalg.triangular_solve(factor, dx, left_side=False, lower=True, transpose_a=True, conjugate_a=True)
    inner = linalg.triangular_solve(factor, right, left_side=True, lower=True)  # L^-1 dA L^-H
    shape = get_aval(inner).shape
    twos_on_diagonal = lax.broadcast_in_dim(_const(inner, 1 + np.eye(shape[-1])), shape, (len(shape) - 2, len(shape) - 1))
    return factor, linalg.batch_matmul(factor, lax.div(linalg.tril(inner), twos_on_diagonal))


def _triangular_solve_da(t: Any, ans: Any, a: Any, b: Any, *, left_side: bool, lower: bool, transpose_a: bool,
                         conjugate_a: bool, unit_diagonal: bool) -> Any:  # fmt: skip
    """X = op(A)^-1 B moves by -op(A)^-1 op(dA) X (or -X op(dA) op(A)^-1), dA read from A's triangle."""
    k = 1 if unit_diagonal else 0
    t = lax.neg(linalg.tril(t, -k) if lower else linalg.triu(t, k))
    t = linalg.mT(t) if transpose_a else t
    t = lax.conj(t) if conjugate_a else t
    product = linalg.batch_matmul(t, ans) if left_side else linalg.batch_matmul(ans, t)
    return linalg.triangular_solve_p.bind(a, product, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                          conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)


# LU's tangent (de Hoog, Anderssen and Lukas): from P A = L U, P dA = dL U + L dU, so
# L^-1 P dA U^-1 = L^-1 dL + dU U^-1: the first is strictly lower triangular (L's diagonal is fixed
# at ones), the second upper triangular, so each is read off one triangle of the left side. A
# rectangular A has its L (m by k) and U (k by n) grown to square with the identity.


def _lu_jvp(primals: list[Any], tangents: list[Any]) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    packed, pivots, permutation = linalg.lu_p.bind(x)
    if type(dx) is Zero:
        return [packed, pivots, permutation], [Zero.like(packed), Zero.like(pivots), Zero.like(permutation)]
    shape = get_aval(x).shape
    m, n = shape[-2:]
    k, rows, cols = min(m, n), len(shape) - 2, len(shape) - 1
    lower = _grown(linalg.tril(lax.slice_in_dim(packed, 0, k, axis=cols), -1), cols, m, np.ones(m))
    upper = _grown(linalg.triu(lax.slice_in_dim(packed, 0, k, axis=rows)), rows, n, np.arange(n) >= k)
    moved = linalg.batch_matmul(_permutation_matrix(permutation, get_aval(dx).dtype), dx)  # P dA
    inner = linalg.triangular_solve(lower, moved, left_side=True, lower=True, unit_diagonal=True)
    inner = linalg.triangular_solve(upper, inner, left_side=False, lower=False)  # L^-1 P dA U^-1
    d_lower = linalg.batch_matmul(lower, linalg.tril(inner, -1))  # dL = L strict_lower(L^-1 P dA U^-1)
    d_packed = lax.add(d_lower, linalg.batch_matmul(linalg.triu(inner), upper))  # plus dU = upper(...) U
    return [packed, pivots, permutation], [d_packed, Zero.like(pivots), Zero.like(permutation)]


def _permutation_matrix(permutation: Any, dtype: np.dtype) -> Any:
    """P, whose product P X has as its row i the row permutation[i] of X (P X = X[permutation])."""
    shape = get_aval(permutation).shape
    cols = len(shape)
    iota = lax.broadcasted_iota(np.int32, (*shape, shape[-1]), cols)
    return lax.convert_element_type(lax.eq(lax.expand_dims(permutation, (cols,)), iota), dtype)


def _grown(x: Any, axis: int, size: int, diagonal: np.ndarray) -> Any:
    """x padded with zeros along ``axis`` to ``size``, plus ``diagonal`` on its main diagonal."""
    shape = get_aval(x).shape
    padding = [(0, 0, 0)] * len(shape)
    padding[axis] = (0, size - shape[axis], 0)
    x = lax.pad(x, _const(x, 0), padding)
    square = get_aval(x).shape
    added = _const(x, np.diag(diagonal.astype(np.float64)))
    return lax.add(x, lax.broadcast_in_dim(added, square, (len(square) - 2, len(square) - 1)))


# eigh's tangent, for distinct eigenvalues (first-order perturbation theory): with P = V^H dA V,
# dw is P's real diagonal and dV = V (F * P), where F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it.


def _eigh_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    shape = get_aval(x).shape
    if params["subset_by_index"] not in (None, (0, shape[-1])):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    v, w = linalg.eigh_p.bind(x, **params)
    if type(dx) is Zero:
        return [v, w], [Zero.like(v), Zero.like(w)]
    p = linalg.batch_matmul(linalg.batch_matmul(linalg.H(v), dx), v)
    eye = lax.broadcast_in_dim(_const(v, np.eye(shape[-1])), shape, (len(shape) - 2, len(shape) - 1))
    w_full = lax.convert_element_type(w, get_aval(v).dtype)
    gaps = lax.sub(lax.broadcast_in_dim(w_full, shape, (*range(len(shape) - 2), len(shape) - 1)),
                   lax.broadcast_in_dim(w_full, shape, tuple(range(len(shape) - 1))))  # w_j - w_i
    f = lax.sub(lax.div(lax.full_like(eye, 1), lax.add(gaps, eye)), eye)  # (1 on the diagonal, less 1)
    dv = linalg.batch_matmul(v, lax.mul(f, p))
    dw = lax.real(_diagonal_of(p)) if dtypes.issubdtype(get_aval(p).dtype, np.complexfloating) else _diagonal_of(p)
    return [v, w], [dv, dw]


def _diagonal_of(x: Any) -> Any:
    """The diagonal of each matrix of the batch x, as the sum of x masked to its diagonal."""
    shape = get_aval(x).shape
    eye = lax.broadcast_in_dim(_const(x, np.eye(shape[-1])), shape, (len(shape) - 2, len(shape) - 1))
    return lax.reduce_sum(lax.mul(x, eye), (len(shape) - 1,))


# svd's tangent, for distinct nonzero singular values, from the thin decomposition A = U S V^H:
# with dP = U^H dA V, ds is dP's real diagonal, and U and V turn by skew-Hermitian matrices whose
# entries come from (s_j^2 - s_i^2). A tall (wide) A also moves U (V) out of its column space:
# the part of dA V (dA^H U) that U (V) does not span, divided by s.


def _svd_jvp(primals: list[Any], tangents: list[Any], *, full_matrices: bool, compute_uv: bool,
             **params: Any) -> tuple[Any, Any]:  # fmt: skip
    (x,), (dx,) = primals, tangents
    shape = get_aval(x).shape
    m, n = shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
    s, u, vh = linalg.svd_p.bind(x, full_matrices=False, compute_uv=True, **params)
    outs = [s, u, vh] if compute_uv else [s]
    if type(dx) is Zero:
        return outs, [Zero.like(o) for o in outs]
    dtype = get_aval(x).dtype
    v, uh = linalg.H(vh), linalg.H(u)
    dp = linalg.batch_matmul(linalg.batch_matmul(uh, dx), v)  # U^H dA V, k by k
    ds = _diagonal_of(dp)
    ds = lax.real(ds) if dtypes.issubdtype(dtype, np.complexfloating) else ds
    if not compute_uv:
        return outs, [ds]
    k = min(m, n)
    square = (*shape[:-2], k, k)
    rows, cols = tuple(range(len(square) - 1)), (*range(len(square) - 2), len(square) - 1)
    s_full = lax.convert_element_type(s, dtype)
    s_i, s_j = lax.broadcast_in_dim(s_full, square, rows), lax.broadcast_in_dim(s_full, square, cols)
    eye = lax.broadcast_in_dim(_const(dp, np.eye(k)), square, (len(square) - 2, len(square) - 1))
    f = lax.sub(lax.div(lax.full_like(eye, 1), lax.add(lax.mul(lax.add(s_j, s_i), lax.sub(s_j, s_i)), eye)), eye)
    dp_s, s_dp = lax.mul(dp, s_j), lax.mul(s_i, dp)  # dP S and S dP
    nonzero = lax.ne(s_full, lax.full_like(s_full, 0))
    s_inv = lax.select_n(nonzero, lax.full_like(s_full, 0), lax.div(lax.full_like(s_full, 1), lax.select_n(
        nonzero, lax.full_like(s_full, 1), s_full)))  # fmt: skip
    # the skew-Hermitian part of dP over s, on the diagonal only (zero for real matrices)
    on_diagonal_over_s = lax.mul(eye, lax.broadcast_in_dim(s_inv, square, cols))
    skew = lax.mul(lax.mul(lax.sub(dp, linalg.H(dp)), _const(dp, 0.5)), on_diagonal_over_s)
    du = linalg.batch_matmul(u, lax.add(lax.mul(f, lax.add(dp_s, linalg.H(dp_s))), skew))
    dv = linalg.batch_matmul(v, lax.mul(f, lax.add(s_dp, linalg.H(s_dp))))
    s_cols = lax.broadcast_in_dim(s_full, (*shape[:-2], 1, k), cols)
    if m > n:  # U's columns leave their span: (I - U U^H) dA V / s
        dav = linalg.batch_matmul(dx, v)
        du = lax.add(du, lax.div(lax.sub(dav, linalg.batch_matmul(u, linalg.batch_matmul(uh, dav))),
                                 lax.broadcast_in_dim(s_cols, get_aval(dav).shape, tuple(range(len(shape))))))
    if n > m:  # V's likewise: (I - V V^H) dA^H U / s
        dahu = linalg.batch_matmul(linalg.H(dx), u)
        dv = lax.add(dv, lax.div(lax.sub(dahu, linalg.batch_matmul(v, linalg.batch_matmul(vh, dahu))),
                                 lax.broadcast_in_dim(s_cols, get_aval(dahu).shape, tuple(range(len(shape))))))
    return outs, [ds, du, linalg.H(dv)]


# QR's tangent (Townsend's note, and JAX's rule for the full Q of a tall matrix, Roberts and Roberts
# 2024): for m >= n, from A = Q R and C = Q^H dA R^-1, dR R^-1 is C less a skew-Hermitian dO made
# of C's strictly lower triangle (R stays upper triangular), and dQ = Q (dO - C) + dA R^-1. A wide
# A is its square left block (whose QR gives Q) and the rest, R's right block = Q^H A_2.


def _qr_jvp(primals: list[Any], tangents: list[Any], *, pivoting: bool, full_matrices: bool,
            use_magma: Any) -> tuple[Any, Any]:  # fmt: skip
    (x,), (dx,) = primals, tangents
    outs = linalg.qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    if type(dx) is Zero:
        return outs, [Zero.like(o) for o in outs]
    q, r, *p = outs
    shape = get_aval(x).shape
    m, n = shape[-2:]
    last = len(shape) - 1
    if pivoting:  # the columns p of A, which Q R is: A E with E's column j the unit vector e_p[j]
        columns = linalg.mT(_permutation_matrix(p[0], get_aval(x).dtype))
        x, dx = linalg.batch_matmul(x, columns), linalg.batch_matmul(dx, columns)
    if m < n:
        head = lambda a: lax.slice_in_dim(a, 0, m, axis=last)  # noqa: E731
        dq, dr_left = _thin_qr_jvp(q, head(r), head(dx))
        x_right, dx_right = lax.slice_in_dim(x, m, n, axis=last), lax.slice_in_dim(dx, m, n, axis=last)
        dr_right = lax.add(linalg.batch_matmul(linalg.H(dq), x_right), linalg.batch_matmul(linalg.H(q), dx_right))
        tangents_out = [dq, lax.concatenate([dr_left, dr_right], last)]
    elif full_matrices and m > n:
        tangents_out = _full_qr_jvp(q, r, dx)
    else:
        tangents_out = list(_thin_qr_jvp(q, r, dx))
    return outs, [*tangents_out, *(Zero.like(p[0]) for _ in p)]


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple[Any, Any]:
    """dQ and dR of A = Q R, A m by n with m >= n, Q m by n and R n by n."""
    dx_rinv = linalg.triangular_solve(r, dx)  # dA R^-1 (on the right, R upper triangular)
    c = linalg.batch_matmul(linalg.H(q), dx_rinv)
    lower = linalg.tril(c, -1)
    do = lax.sub(lower, linalg.H(lower))
    if dtypes.issubdtype(get_aval(c).dtype, np.complexfloating):  # dO's diagonal: C's imaginary part
        shape = get_aval(c).shape
        eye = lax.broadcast_in_dim(_const(c, np.eye(shape[-1])), shape, (len(shape) - 2, len(shape) - 1))
        do = lax.add(do, lax.mul(eye, lax.sub(c, lax.convert_element_type(lax.real(c), get_aval(c).dtype))))
    dq = lax.add(linalg.batch_matmul(q, lax.sub(do, c)), dx_rinv)
    return dq, linalg.batch_matmul(lax.sub(c, do), r)


def _full_qr_jvp(q: Any, r: Any, dx: Any) -> list[Any]:
    """dQ and dR of the full A = Q R, A m by n with m > n (Q m by m): the first n columns of Q move
    as in the thin decomposition, the other m - n so that Q stays unitary (Roberts and Roberts,
    arXiv:2409.13374, equations 32 and 33)."""
    shape = get_aval(q).shape
    m, n, rows, last = shape[-1], get_aval(r).shape[-1], len(shape) - 2, len(shape) - 1
    q_mn, q_mp = lax.slice_in_dim(q, 0, n, axis=last), lax.slice_in_dim(q, n, m, axis=last)
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, lax.slice_in_dim(r, 0, n, axis=rows), dx)
    top, bottom = lambda a: lax.slice_in_dim(a, 0, n, axis=rows), lambda a: lax.slice_in_dim(a, n, m, axis=rows)  # noqa: E731
    eye = lax.broadcast_in_dim(_const(q, np.eye(n)), (*shape[:-2], n, n), (rows, last))
    z_h = _solve(linalg.H(lax.sub(top(q_mn), eye)), linalg.H(bottom(q_mn)))  # Z = Q_pn (Q_nn - I)^-1
    z = linalg.H(z_h)
    moved = linalg.H(lax.sub(bottom(dq_mn), linalg.batch_matmul(z, top(dq_mn))))  # (dQ_pn - Z dQ_nn)^H
    dq_mp = lax.sub(linalg.batch_matmul(dq_mn, z_h), linalg.batch_matmul(lax.add(q_mn, linalg.batch_matmul(q_mp, z)), moved))
    zeros = lax.full((*shape[:-2], m - n, n), 0, get_aval(dr_nn).dtype)
    return [lax.concatenate([dq_mn, dq_mp], last), lax.concatenate([dr_nn, zeros], rows)]


def _solve(a: Any, b: Any) -> Any:
    """X with A X = B, for batches of square A and of B, through A's LU decomposition."""
    packed, _, permutation = linalg.lu_p.bind(a)
    y = linalg.batch_matmul(_permutation_matrix(permutation, get_aval(b).dtype), b)
    y = linalg.triangular_solve(packed, y, left_side=True, lower=True, unit_diagonal=True)
    return linalg.triangular_solve(packed, y, left_side=True, lower=False)


jvp_rules[linalg.cholesky_p] = _cholesky_jvp
jvp_rules[linalg.qr_p] = _qr_jvp
jvp_rules[linalg.svd_p] = _svd_jvp
jvp_rules[linalg.eigh_p] = _eigh_jvp
jvp_rules[linalg.lu_p] = _lu_jvp


def _permutation_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[Any, Any]:
    """A permutation is integers: its tangent is zero."""
    out = linalg.lu_pivots_to_permutation_p.bind(*primals, **params)
    return out, [Zero.like(out[0])]


jvp_rules[linalg.lu_pivots_to_permutation_p] = _permutation_jvp
defjvp(linalg.triangular_solve_p, _triangular_solve_da,
       lambda t, ans, a, b, **params: linalg.triangular_solve_p.bind(a, t, **params))  # linear in b


def missing_rules() -> list[str]:
    """The primitives of didax.lax and didax.random without a JVP rule (the chapter lists them)."""
    modules = (lax, linalg, prng, distributions)
    prims = {p for module in modules for p in vars(module).values() if isinstance(p, Primitive)}
    return sorted(p.name for p in prims if p not in jvp_rules)
