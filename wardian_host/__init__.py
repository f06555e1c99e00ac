"""The Wardian host: plugin manager, PTY supervisor, control server, and the CLI."""
