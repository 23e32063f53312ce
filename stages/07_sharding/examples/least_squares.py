"""A least-squares fit three ways: jnp.linalg.lstsq (the SVD), the normal equations (a Cholesky
solve), and gradient descent on the squared error with grad and jit; the three agree.

Noisy samples of a cubic are fitted by a polynomial of degree 3: the design matrix holds the
powers 1, t, t^2, t^3 of the sample points, and the coefficients minimize |A c - y|^2.

Run from the stage folder: ``../../.venv/bin/python -m examples.least_squares``.
"""

import numpy as np

import didax
import didax.numpy as jnp
from didax import lax

TRUE_COEFFICIENTS = np.array([1.0, -2.0, 0.5, 3.0], np.float32)


def samples(n, rng):
    t = np.linspace(-1, 1, n).astype(np.float32)
    design = np.stack([t**k for k in range(4)], axis=1)
    y = design @ TRUE_COEFFICIENTS + rng.normal(scale=0.1, size=n).astype(np.float32)
    return design, y


@didax.jit
def normal_equations(design, y):
    """(A^T A) c = A^T y, A^T A positive definite: its Cholesky factor L, then L z = A^T y and
    L^T c = z, two triangular solves."""
    factor = jnp.linalg.cholesky(design.T @ design)
    z = lax.linalg.triangular_solve(factor, design.T @ y, left_side=True, lower=True)
    return lax.linalg.triangular_solve(factor, z, left_side=True, lower=True, transpose_a=True)


def squared_error(coefficients, design, y):
    return jnp.mean((design @ coefficients - y) ** 2)


@didax.jit
def descend(coefficients, design, y):
    return coefficients - 0.3 * didax.grad(squared_error)(coefficients, design, y)


def main():
    design, y = samples(50, np.random.default_rng(0))
    x, residuals, rank, singular_values = jnp.linalg.lstsq(design, y)
    print("lstsq coefficients:", np.array2string(np.asarray(x), precision=4))
    print(f"lstsq residual: {float(residuals[0]):.4f}, rank {int(rank)}")
    print("singular values:", np.array2string(np.asarray(singular_values), precision=4))
    print("normal equations:  ", np.array2string(np.asarray(normal_equations(design, y)), precision=4))
    coefficients = jnp.zeros(4)
    for _ in range(3000):
        coefficients = descend(coefficients, design, y)
    print("gradient descent:  ", np.array2string(np.asarray(coefficients), precision=4))
    print(f"squared error: {float(squared_error(x, design, y)):.5f} (lstsq), "
          f"{float(squared_error(coefficients, design, y)):.5f} (descent)")


if __name__ == "__main__":
    main()
