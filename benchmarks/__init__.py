"""didax's benchmarks: didax, real JAX and NumPy timed side by side in one process (see README.md)."""
