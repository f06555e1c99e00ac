"""A Wardian provider for Claude Code (`claude`)."""
