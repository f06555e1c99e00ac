"""Wardian's provider conformance suite, on the installed `codex` entry point."""

from wardian_host.testing.conformance import ProviderConformance


class TestCodexConformance(ProviderConformance):
    provider = "codex"
