"""Wardian's conformance suite, run on the installed `claude` entry point."""

from wardian_host.testing.conformance import ProviderConformance


class TestConformance(ProviderConformance):
    provider = "claude"
