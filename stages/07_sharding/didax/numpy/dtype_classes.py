"""The abstract dtype classes (``jnp.floating``, ``jnp.integer``, ...) and questions about dtypes:
issubdtype, isdtype, can_cast. JAX's classes are NumPy's own, so ``jnp.floating is np.floating``;
bfloat16, which NumPy does not know as a float, is placed by hand. Stage 01 introduced it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes

generic = np.generic
number = np.number
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
flexible = np.flexible
character = np.character
object_ = np.object_


def _as_category(x: Any) -> Any:
    """A didax scalar type (``jnp.float32``) stands for its NumPy scalar type."""
    dt = getattr(x, "dtype", None)
    if isinstance(x, type) and isinstance(dt, np.dtype):
        return dt.type
    return x


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """Whether dtype ``arg1`` is ``arg2`` or below it in the hierarchy (``floating``, ``number``...)."""
    arg1, arg2 = _as_category(arg1), _as_category(arg2)
    if isinstance(arg1, dtypes.ExtendedDType) or isinstance(arg2, dtypes.ExtendedDType):
        return dtypes.issubdtype(arg1, arg2)  # a key dtype: under prng_key and extended only
    if isinstance(arg2, type) and issubclass(arg2, np.generic) and arg2 in (
        np.floating, np.inexact, np.number, np.generic, np.integer, np.signedinteger, np.unsignedinteger,
        np.complexfloating, np.bool_, np.flexible, np.character, np.object_,
    ):
        return dtypes.issubdtype(np.dtype(arg1), arg2)
    return np.dtype(arg1) == np.dtype(arg2) if not isinstance(arg2, type) or arg2 not in (
        np.generic,) else True


_KINDS = {
    "bool": lambda dt: dt == np.bool_,
    "signed integer": lambda dt: dtypes.issubdtype(dt, np.signedinteger),
    "unsigned integer": lambda dt: dtypes.issubdtype(dt, np.unsignedinteger),
    "integral": lambda dt: dtypes.issubdtype(dt, np.integer),
    "real floating": lambda dt: dtypes.is_float(dt),
    "complex floating": lambda dt: dt.kind == "c",
    "numeric": lambda dt: dtypes.issubdtype(dt, np.number),
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """The array API's test: is ``dtype`` of ``kind`` (a name such as 'integral', a dtype, or a tuple)."""
    dt = np.dtype(_as_category(dtype))
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise ValueError(f"Unrecognized {k=!r}; expected one of {list(_KINDS)}, or a dtype.")
            if _KINDS[k](dt):
                return True
        elif np.dtype(_as_category(k)) == dt:
            return True
    return False


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """Whether NumPy's casting rule ``casting`` allows converting ``from_``'s dtype to ``to``."""
    if type(from_) in (int, float, complex, bool):
        raise TypeError("can_cast() does not support Python ints, floats, and complex because the result "
                        "used to depend on the value.")
    src = from_.dtype if hasattr(from_, "dtype") and not isinstance(from_, type) else _as_category(from_)
    return bool(np.can_cast(np.dtype(src), np.dtype(_as_category(to)), casting))
