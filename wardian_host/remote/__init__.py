"""Agents on other machines: each machine runs its own host, and `wardian` reaches it over the
user's own `ssh` (docs/remote.md). Imported only when a command names a remote."""
