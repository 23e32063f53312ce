"""Record real JAX's random numbers for the cases in conformance/random_cases.py into
random_bits.json, beside this script. Run by hand, with the pinned JAX, from the repository root:

    python conformance/data/make_random_bits.py

The tests only read the file: the suite never imports JAX for it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the repository root, for `conformance`

import jax  # noqa: E402
import jax.random  # noqa: E402

from conformance.random_cases import CASES, encode  # noqa: E402


def main() -> None:
    records = {}
    for case in CASES:
        jax.config.update("jax_enable_x64", case.x64)
        records[case.name] = encode(case.fn(jax.random))
    jax.config.update("jax_enable_x64", False)
    meta = {
        "jax_version": jax.__version__,
        "jax_default_prng_impl": str(jax.config.jax_default_prng_impl),
        "jax_threefry_partitionable": bool(jax.config.jax_threefry_partitionable),
    }
    out = HERE / "random_bits.json"
    out.write_text(json.dumps({"meta": meta, "cases": records}, indent=1) + "\n")
    print(f"wrote {len(records)} cases to {out}")


if __name__ == "__main__":
    main()
