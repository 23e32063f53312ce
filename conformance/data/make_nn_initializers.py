"""Record real JAX's jax.nn.initializers outputs into nn_initializers.json, beside this script.
Each record holds the case (builder, its keyword arguments, seed, shape, dtype) and the bits, so
the test rebuilds the same call from the file alone. Run by hand, with the pinned JAX, from the
repository root:

    python conformance/data/make_nn_initializers.py

The tests only read the file: the suite never imports JAX for it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the repository root, for `conformance`

import jax  # noqa: E402
import jax.nn.initializers  # noqa: E402

from conformance.random_cases import encode  # noqa: E402

# (builder, keyword arguments of the builder, seed, shape, dtype)
CASES = [
    ("zeros", None, 0, [2, 3], "float32"),
    ("ones", None, 0, [3], "float32"),
    ("constant", {"value": 0.25}, 0, [2, 2], "float32"),
    ("uniform", {}, 0, [4, 5], "float32"),
    ("uniform", {"scale": 3.0}, 1, [7], "float32"),
    ("normal", {}, 0, [4, 5], "float32"),
    ("normal", {"stddev": 2.0}, 2, [3, 2, 2], "float32"),
    ("truncated_normal", {}, 0, [4, 5], "float32"),
    ("truncated_normal", {"stddev": 1.0, "lower": -1.0, "upper": 0.5}, 3, [16], "float32"),
    ("variance_scaling", {"scale": 1.0, "mode": "fan_in", "distribution": "normal"}, 0, [8, 4], "float32"),
    ("variance_scaling", {"scale": 2.0, "mode": "fan_out", "distribution": "uniform"}, 1, [8, 4], "float32"),
    ("variance_scaling", {"scale": 0.5, "mode": "fan_geo_avg", "distribution": "truncated_normal"}, 2, [3, 3, 8, 4], "float32"),
    ("variance_scaling", {"scale": 1.0, "mode": "fan_avg", "distribution": "uniform", "in_axis": 0, "out_axis": 2, "batch_axis": 1}, 4, [5, 2, 3], "float32"),
    ("glorot_uniform", {}, 0, [10, 6], "float32"),
    ("glorot_normal", {}, 0, [10, 6], "float32"),
    ("xavier_uniform", {}, 5, [4, 4], "float32"),
    ("he_uniform", {}, 0, [10, 6], "float32"),
    ("he_normal", {}, 0, [10, 6], "float32"),
    ("kaiming_normal", {}, 6, [3, 5], "float32"),
    ("lecun_uniform", {}, 0, [10, 6], "float32"),
    ("lecun_normal", {}, 0, [10, 6], "float32"),
    ("glorot_uniform", {}, 7, [6, 3], "bfloat16"),
    ("he_normal", {}, 8, [6, 3], "float16"),
    ("normal", {}, 9, [5, 3], "float64"),
    ("glorot_normal", {}, 10, [5, 3], "float64"),
]


def run(initializers: object, random: object, builder: str, kwargs: dict | None, seed: int, shape: list, dtype: str) -> object:
    """The call a case stands for, with any implementation's ``initializers`` and ``random``."""
    key = random.PRNGKey(seed)
    if kwargs is None:  # zeros and ones are initializers themselves
        return getattr(initializers, builder)(key, tuple(shape), dtype)
    return getattr(initializers, builder)(**kwargs)(key, tuple(shape), dtype)


def main() -> None:
    records = []
    for builder, kwargs, seed, shape, dtype in CASES:
        jax.config.update("jax_enable_x64", dtype == "float64")
        out = run(jax.nn.initializers, jax.random, builder, kwargs, seed, shape, dtype)
        records.append({"builder": builder, "kwargs": kwargs, "seed": seed, "shape": shape,
                        "dtype": dtype, "x64": dtype == "float64", "value": encode(out)})
    jax.config.update("jax_enable_x64", False)
    out_path = HERE / "nn_initializers.json"
    out_path.write_text(json.dumps({"meta": {"jax_version": jax.__version__}, "cases": records}, indent=1) + "\n")
    print(f"wrote {len(records)} cases to {out_path}")


if __name__ == "__main__":
    main()
