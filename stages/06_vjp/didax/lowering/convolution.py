"""Lowering rule of conv_general_dilated (stage 05): StableHLO's one convolution operation,
``stablehlo.convolution``, takes the same parameters. Its dimension numbers name each axis of each
array by a letter (b and f for the input's and output's batch and feature axes, i and o for the
kernel's) or, for a spatial axis, by its number in the kernel's order."""

from __future__ import annotations

from typing import Any

from .. import lax
from .core import LoweringContext, i64_array, lowering_rules


def _layout(spec: tuple[int, ...], first: str, second: str) -> str:
    """``[b, 0, 1, f]``: the letter or spatial number of each array position."""
    names = [""] * len(spec)
    for role, axis in enumerate(spec):
        names[axis] = first if role == 0 else second if role == 1 else str(role - 2)
    return "[" + ", ".join(names) + "]"


def _conv(ctx: LoweringContext, lhs: str, rhs: str, *, window_strides: tuple[int, ...],
          padding: tuple[tuple[int, int], ...], lhs_dilation: tuple[int, ...], rhs_dilation: tuple[int, ...],
          dimension_numbers: Any, feature_group_count: int, batch_group_count: int, **_: Any) -> str:  # fmt: skip
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    numbers = (f"#stablehlo.conv<{_layout(lhs_spec, 'b', 'f')}x{_layout(rhs_spec, 'o', 'i')}"
               f"->{_layout(out_spec, 'b', 'f')}>")  # fmt: skip
    pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]" if padding else ""
    attrs = {
        "dimension_numbers": numbers,
        "window_strides": i64_array(window_strides),
        "padding": f"dense<{pads}> : tensor<{len(padding)}x2xi64>",
        "lhs_dilation": i64_array(lhs_dilation),
        "rhs_dilation": i64_array(rhs_dilation),
        "feature_group_count": f"{feature_group_count} : i64",
        "batch_group_count": f"{batch_group_count} : i64",
    }
    return ctx.fb.op1("stablehlo.convolution", [lhs, rhs], ctx.out_type(), attrs)


lowering_rules[lax.conv_general_dilated_p] = _conv
