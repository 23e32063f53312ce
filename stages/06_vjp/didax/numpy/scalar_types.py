"""The dtype names of didax.numpy (``jnp.float32``, ``jnp.bfloat16``, ...): usable as ``dtype=``
arguments, and callable to make a strongly typed array (``jnp.int16(1)``). Stage 01 introduced it.

JAX also names the narrow types of ml_dtypes (``jnp.float8_e4m3fn``, ``jnp.int4``, ...). didax has
them as names of dtypes (``jnp.dtype``, ``jnp.finfo``, ``jnp.issubdtype`` know them) but computes
only with the fifteen types of the promotion lattice: making an array of one is a TypeError.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from .. import dtypes
from .creation import array


class _ScalarMeta(type):
    """Metaclass giving each scalar type a ``dtype`` (so np.dtype(jnp.float32) works) and a call."""

    dtype: np.dtype

    def __call__(cls, x: Any = 0) -> Any:
        return array(x, dtype=cls.dtype)

    def __repr__(cls) -> str:
        return f"<class 'didax.numpy.{cls.__name__}'>"

    def __eq__(cls, other: Any) -> bool:
        # Equal to its NumPy type and dtype (as in JAX), not to a name: jnp.float32 != "float32".
        return cls is other or cls.dtype.type == other

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)  # as its NumPy type's: a dict keyed by np.float32 finds jnp.float32


def _scalar_type(name: str, dtype: Any) -> _ScalarMeta:
    return _ScalarMeta(name, (), {"dtype": np.dtype(dtype)})


bool_ = _scalar_type("bool", np.bool_)
uint8 = _scalar_type("uint8", np.uint8)
uint16 = _scalar_type("uint16", np.uint16)
uint32 = _scalar_type("uint32", np.uint32)
uint64 = _scalar_type("uint64", np.uint64)
int8 = _scalar_type("int8", np.int8)
int16 = _scalar_type("int16", np.int16)
int32 = _scalar_type("int32", np.int32)
int64 = _scalar_type("int64", np.int64)
bfloat16 = _scalar_type("bfloat16", dtypes.bfloat16)
float16 = _scalar_type("float16", np.float16)
float32 = _scalar_type("float32", np.float32)
float64 = _scalar_type("float64", np.float64)
complex64 = _scalar_type("complex64", np.complex64)
complex128 = _scalar_type("complex128", np.complex128)

# NumPy's generic names: the 64-bit types, canonicalized to 32 bits while x64 is off.
int_, uint, float_, complex_ = int64, uint64, float64, complex128
single, double, csingle, cdouble = float32, float64, complex64, complex128

# The narrow types of ml_dtypes: names of dtypes only (see the module's docstring).
float8_e3m4 = _scalar_type("float8_e3m4", ml_dtypes.float8_e3m4)
float8_e4m3 = _scalar_type("float8_e4m3", ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz = _scalar_type("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _scalar_type("float8_e4m3fn", ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _scalar_type("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _scalar_type("float8_e5m2", ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _scalar_type("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _scalar_type("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu)
float6_e2m3fn = _scalar_type("float6_e2m3fn", ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _scalar_type("float6_e3m2fn", ml_dtypes.float6_e3m2fn)
float4_e2m1fn = _scalar_type("float4_e2m1fn", ml_dtypes.float4_e2m1fn)
int1 = _scalar_type("int1", ml_dtypes.int1)
int2 = _scalar_type("int2", ml_dtypes.int2)
int4 = _scalar_type("int4", ml_dtypes.int4)
uint1 = _scalar_type("uint1", ml_dtypes.uint1)
uint2 = _scalar_type("uint2", ml_dtypes.uint2)
uint4 = _scalar_type("uint4", ml_dtypes.uint4)
