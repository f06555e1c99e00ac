"""The parser kit providers share: what a terminal shows, decoded from the PTY stream.

Kept import-free: the host's terminal part needs only the default size.
"""

# The size every agent's terminal starts with; a client's resize changes it.
DEFAULT_ROWS = 40
DEFAULT_COLS = 120
