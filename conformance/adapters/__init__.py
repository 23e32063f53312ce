"""Implementations nobody here wrote, behind thin adapters, so that the matrix has rows to compare:
`numpy_adapter` is NumPy itself with JAX's module layout."""
