"""Deliberately broken implementations: real jax with one thing wrong each (see ../test_meta.py)."""
