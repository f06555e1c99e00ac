"""Wardian's conformance suite, run on the installed `claude` entry point."""

from wardian_core.provider.testing import ProviderConformance


class TestConformance(ProviderConformance):
    provider = "claude"
