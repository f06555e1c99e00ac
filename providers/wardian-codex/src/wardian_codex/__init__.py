"""A Wardian provider for the OpenAI Codex CLI (`codex`)."""
