"""Wardian's provider conformance suite, on the installed `codex` entry point."""

from wardian_core.provider.testing import ProviderConformance


class TestCodexConformance(ProviderConformance):
    provider = "codex"
