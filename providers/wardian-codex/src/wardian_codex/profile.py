"""How Wardian types into Codex's TUI and answers its dialogs."""

from wardian_core.provider import DialogKeys, InputProfile

# Codex 0.169.0 drops a key that arrives within ~0.1 s of its approval dialog being drawn
# (0.3 s later always works). The parser therefore reports the dialog only after it has been
# on screen this long, so an approval answered as soon as `action_required` shows is not lost.
APPROVAL_SETTLE_SECONDS = 0.5

# Codex 0.169 draws its chat view with `? for shortcuts` before it has read the folder's trust,
# and its trust question 0.4-1.1 s later (measured); it says a session is ready with its
# terminal state signal instead. A status line standing this long without it counts alone
# (a version without the signal), once Codex started its thread: it does so only after the
# folder's trust is settled, and under load the question came over 3 s late. A question wins.
READY_WITHOUT_SIGNAL_SECONDS = 3.0

# Esc on the trust dialog (0.169.0) draws the chat view with its status line for ~50 ms
# before the Agent command center replaces it: the answer is read from a screen this old.
TRUST_SETTLE_SECONDS = 0.5

# The command dialog (0.169.0): "1. Yes, proceed (y)", "2. Yes, and don't ask again … (p)",
# "3. No, and tell Codex what to do differently (esc)".
EXEC_DIALOG = "exec"
EXEC_KEYS = DialogKeys(accept="y", reject="\x1b")
# The trust dialog (0.169.0): "1. Trust and continue" (preselected), "2. Back to Agent Command
# Center", "enter continue · esc back". It takes neither `y` nor `1`, only Enter; Esc (like
# `2`) leaves it for Codex's Agent command center, where the workspace is not worked in.
TRUST_DIALOG = "trust"
TRUST_KEYS = DialogKeys(accept="\r", reject="\x1b")

INPUT_PROFILE = InputProfile(
    # The composer takes an Enter that arrives with a paste as a newline, not a submit.
    settle_seconds=0.3,
    dialogs={EXEC_DIALOG: EXEC_KEYS, TRUST_DIALOG: TRUST_KEYS},
    # A send is confirmed by its UserPromptSubmit hook or the rollout's task_started (0.169.0);
    # the input box's row begins with "›".
    turn_start_seconds=10,
    input_marker="›",
    # 0.169.0 draws a long paste as `[Pasted Content 1234 chars]`.
    paste_placeholder=r"\[Pasted Content \d+ chars\]",
    # "Working (0s • esc to interrupt)" under a turn under way: Esc ends it, its rollout says
    # `turn_aborted` (0.169.0, 0.171.0). In an empty composer it only shows "esc again to edit
    # previous message"; a dialog (no turn runs then) takes it as its refusal.
    interrupt_key="\x1b",
)
