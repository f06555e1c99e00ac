"""Wardian's provider conformance suite, on the installed `gemini` entry point."""

from wardian_host.testing.conformance import ProviderConformance


class TestGeminiConformance(ProviderConformance):
    provider = "gemini"
