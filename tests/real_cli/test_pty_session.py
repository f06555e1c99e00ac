"""The harness the real-CLI tests read TUIs with: what `PtySession.expect` counts as shown (no CLI)."""

from __future__ import annotations

import pytest
from real_cli_fixtures import PtySession

# "REPLY tui", a spinner's cells further right, then the line's last character placed after
# "tui" by a cursor move: as OpenCode 1.18 drew "MOCK-REPLY tool-done tui2" once on a loaded machine.
DRAWN_IN_PIECES = r"printf '\033[5;1HREPLY tui\033[5;20H■■■\033[5;10H2'; read -r _"


def _session(tmp_path, script: str) -> PtySession:
    return PtySession.spawn(["bash", "-c", script], tmp_path, {"PATH": "/usr/bin:/bin", "TERM": "xterm"})


def test_a_line_drawn_in_pieces_counts_as_it_shows_on_screen(tmp_path) -> None:
    session = _session(tmp_path, DRAWN_IN_PIECES)
    try:
        assert session.expect("■■■") == "■■■"  # all of it drawn
        assert "REPLYtui2" not in "".join(session.text().split()), "the stream alone never shows it"
        assert session.expect("REPLY tui2", timeout=5) == "REPLY tui2"
    finally:
        session.process.terminate(force=True)


def test_what_was_drawn_before_start_does_not_count(tmp_path) -> None:
    session = _session(tmp_path, DRAWN_IN_PIECES)
    try:
        session.expect("■■■")
        with pytest.raises(AssertionError, match="none of"):
            session.expect("REPLY tui2", timeout=0.5, start=len(session.raw))
    finally:
        session.process.terminate(force=True)
