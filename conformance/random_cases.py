"""The random-number cases whose values real JAX recorded in data/random_bits.json (conformance
suite). One list, used by the script that records the data and by the test that checks it.

Each case calls the implementation's ``random`` module with fixed keys, shapes and dtypes. Its
tolerance says how far a correct implementation may be from JAX's bits: 0 for bits, integers,
booleans, keys and permutations; for floats computed through log, exp, erf_inv or a
multiply-add, a few float32 ulps, because XLA's CPU compiler evaluates those with its own
approximations and fuses a multiply followed by an add into one rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

F32_EPS = float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[[Any], Any]  # random module -> array
    x64: bool = False
    rtol: float = 0.0  # |got - want| <= atol + rtol * |want|
    atol: float = 0.0


def _key(r: Any, seed: int = 1701) -> Any:
    return r.PRNGKey(seed)


SEEDS = [0, 1, 42, -1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 5, 2**40 + 7, -(2**40), 2**63 - 1]
P5 = [0.1, 0.2, 0.3, 0.15, 0.25]
WORDS = [[0, 7], [2**32 - 1, 12345]]  # two keys' uint32 words
LAMS = [0.0, 0.5, 5.0, 9.99, 10.0, 30.0, 1000.0]  # poisson's rates: both algorithms and the switch

CASES: list[Case] = [
    *[Case(f"PRNGKey({s})", lambda r, s=s: r.PRNGKey(s)) for s in SEEDS],
    *[Case(f"PRNGKey({s}) x64", lambda r, s=s: r.PRNGKey(s), x64=True) for s in SEEDS],
    Case("PRNGKey(uint64 max) x64", lambda r: r.PRNGKey(np.uint64(2**64 - 1)), x64=True),
    Case("PRNGKey(int8(-1))", lambda r: r.PRNGKey(np.int8(-1))),
    Case("key_data(key(7))", lambda r: r.key_data(r.key(7))),
    *[Case(f"split(k, {n})", lambda r, n=n: r.split(_key(r), n)) for n in (1, 2, 3, 7, (2, 3))],
    Case("split(split(k)[1])", lambda r: r.split(r.split(_key(r))[1])),
    *[Case(f"fold_in(k, {d})", lambda r, d=d: r.fold_in(_key(r), d)) for d in (0, 5, 2**31, 2**32 - 1)],
    *[
        Case(f"bits({shape}, {dt})", lambda r, shape=shape, dt=dt: r.bits(_key(r), shape, dt))
        for shape in ((), (5,), (2, 3))
        for dt in ("uint8", "uint16", "uint32")
    ],
    Case("bits((7,), uint64) x64", lambda r: r.bits(_key(r), (7,), "uint64"), x64=True),
    Case("bits((4,)) x64 default dtype", lambda r: r.bits(_key(r), (4,)), x64=True),
    Case("uniform((64,))", lambda r: r.uniform(_key(r), (64,))),
    Case("uniform((16,), float16)", lambda r: r.uniform(_key(r), (16,), "float16")),
    Case("uniform((16,), bfloat16)", lambda r: r.uniform(_key(r), (16,), "bfloat16")),
    Case("uniform((32,)) x64", lambda r: r.uniform(_key(r), (32,)), x64=True),
    # A multiply-add: XLA fuses it into one rounding.
    Case(
        "uniform((3, 4), minval=[[-2], [0], [5]], maxval=7)",
        lambda r: r.uniform(_key(r), (3, 4), minval=np.array([[-2.0], [0.0], [5.0]], np.float32), maxval=7.0),
        rtol=4 * F32_EPS,
        atol=4 * F32_EPS,
    ),
    # erf_inv goes through log1p, which XLA rounds its own way.
    Case("normal((256,))", lambda r: r.normal(_key(r), (256,)), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    Case("normal((16,), float16)", lambda r: r.normal(_key(r), (16,), "float16"), rtol=2e-3, atol=2e-3),
    Case("normal((32,)) x64", lambda r: r.normal(_key(r), (32,)), x64=True, rtol=1e-12, atol=1e-13),
    Case(
        "truncated_normal(-1.5, 2.0, (256,))",
        lambda r: r.truncated_normal(_key(r), -1.5, 2.0, (256,)),
        rtol=8 * F32_EPS,
        atol=8 * F32_EPS,
    ),
    Case("exponential((256,))", lambda r: r.exponential(_key(r), (256,)), rtol=2 * F32_EPS, atol=2 * F32_EPS),
    Case("exponential((32,)) x64", lambda r: r.exponential(_key(r), (32,)), x64=True, rtol=1e-12, atol=1e-13),
    Case("gumbel((256,))", lambda r: r.gumbel(_key(r), (256,)), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    # mode='high': two uniforms per value; 'highest' (float32 gumbel): 64 bits as one fixed-point number.
    Case("gumbel((256,), mode='high')", lambda r: r.gumbel(_key(r), (256,), mode="high"), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    Case("gumbel((16, 16), mode='highest')", lambda r: r.gumbel(_key(r), (16, 16), mode="highest"), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    Case("gumbel((64,), bfloat16, mode='high')", lambda r: r.gumbel(_key(r), (64,), "bfloat16", mode="high"), rtol=1e-2, atol=1e-2),
    Case("gumbel((32,), mode='highest') x64", lambda r: r.gumbel(_key(r), (32,), mode="highest"), x64=True, rtol=1e-12, atol=1e-13),
    Case("bernoulli(0.3, (256,), mode='high')", lambda r: r.bernoulli(_key(r), 0.3, (256,), mode="high")),
    Case("bernoulli(p=[1e-3, 0.5, 0.9] float16, mode='high')", lambda r: r.bernoulli(_key(r), np.array([1e-3, 0.5, 0.9], np.float16), (64, 3), mode="high")),
    # p just above the first uniform of each draw: 'low' is always True there, 'high' half the time.
    Case("bernoulli(p=uniform((64,)) + 2**-24, mode='high')", lambda r: r.bernoulli(_key(r), r.uniform(_key(r), (64,)) + np.float32(2**-24), mode="high")),
    Case("choice(5, (3,), replace=False, p=P5, mode='high')", lambda r: r.choice(_key(r), 5, (3,), replace=False, p=np.array(P5, np.float32), mode="high")),
    Case("categorical(log([.1, .2, .7]), shape=(64,), mode='high')", lambda r: r.categorical(_key(r), np.log(np.array([0.1, 0.2, 0.7], np.float32)), shape=(64,), mode="high")),
    Case("bernoulli(0.3, (256,))", lambda r: r.bernoulli(_key(r), 0.3, (256,))),
    Case("bernoulli(p=[0.1, 0.5, 0.9])", lambda r: r.bernoulli(_key(r), np.array([0.1, 0.5, 0.9], np.float32))),
    Case("randint((64,), 0, 10)", lambda r: r.randint(_key(r), (64,), 0, 10)),
    Case("randint((64,), 0, 256, uint8)", lambda r: r.randint(_key(r), (64,), 0, 256, "uint8")),
    Case("randint((64,), -200, 300, int8)", lambda r: r.randint(_key(r), (64,), -200, 300, "int8")),
    Case("randint((2, 8), [[-5], [3]], 100)", lambda r: r.randint(_key(r), (2, 8), np.array([[-5], [3]]), 100)),
    Case("randint((4,), 5, 5)", lambda r: r.randint(_key(r), (4,), 5, 5)),
    Case("randint((16,), -10**12, 10**12) x64", lambda r: r.randint(_key(r), (16,), -(10**12), 10**12), x64=True),
    Case("permutation(10)", lambda r: r.permutation(_key(r), 10)),
    Case("permutation(2000)", lambda r: r.permutation(_key(r), 2000)),  # two rounds of sorting
    Case("permutation(arange(12).reshape(3, 4), axis=1)", lambda r: r.permutation(_key(r), np.arange(12).reshape(3, 4), axis=1)),
    Case(
        "permutation(arange(12).reshape(3, 4), axis=1, independent=True)",
        lambda r: r.permutation(_key(r), np.arange(12).reshape(3, 4), axis=1, independent=True),
    ),
    Case("choice(10, (20,))", lambda r: r.choice(_key(r), 10, (20,))),
    Case("choice(arange(10.) * 1.5, (4, 5))", lambda r: r.choice(_key(r), np.arange(10.0, dtype=np.float32) * 1.5, (4, 5))),
    Case("choice(10, (5,), replace=False)", lambda r: r.choice(_key(r), 10, (5,), replace=False)),
    Case("choice(5, (64,), p=P5)", lambda r: r.choice(_key(r), 5, (64,), p=np.array(P5, np.float32))),
    Case("choice(5, (3,), replace=False, p=P5)", lambda r: r.choice(_key(r), 5, (3,), replace=False, p=np.array(P5, np.float32))),
    Case(
        "choice(arange(12).reshape(3, 4), (2,), axis=1)",
        lambda r: r.choice(_key(r), np.arange(12).reshape(3, 4), (2,), axis=1),
    ),
    Case("categorical(log([.1, .2, .7]), shape=(64,))", lambda r: r.categorical(_key(r), np.log(np.array([0.1, 0.2, 0.7], np.float32)), shape=(64,))),
    Case("categorical([[0, 1, 2], [2, 1, 0]], axis=1)", lambda r: r.categorical(_key(r), np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]], np.float32), axis=1)),
    # Rejection sampling: the accepted candidates are JAX's; the values carry the normal's ulps.
    Case("gamma([0.5, 1, 2.5, 10], (3, 4))", lambda r: r.gamma(_key(r), np.array([0.5, 1.0, 2.5, 10.0], np.float32), (3, 4)), rtol=1e-5, atol=1e-6),
    Case("beta(2, 3, (8,))", lambda r: r.beta(_key(r), 2.0, 3.0, (8,)), rtol=1e-5, atol=1e-6),
    Case("dirichlet([1, 2, 3], (4,))", lambda r: r.dirichlet(_key(r), np.array([1.0, 2.0, 3.0], np.float32), (4,)), rtol=1e-5, atol=1e-6),
    Case("loggamma([0.01, 0.5, 1, 3], (3, 4))", lambda r: r.loggamma(_key(r), np.array([0.01, 0.5, 1.0, 3.0], np.float32), (3, 4)), rtol=1e-5, atol=1e-6),
    # Inverse CDFs through tan, log and log1p: XLA's own approximations, a few ulps from NumPy's.
    Case("cauchy((256,))", lambda r: r.cauchy(_key(r), (256,)), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    Case("cauchy((16,), float16)", lambda r: r.cauchy(_key(r), (16,), "float16"), rtol=2e-3, atol=2e-3),
    Case("laplace((256,))", lambda r: r.laplace(_key(r), (256,)), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    Case("laplace((16,)) x64", lambda r: r.laplace(_key(r), (16,)), x64=True, rtol=1e-12, atol=1e-13),
    Case("logistic((256,))", lambda r: r.logistic(_key(r), (256,)), rtol=4 * F32_EPS, atol=4 * F32_EPS),
    Case("rademacher((64,))", lambda r: r.rademacher(_key(r), (64,))),
    Case("rademacher((16,), float32)", lambda r: r.rademacher(_key(r), (16,), "float32")),
    Case("rademacher((16,), uint8)", lambda r: r.rademacher(_key(r), (16,), "uint8")),
    # Made from gamma (and normal, exponential, pow): gamma's tolerance.
    Case("t(3.0, (64,))", lambda r: r.t(_key(r), 3.0, (64,)), rtol=1e-5, atol=1e-6),
    Case("t([0.5, 1, 2.5, 10], (3, 4))", lambda r: r.t(_key(r), np.array([0.5, 1.0, 2.5, 10.0], np.float32), (3, 4)), rtol=1e-5, atol=1e-6),
    Case("ball(3, shape=(16,))", lambda r: r.ball(_key(r), 3, shape=(16,)), rtol=1e-5, atol=1e-6),
    Case("ball(4, p=1, shape=(8,))", lambda r: r.ball(_key(r), 4, p=1, shape=(8,)), rtol=1e-5, atol=1e-6),
    Case("ball(2, p=3.5, shape=(8,))", lambda r: r.ball(_key(r), 2, p=3.5, shape=(8,)), rtol=1e-5, atol=1e-6),
    # Made from the samplers above, as JAX writes them: through gamma, gamma's tolerance; the others
    # through exp, log, log1p, sqrt and pow, a few ulps.
    Case("generalized_normal(3.5, (64,))", lambda r: r.generalized_normal(_key(r), 3.5, (64,)), rtol=1e-5, atol=1e-6),
    Case("chisquare(3.0, (64,))", lambda r: r.chisquare(_key(r), 3.0, (64,)), rtol=1e-5, atol=1e-6),
    Case("f(3.0, 5.0, (64,))", lambda r: r.f(_key(r), 3.0, 5.0, (64,)), rtol=1e-5, atol=1e-6),
    Case("lognormal(shape=(64,))", lambda r: r.lognormal(_key(r), shape=(64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("lognormal([0.5, 2], (3, 2))", lambda r: r.lognormal(_key(r), np.array([0.5, 2.0], np.float32), (3, 2)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("maxwell((64,))", lambda r: r.maxwell(_key(r), (64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("double_sided_maxwell(1.0, 2.0, (64,))", lambda r: r.double_sided_maxwell(_key(r), 1.0, 2.0, (64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    # The parameters' shape is appended to the shape asked for: (3, 2).
    Case("double_sided_maxwell([0, 1], 2.0, (3,))", lambda r: r.double_sided_maxwell(_key(r), np.array([0.0, 1.0], np.float32), 2.0, (3,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("weibull_min(2.0, 1.5, (64,))", lambda r: r.weibull_min(_key(r), 2.0, 1.5, (64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("pareto(3.0, (64,))", lambda r: r.pareto(_key(r), 3.0, (64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("rayleigh(2.0, (64,))", lambda r: r.rayleigh(_key(r), 2.0, (64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    # A difference of nearly equal terms: the ulps of its square root grow.
    Case("wald(1.5, (64,))", lambda r: r.wald(_key(r), 1.5, (64,)), rtol=1e-5, atol=1e-6),
    Case("triangular(-1.0, 0.5, 2.0, (64,))", lambda r: r.triangular(_key(r), -1.0, 0.5, 2.0, (64,)), rtol=8 * F32_EPS, atol=8 * F32_EPS),
    Case("geometric(0.3, (64,))", lambda r: r.geometric(_key(r), 0.3, (64,))),
    Case("geometric([0.1, 0.9], (5, 2))", lambda r: r.geometric(_key(r), np.array([0.1, 0.9], np.float32), (5, 2))),
    Case("bits(clone(k), (4,))", lambda r: r.bits(r.clone(_key(r)), (4,))),
    # Knuth's loop below lam = 10, Hormann's rejection from there on (lam = 0 gives 0): JAX's integers.
    Case("poisson(3.0, (256,))", lambda r: r.poisson(_key(r), 3.0, (256,))),
    Case("poisson(50.0, (256,))", lambda r: r.poisson(_key(r), 50.0, (256,))),
    Case("poisson(LAMS, (64, 7))", lambda r: r.poisson(_key(r), np.array(LAMS, np.float32), (64, 7))),
    Case("poisson(2.5, (16,), uint8)", lambda r: r.poisson(_key(r), 2.5, (16,), "uint8")),
    Case("poisson(3.0, (32,)) x64", lambda r: r.poisson(_key(r), 3.0, (32,)), x64=True),
    # A key wrapped from its words draws what the raw words draw.
    Case("uniform(wrap_key_data(WORDS)[1], (8,))", lambda r: r.uniform(r.wrap_key_data(np.array(WORDS, np.uint32))[1], (8,))),
    Case("key_data(split(wrap_key_data(WORDS)[0], 3))", lambda r: r.key_data(r.split(r.wrap_key_data(np.array(WORDS, np.uint32))[0], 3))),
]


# ----------------------------------------------------------------------------------------------
# Arrays to and from JSON: the dtype, the shape, and each element's bit pattern in hex.


def encode(x: Any) -> dict[str, Any]:
    a = np.asarray(x)
    raw = a.astype(np.uint8) if a.dtype == np.bool_ else a.view(f"u{a.dtype.itemsize}")
    return {"dtype": a.dtype.name, "shape": list(a.shape), "bits": [format(int(v), "x") for v in raw.ravel()]}


def decode(entry: dict[str, Any]) -> np.ndarray:
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)

    dtype = np.dtype(entry["dtype"])
    width = np.dtype(f"u{dtype.itemsize}")
    raw = np.array([int(b, 16) for b in entry["bits"]], dtype=width).reshape(entry["shape"])
    return raw.astype(np.bool_) if dtype == np.bool_ else raw.view(dtype)
