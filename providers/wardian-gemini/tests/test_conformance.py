"""Wardian's provider conformance suite, on the installed `gemini` entry point."""

from wardian_core.provider.testing import ProviderConformance


class TestGeminiConformance(ProviderConformance):
    provider = "gemini"
