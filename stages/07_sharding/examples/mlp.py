"""Stage 01, an MLP: a small program written for JAX that runs unchanged on didax. Swap the two
imports below for ``import jax`` and ``import jax.numpy as jnp`` and it prints the same numbers.

Run from the stage folder: python -m examples.mlp
"""

import didax as jax
import didax.numpy as jnp


def init_params(key, sizes):
    """One {'w', 'b'} dict per layer: Glorot-uniform weights, zero biases."""
    keys = jax.random.split(key, len(sizes) - 1)
    glorot = jax.nn.initializers.glorot_uniform()
    return [
        {"w": glorot(k, (m, n), jnp.float32), "b": jax.nn.initializers.zeros(k, (n,), jnp.float32)}
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    ]


def forward(params, x):
    """GELU on the hidden layers, log-probabilities out."""
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    logits = x @ params[-1]["w"] + params[-1]["b"]
    return jax.nn.log_softmax(logits)


def show(values):
    return "[" + ", ".join(f"{float(v):.4f}" for v in jnp.ravel(values)) + "]"


key = jax.random.PRNGKey(0)
init_key, data_key = jax.random.split(key)
params = init_params(init_key, [4, 8, 8, 3])
x = jax.random.uniform(data_key, (2, 4), jnp.float32, -1.0, 1.0)
labels = jax.nn.one_hot(jnp.array([0, 2]), 3)

print("Parameter shapes, read from the pytree of parameters with tree_map:")
print(jax.tree_util.tree_map(lambda p: p.shape, params))

print("The first layer's weights in row 0 (jax.random with the same key gives JAX's numbers):")
print(show(params[0]["w"][0]))

log_probs = forward(params, x)
print("Class probabilities for two inputs (softmax of the output; each row sums to 1):")
print(show(jnp.exp(log_probs)))

print("Cross-entropy loss against one-hot labels [0, 2]:")
loss = -jnp.mean(jnp.sum(labels * log_probs, axis=-1))
print(f"{float(loss):.4f}")

print("Halving every parameter with tree_map, then the loss again:")
halved = jax.tree_util.tree_map(lambda p: 0.5 * p, params)
print(f"{float(-jnp.mean(jnp.sum(labels * forward(halved, x), axis=-1))):.4f}")

print("Setting the last layer's bias for class 2 with .at[2].set(1.0) (a new array; params unchanged):")
last = dict(params[-1], b=params[-1]["b"].at[2].set(1.0))
print(show(last["b"]), show(params[-1]["b"]))
print(show(jnp.exp(forward(params[:-1] + [last], x))))
