"""Meta-tests: the conformance suite, run against deliberately broken implementations, must fail."""
