"""Lowering rule of fft (stage 05): StableHLO has the transform as one operation, ``stablehlo.fft``,
with the same four kinds and the lengths of the transformed axes."""

from __future__ import annotations

from .. import lax
from .core import LoweringContext, i64_array, lowering_rules


def _fft(ctx: LoweringContext, x: str, *, fft_type: lax.FftType, fft_lengths: tuple[int, ...]) -> str:
    attrs = {"fft_type": f"#stablehlo<fft_type {fft_type.name}>", "fft_length": i64_array(fft_lengths)}
    return ctx.fb.op1("stablehlo.fft", [x], ctx.out_type(), attrs)


lowering_rules[lax.fft_p] = _fft
