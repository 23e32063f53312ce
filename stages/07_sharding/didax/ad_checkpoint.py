"""``didax.ad_checkpoint``, as ``jax.ad_checkpoint``: names for checkpointed values, the policies
that read them, and what reverse mode saves. Stage 06 introduced it; the code is in checkpoint.py."""

from .checkpoint import checkpoint_name, checkpoint_policies, print_saved_residuals

__all__ = ["checkpoint_name", "checkpoint_policies", "print_saved_residuals"]


def __getattr__(name: str) -> object:
    """JAX 0.10.2 removed ``jax.ad_checkpoint.checkpoint`` and ``remat``; the error says where they are."""
    if name in ("checkpoint", "remat"):
        raise AttributeError(f"didax.ad_checkpoint.{name} is not here, as jax.ad_checkpoint.{name} was removed in "
                             f"JAX v0.10.0; use didax.{name} instead.")  # fmt: skip
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
