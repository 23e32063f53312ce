"""Each stage's performance targets, held against the committed results in `benchmarks/results/`.

A target is a bound on one figure of one suite's results, written down once, here. The course
site shows every target beside the figure it is about, marked met or missed (the performance page
all of them, each chapter its own), so no page can state a target, or a result, that the data does
not. Figures come from the runner's JSON: each case's best time per implementation.

Three kinds of figure:

- `ratio`: didax's time over JAX's (or NumPy's), the largest over the target's cases;
- `per_equation`: the same per equation of each library's own jaxpr, the largest over the cases;
- `flat`: didax's time per operation on the longest chain over that on the shortest. A cost that
  grows linearly with the program stays near 1; `FLAT` is the bound that counts as flat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
FLAT = 1.25  # per-operation cost may rise by a quarter from the shortest chain to the longest


@dataclass(frozen=True)
class Target:
    stage: str
    suite: str
    what: str  # what is measured, as a reader would say it
    kind: str  # "ratio", "per_equation" or "flat"
    cases: tuple[str, ...]  # the cases' names; for "flat", the chains' common prefix
    bound: float
    against: str = "jax"

    def bound_text(self) -> str:
        if self.kind == "flat":
            return f"per-operation cost flat (longest / shortest ≤ {self.bound:g})"
        per = " per equation" if self.kind == "per_equation" else ""
        return f"didax/{'JAX' if self.against == 'jax' else 'NumPy'}{per} ≤ {self.bound:g}"

    def measure(self, data: dict[str, Any]) -> float | None:
        """The figure in `data` (a results file) that this target bounds; None if it lacks the cases."""
        cases = {c["case"]: c for c in data.get("cases", [])}
        if self.kind == "flat":
            chains = sorted((c for name, c in cases.items() if name.startswith(self.cases[0])), key=lambda c: c["ops"])
            if len(chains) < 2 or not all(_us(c, "didax") for c in chains):
                return None
            first, last = chains[0], chains[-1]
            return (_us(last, "didax") / last["ops"]) / (_us(first, "didax") / first["ops"])
        figures = []
        for name in self.cases:
            case = cases.get(name)
            if case is None or not _us(case, "didax") or not _us(case, self.against):
                return None
            ratio = _us(case, "didax") / _us(case, self.against)
            if self.kind == "per_equation":  # each library over its own count of equations
                eqns = case["equations"]
                ratio *= eqns[self.against]["top_level"] / eqns["didax"]["top_level"]
            figures.append(ratio)
        return max(figures)


def _us(case: dict[str, Any], impl: str) -> float | None:
    timing = case.get(impl)
    return timing["min_us"] if isinstance(timing, dict) else None


EAGER = ("jnp.sin(x)", "x + y", "x + 2.0", "jnp.sum(x)", "x.sum()")
PYTREES = tuple(f"{op} {tree} ×{n}" for op in ("flatten", "unflatten")
                for tree, sizes in (("dict", (10, 100, 1000)), ("dict of [x, (x, x)]", (12, 102, 1002)),
                                    ("list of (w, b)", (10, 100, 1000)), ("namedtuples", (10, 100, 1000)),
                                    ("(x, None)", (10, 100, 1000)), ("register_pytree_node", (10, 100, 1000)),
                                    ("register_dataclass", (10, 100, 1000)))
                for n in sizes)  # fmt: skip

TARGETS = (
    Target("01_eval", "eager", "each eager operation on an (8,) array", "ratio", EAGER, 1.0),
    Target("01_eval", "eager", "`tree_flatten` of 100 leaves", "ratio", ("tree_flatten",), 3.0),
    Target("01_eval", "eager", "chains of 10 to 1,000 eager operations", "flat", ("chain ×",), FLAT),
    Target("02_jvp", "jvp", "the `jvp` chain of 1,000 operations", "ratio", ("jvp chain ×1000",), 0.5),
    Target("02_jvp", "jvp", "`jvp` chains of 100 to 5,000 operations", "flat", ("jvp chain ×",), FLAT),
    Target("03_vmap", "vmap", "`vmap` of `tanh(w @ x)` over 1,000 pairs", "ratio", ("vmap tanh(w @ x)",), 1.0),
    Target("03_vmap", "vmap", "`vmap` of `tanh(w @ x)` against the batched NumPy expression", "ratio",
           ("vmap tanh(w @ x)",), 1.5, against="numpy"),
    Target("03_vmap", "vmap", "`vmap` chains of 100 to 5,000 operations", "flat", ("vmap chain ×",), FLAT),
    Target("04_jaxpr", "jaxpr", "`make_jaxpr` of chains of 100 to 5,000 operations", "per_equation",
           tuple(f"make_jaxpr chain ×{n}" for n in (100, 300, 1000, 3000, 5000)), 0.25),
    Target("04_jaxpr", "jaxpr", "`make_jaxpr` chains of 100 to 5,000 operations", "flat", ("make_jaxpr chain ×",), FLAT),
    Target("05_jit", "jit", "dispatch of a jitted function, 1 input and 1 output", "ratio", ("dispatch 1→1",), 1.3),
    Target("05_jit", "jit", "dispatch, 10 inputs and 10 outputs", "ratio", ("dispatch 10→10",), 1.0),
    Target("05_jit", "jit", "dispatch of a list of (w, b) pairs, as `params = step(params)`", "ratio",
           ("params = step(params) ×10",), 1.5),
    Target("05_jit", "jit", "the MLP forward pass, 784-512-512-10", "ratio", ("MLP 784-512-512-10",), 1.05),
    Target("05_jit", "jit", "a CNN's forward pass (convolution, max pool, convolution), as issue 29 asks", "ratio",
           ("CNN conv-pool-conv",), 1.1),
    Target("05_jit", "jit", "a Cholesky solve of 64x64 to 1024x1024 matrices, as issue 29 asks", "ratio",
           tuple(f"Cholesky solve {n}×{n}" for n in (64, 256, 1024)), 1.1),
    Target("05_jit", "jit", "`jnp.linalg.solve` (LU) of 64x64 to 1024x1024 matrices, as issue 29 asks", "ratio",
           tuple(f"LU solve {n}×{n}" for n in (64, 256, 1024)), 1.1),
    Target("05_jit", "jit", "the first call of a 1,000-operation function", "ratio", ("first call ×1000",), 1.0),
    Target("05_jit", "jit", "lowering chains of 100 to 5,000 operations", "flat", ("lower chain ×",), FLAT),
    Target("05_jit", "pytrees", "`tree_flatten` and `tree_unflatten` of 10 to 1,000 leaves, every kind of node",
           "ratio", PYTREES, 3.0),
    Target("06_vjp", "vjp", "a compiled training step of the MLP 784-512-512-10", "ratio",
           ("train step 784-512-512-10",), 1.05),
    Target("06_vjp", "vjp", "the same CNN's backward pass (its gradient in the kernels)", "ratio",
           ("CNN conv-pool-conv backward",), 1.1),
    Target("06_vjp", "vjp", "eager `grad` of a chain of 1,000 operations", "ratio", ("grad chain ×1000",), 0.1),
    Target("06_vjp", "vjp", "`linearize` of chains of 100 to 5,000 operations", "flat", ("linearize chain ×",), FLAT),
    Target("06_vjp", "vjp", "the backward pass of chains of 100 to 5,000 operations", "flat", ("transpose chain ×",),
           FLAT),
    Target("07_sharding", "sharding", "`psum` on 8 CPU devices under `pmap` and under `shard_map`", "ratio",
           ("psum pmap 8", "psum shard_map 8"), 1.2),
    Target("07_sharding", "sharding", "a data-parallel training step of the MLP 784-512-512-10 on 8 devices", "ratio",
           ("data-parallel step 8",), 1.2),
)


def held(stage: str | None = None, results: Path = RESULTS) -> list[tuple[Target, float | None, Path]]:
    """Each target (of `stage`, or all) with its figure from `results/<stage>-<suite>.json` (None
    where that file or its cases are missing) and the file it was read from."""
    out = []
    for target in TARGETS:
        if stage not in (None, target.stage):
            continue
        path = results / f"{target.stage}-{target.suite}.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        out.append((target, target.measure(data), path))
    return out
