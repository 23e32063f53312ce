"""Lowering rules of control flow: ``cond``, ``while`` and ``scan`` (stage 05).

A loop or a branch holds jaxprs; StableHLO holds regions, blocks of operations inside an
operation. So each rule lowers the jaxprs it holds into the regions of one operation:

    cond  -> stablehlo.case   one region per branch, the index picks (out of range: the last)
    while -> stablehlo.while  a condition region and a body region, both on the carry
    scan  -> stablehlo.while  over (i, carry, ys): slice x i out of the xs, run the body, write
                              its y into row i of the ys

Regions may read the values of the function around them, so the operands that are not carried
(the branches' operands, the loops' constants, scan's xs) are used where they are, not passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import lax
from ..core import ShapedArray
from ..jaxpr import ClosedJaxpr
from ..lax.loops import split_list
from .core import (
    FunctionBuilder, LoweringContext, constant, i64_array, lower_jaxpr, lowering_rules, physical, tensor_type,
)  # fmt: skip
from .slicing import dynamic_slice, dynamic_update_slice

I32 = "tensor<i32>"
I1 = "tensor<i1>"


def lower_closed(fb: FunctionBuilder, closed: ClosedJaxpr, args: Sequence[str]) -> list[str]:
    """Write ``closed`` applied to ``args`` into ``fb`` (its constants as constants there)."""
    consts = [constant(fb, np.asarray(c)) for c in closed.consts]
    return lower_jaxpr(fb, closed.jaxpr, consts, args)


def _out_types(ctx: LoweringContext) -> list[str]:
    return [ctx.out_type(i) for i in range(len(ctx.avals_out))]


# ----------------------------------------------------------------------------------------------
# cond


def _cond(ctx: LoweringContext, index: str, *operands: str, branches: tuple[ClosedJaxpr, ...]) -> list[str]:
    fb = ctx.fb
    if fb.types[index] != I32:  # stablehlo.case takes an int32 index
        index = fb.op1("stablehlo.convert", [index], I32)
    regions = []
    for branch in branches:
        region = fb.region([])
        region.ret(lower_closed(region.builder, branch, operands))
        regions.append(region)
    return fb.op("stablehlo.case", [index], _out_types(ctx), regions=regions)


# ----------------------------------------------------------------------------------------------
# while


def _any(fb: FunctionBuilder, pred: str, ndim: int) -> str:
    """A boolean array reduced to one boolean: whether any element is true."""
    body = fb.region([I1, I1])
    body.ret([body.builder.op1("stablehlo.or", body.args, I1)])
    false = constant(fb, np.zeros((), np.bool_))
    dims = {"dimensions": i64_array(range(ndim))}
    return fb.op("stablehlo.reduce", [pred, false], [I1], dims, regions=[body])[0]


def _where_leading(fb: FunctionBuilder, pred: str, pred_ndim: int, new: str, old: str) -> str:
    """``new`` where ``pred`` (whose shape is a prefix of theirs) holds, ``old`` elsewhere."""
    typ = fb.types[new]
    shape = typ[len("tensor<") :].split("x")[:-1]
    wide = "tensor<" + "".join(f"{d}x" for d in shape) + "i1>"
    if wide != fb.types[pred]:
        dims = {"broadcast_dimensions": i64_array(range(pred_ndim))}
        pred = fb.op1("stablehlo.broadcast_in_dim", [pred], wide, dims)
    return fb.op1("stablehlo.select", [pred, new, old], typ)


def _while(ctx: LoweringContext, *args: str, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
           cond_nconsts: int, body_nconsts: int) -> list[str]:  # fmt: skip
    """A predicate with a shape (vmap of a loop whose condition varies by example) runs the loop
    while any example goes on, and keeps the carries of those that have stopped, as the impl does."""
    fb = ctx.fb
    cond_consts, body_consts, carry = split_list(args, [cond_nconsts, body_nconsts])
    types = [tensor_type(a) for a in ctx.avals_out]
    pred_ndim = cond_jaxpr.out_avals[0].ndim

    cond = fb.region(types)
    (pred,) = lower_closed(cond.builder, cond_jaxpr, [*cond_consts, *cond.args])
    cond.ret([_any(cond.builder, pred, pred_ndim) if pred_ndim else pred])

    body = fb.region(types)
    new = lower_closed(body.builder, body_jaxpr, [*body_consts, *body.args])
    if pred_ndim:
        (pred,) = lower_closed(body.builder, cond_jaxpr, [*cond_consts, *body.args])
        new = [_where_leading(body.builder, pred, pred_ndim, n, o) for n, o in zip(new, body.args)]
    body.ret(new)
    return fb.op("stablehlo.while", carry, types, regions=[cond, body])


# ----------------------------------------------------------------------------------------------
# scan


def _scan(ctx: LoweringContext, *args: str, jaxpr: ClosedJaxpr, length: int, reverse: bool, unroll: int,
          num_consts: int, num_carry: int) -> list[str]:  # fmt: skip
    """A while loop over i = 0 .. length-1 carrying (i, carry, ys); step i reads row i of the xs
    (row length-1-i when ``reverse``) and writes its y to the same row of the ys."""
    fb = ctx.fb
    consts, carry, xs = split_list(args, [num_consts, num_carry])
    x_avals = [physical(a) for a in ctx.avals_in[num_consts + num_carry :]]
    ys_avals = [physical(a) for a in ctx.avals_out[num_carry:]]
    types = [I32, *(tensor_type(a) for a in ctx.avals_out)]
    zero = constant(fb, np.zeros((), np.int32))
    ys_init = [constant(fb, np.zeros(a.shape, a.dtype)) for a in ys_avals]
    if length == 0:  # no step to run (and no row of the xs to slice, which XLA would refuse)
        return [*carry, *ys_init]

    cond = fb.region(types)
    cb = cond.builder
    n = constant(cb, np.asarray(length, np.int32))
    cond.ret([cb.op1("stablehlo.compare", [cond.args[0], n], I1, _LT)])

    body = fb.region(types)
    bb = body.builder
    i, carry_in, ys = body.args[0], body.args[1 : 1 + num_carry], body.args[1 + num_carry :]
    last = constant(bb, np.asarray(length - 1, np.int32))
    row = bb.op1("stablehlo.subtract", [last, i], I32) if reverse else i
    starts = lambda a: [row, *(constant(bb, np.zeros((), np.int32)) for _ in a.shape[1:])]  # noqa: E731
    x_rows = []
    for x, a in zip(xs, x_avals):
        one = ShapedArray((1, *a.shape[1:]), a.dtype)
        piece = dynamic_slice(bb, x, starts(a), one.shape, tensor_type(one))
        x_rows.append(bb.op1("stablehlo.reshape", [piece], tensor_type(ShapedArray(a.shape[1:], a.dtype))))
    outs = lower_closed(bb, jaxpr, [*consts, *carry_in, *x_rows])
    carry_out, y_rows = outs[:num_carry], outs[num_carry:]
    new_ys = []
    for buffer, y, a in zip(ys, y_rows, ys_avals):
        one = bb.op1("stablehlo.reshape", [y], tensor_type(ShapedArray((1, *a.shape[1:]), a.dtype)))
        new_ys.append(dynamic_update_slice(bb, buffer, one, starts(a)))
    next_i = bb.op1("stablehlo.add", [i, constant(bb, np.ones((), np.int32))], I32)
    body.ret([next_i, *carry_out, *new_ys])
    return fb.op("stablehlo.while", [zero, *carry, *ys_init], types, regions=[cond, body])[1:]


_LT = {"comparison_direction": "#stablehlo<comparison_direction LT>",
       "compare_type": "#stablehlo<comparison_type SIGNED>"}  # fmt: skip

lowering_rules.update({lax.cond_p: _cond, lax.while_p: _while, lax.scan_p: _scan})
