"""How Wardian types into Codex's TUI and answers its approval dialog."""

from wardian_core.provider_models import InputProfile

# Codex 0.169.0 drops a key that arrives within ~0.1 s of its approval dialog being drawn
# (0.3 s later always works). The parser therefore reports the dialog only after it has been
# on screen this long, so an approval answered as soon as `action_required` shows is not lost.
APPROVAL_SETTLE_SECONDS = 0.5

INPUT_PROFILE = InputProfile(
    submit_key="\r",
    bracketed_paste=True,
    paste_threshold=200,
    # The composer takes an Enter that arrives with a paste as a newline, not a submit.
    settle_seconds=0.3,
    approve_keys="y",  # "1. Yes, proceed (y)"
    reject_keys="\x1b",  # "3. No, and tell Codex what to do differently (esc)"
)
