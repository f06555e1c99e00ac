"""How the host types into Claude Code's TUI and answers its dialogs."""

from wardian_core.provider_models import DialogKeys, InputProfile, TestedVersions

TESTED_VERSIONS = TestedVersions(oldest="2.1.197", newest="2.1.197")

# The approval dialog (2.1.197) lists "1. Yes", "2. Yes, and always allow …", "3. No" with
# "Yes" preselected: a digit picks its row at once, so approving presses "1" and rejecting "3",
# never a bare Enter that would approve whatever is highlighted.
TOOL_KEYS = DialogKeys(accept="1", reject="3")
# The first-run trust dialog: "1. Yes, I trust this folder" (preselected), "2. No, exit".
TRUST_KEYS = DialogKeys(accept="1", reject="2")

INPUT_PROFILE = InputProfile(
    submit_key="\r",
    bracketed_paste=True,
    paste_threshold=200,
    # The TUI takes an Enter that arrives with the text as part of a paste (a newline).
    settle_seconds=0.3,
    dialogs={"tool": TOOL_KEYS, "trust": TRUST_KEYS},
    sender_tag=True,
)
