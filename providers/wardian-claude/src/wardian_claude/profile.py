"""How the host types into Claude Code's TUI."""

from wardian_core.provider_models import InputProfile

# The approval dialog (2.1.197) lists "1. Yes", "2. Yes, and always allow …", "3. No" with
# "Yes" preselected: a digit picks its row at once, so approving presses "1" and rejecting "3",
# never a bare Enter that would approve whatever is highlighted.
APPROVE_KEYS = "1"
REJECT_KEYS = "3"

INPUT_PROFILE = InputProfile(
    submit_key="\r",
    bracketed_paste=True,
    paste_threshold=200,
    # The TUI takes an Enter that arrives with the text as part of a paste (a newline).
    settle_seconds=0.3,
    approve_keys=APPROVE_KEYS,
    reject_keys=REJECT_KEYS,
)
