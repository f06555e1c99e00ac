"""Wardian's provider conformance suite, on the installed `opencode` entry point."""

from wardian_host.testing.conformance import ProviderConformance


class TestOpenCodeConformance(ProviderConformance):
    provider = "opencode"
