"""Training a small convolutional network with grad and jit: the loss falls, as JAX's does.

Synthetic 8x8 images hold a bar, across or down, somewhere in the image, under noise; two
convolutions (the second with stride 2), a mean over the image and a dense layer learn to say which.
The layout is TensorFlow's (images NHWC, kernels HWIO); the update is one jitted function.

Run from the stage folder: ``../../.venv/bin/python -m examples.train_cnn``.
"""

import numpy as np

import didax
import didax.numpy as jnp
from didax import lax

LAYOUT = ("NHWC", "HWIO", "NHWC")


def images(n, rng):
    """n images with one bar each: label 0 across (a row), 1 down (a column)."""
    x = rng.normal(scale=0.3, size=(n, 8, 8, 1)).astype(np.float32)
    labels = rng.integers(0, 2, size=n)
    for i, (label, where) in enumerate(zip(labels, rng.integers(1, 7, size=n))):
        if label == 0:
            x[i, where, :, 0] += 1.0
        else:
            x[i, :, where, 0] += 1.0
    return x, labels.astype(np.int32)


def init(key):
    k1, k2, k3 = didax.random.split(key, 3)
    return {
        "conv1": didax.random.normal(k1, (3, 3, 1, 4)) / 3.0,
        "conv2": didax.random.normal(k2, (3, 3, 4, 8)) / 6.0,
        "dense": didax.random.normal(k3, (8, 2)) / np.sqrt(8),
        "bias": jnp.zeros(2),
    }


def predict(params, x):
    x = didax.nn.relu(lax.conv_general_dilated(x, params["conv1"], (1, 1), "SAME", dimension_numbers=LAYOUT))
    x = didax.nn.relu(lax.conv_general_dilated(x, params["conv2"], (2, 2), "SAME", dimension_numbers=LAYOUT))
    return jnp.mean(x, axis=(1, 2)) @ params["dense"] + params["bias"]


def loss(params, x, labels):
    logp = didax.nn.log_softmax(predict(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


@didax.jit
def step(params, x, labels):
    value, grads = didax.value_and_grad(loss)(params, x, labels)
    return value, didax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, grads)


def main() -> None:
    x, labels = images(128, np.random.default_rng(0))
    params = init(didax.random.key(0))
    for i in range(201):
        value, params = step(params, x, labels)
        if i % 40 == 0:
            print(f"step {i:3d}: loss {float(value):.4f}")
    accuracy = float(jnp.mean(jnp.argmax(predict(params, x), axis=1) == labels))
    print(f"training accuracy: {accuracy:.3f}")


if __name__ == "__main__":
    main()
