"""Notices: when an agent needs a person, word to the web view, the sinks named in
settings.toml (through Apprise) and observer plugins, once per occurrence."""
