"""Training a small MLP with grad and jit: the loss falls, each step compiled once.

A two-layer network learns y = sin(3x) on 256 points by plain gradient descent; the whole update
(forward, backward by reverse mode, and the step) is one jitted function.

Run from the stage folder: ``../../.venv/bin/python -m examples.train_mlp``.
"""

import numpy as np

import didax
import didax.numpy as jnp


def init(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, w_key = didax.random.split(key)
        params.append((didax.random.normal(w_key, (n_in, n_out)) / np.sqrt(n_in), jnp.zeros(n_out)))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


@didax.jit
def step(params, x, y):
    value, grads = didax.value_and_grad(loss)(params, x, y)
    return value, [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)]


def main() -> None:
    x = np.linspace(-1, 1, 256, dtype=np.float32)[:, None]
    y = np.sin(3 * x)
    params = init(didax.random.key(0), [1, 32, 32, 1])
    for i in range(501):
        value, params = step(params, x, y)
        if i % 100 == 0:
            print(f"step {i:3d}: loss {float(value):.5f}")


if __name__ == "__main__":
    main()
