"""Pytest helpers shipped with Wardian for its own suites and provider packages' suites."""
