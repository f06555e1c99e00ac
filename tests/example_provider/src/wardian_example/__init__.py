"""A Wardian provider for `wardian-example-cli`."""
