"""Conformance suite for didax and any other implementation of the JAX API (see README.md)."""
