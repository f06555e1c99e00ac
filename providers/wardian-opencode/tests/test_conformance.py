"""Wardian's provider conformance suite, on the installed `opencode` entry point."""

from wardian_core.provider.testing import ProviderConformance


class TestOpenCodeConformance(ProviderConformance):
    provider = "opencode"
