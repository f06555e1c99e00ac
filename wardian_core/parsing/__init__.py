"""The parser kit providers share: what a terminal shows, decoded from the PTY stream."""
