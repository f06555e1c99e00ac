"""The parser kit providers share: what a terminal shows, decoded from the PTY stream.

Kept import-free: the host's terminal part needs only the default size.
"""

# The size every agent's terminal starts with; a client's resize changes it.
DEFAULT_ROWS = 40
DEFAULT_COLS = 120
# The most rows or columns a terminal may be given, by a request, an attach stream or a
# resize: the screen model's work grows with its area, and a 10000x10000 terminal made
# one screen look hold the host's loop for 45 s.
MAX_TERMINAL_SIDE = 1000


def terminal_side(value: int) -> int:
    """`value` rows or columns brought within what a terminal may have."""
    return min(max(value, 1), MAX_TERMINAL_SIDE)
