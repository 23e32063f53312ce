"""Stage 07, data parallelism: an MLP trained on 8 CPU devices with pmap and with shard_map, step for step as on one.

Each device takes an eighth of every batch and computes the loss and gradient of its part;
``lax.pmean`` averages them over the devices, so every device takes the same step, and that step is
the one a single device takes on the whole batch (the mean of equal-sized parts' means is the
whole batch's mean). The three runs print their losses side by side.

Run from the stage folder: ``../../.venv/bin/python -m examples.data_parallel``.
"""

from functools import partial

import numpy as np

import didax

didax.config.update("jax_num_cpu_devices", 8)  # before anything runs: the CPU then has 8 devices

import didax.numpy as jnp  # noqa: E402
from didax import lax  # noqa: E402
from didax.sharding import PartitionSpec as P  # noqa: E402

N = 8  # devices


def init(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, w_key = didax.random.split(key)
        params.append((didax.random.normal(w_key, (n_in, n_out)) / np.sqrt(n_in), jnp.zeros(n_out)))
    return params


def loss(params, x, y):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return jnp.mean((x @ w + b - y) ** 2)


def sgd(params, grads):
    return didax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


@didax.jit
def step_one_device(params, x, y):
    value, grads = didax.value_and_grad(loss)(params, x, y)
    return value, sgd(params, grads)


@partial(didax.pmap, axis_name="batch")
def step_pmap(params, x, y):  # params: one copy per device (a leading axis of N); x, y: N slices
    value, grads = didax.value_and_grad(loss)(params, x, y)
    value, grads = lax.pmean((value, grads), "batch")
    return value, sgd(params, grads)


mesh = didax.make_mesh((N,), ("batch",))


# check_vma=False: the gradient of each device's part is its own (not yet summed) until pmean
# sums it, as under pmap. (Under JAX's default check, the chapter explains, it comes out summed.)
@didax.jit
@partial(didax.shard_map, mesh=mesh, in_specs=(P(), P("batch"), P("batch")), out_specs=(P(), P()), check_vma=False)
def step_shard_map(params, x, y):  # params: whole on every device; x, y: a block of rows each
    value, grads = didax.value_and_grad(loss)(params, x, y)
    value, grads = lax.pmean((value, grads), "batch")
    return value, sgd(params, grads)


def main() -> None:
    x = np.linspace(-1, 1, 256, dtype=np.float32)[:, None]
    y = np.sin(3 * x)
    params = init(didax.random.key(0), [1, 32, 32, 1])
    one, sharded = params, params
    copies = didax.tree.map(lambda p: jnp.stack([p] * N), params)  # pmap's: one per device
    x_slices, y_slices = x.reshape(N, -1, 1), y.reshape(N, -1, 1)
    print(f"{didax.device_count()} devices; each takes {len(x) // N} of the {len(x)} points")
    # shard_map's rows go to the devices first (JAX insists where a mesh's axes are Explicit, as
    # make_mesh makes them; didax would also move them inside the call).
    x_rows, y_rows = (didax.device_put(v, didax.sharding.NamedSharding(mesh, P("batch"))) for v in (x, y))
    for i in range(201):
        loss_one, one = step_one_device(one, x, y)
        loss_pmap, copies = step_pmap(copies, x_slices, y_slices)
        loss_shard, sharded = step_shard_map(sharded, x_rows, y_rows)
        if i % 50 == 0:
            print(f"step {i:3d}: loss on one device {float(loss_one):.6f}, pmap {float(loss_pmap[0]):.6f}, "
                  f"shard_map {float(loss_shard):.6f}")
    gap = max(float(jnp.abs(a - b[0]).max()) for a, b in zip(didax.tree.leaves(one), didax.tree.leaves(copies)))
    gap2 = max(float(jnp.abs(a - b).max()) for a, b in zip(didax.tree.leaves(one), didax.tree.leaves(sharded)))
    print(f"largest parameter difference from one device after 201 steps: pmap {gap:.1e}, shard_map {gap2:.1e}")
    print("where shard_map's weights live:", sharded[0][0].sharding)


if __name__ == "__main__":
    main()
