"""Stage 01, dtypes: JAX's promotion lattice and weak types, next to NumPy's rules.

Run from the stage folder: python -m examples.promotion
"""

import numpy as np

import didax
import didax.numpy as jnp

print("Weak types: a Python scalar takes the array's dtype; a typed value joins it on the lattice.")
x = jnp.arange(5, dtype="int8")
print("2 * int8 array       ->", repr(2 * x))  # a Python scalar is weak: int8 wins
print("int32(2) * int8 array ->", repr(jnp.int32(2) * x))  # a typed value is not
print("asarray(2)            ->", repr(jnp.asarray(2)))
print("int16(1) + 1          ->", (jnp.int16(1) + 1).dtype)

print()
print("A NumPy array is not weak, even with one element: the lattice decides (NumPy would say int64).")
y = jnp.int16(1) + np.array(1)
print("int16(1) + np.array(1) ->", y.dtype, "| NumPy:", (np.int16(1) + np.array(1)).dtype)

print()
print("Two types promote to their least upper bound on the lattice:")
print("bfloat16 + float16    ->", jnp.promote_types(jnp.bfloat16, jnp.float16))
print("uint64 + int8         ->", jnp.promote_types(jnp.uint64, jnp.int8), "(no integer holds both)")

print()
print("Strict mode refuses implicit promotion, except a weak scalar joining an array of its kind;")
print("so the second line below is an error, and it is intended:")
with didax.numpy_dtype_promotion("strict"):
    print("strict: float32(1) + 1 ->", jnp.float32(1) + 1)
    try:
        jnp.float32(1) + jnp.int32(1)
    except didax.dtypes.TypePromotionError as err:
        print("strict: float32(1) + int32(1) raises, as intended: TypePromotionError:", err)
