"""How Wardian types into Gemini CLI's TUI and answers its dialogs (checked on 0.61.0)."""

from wardian_core.provider import DialogKeys, InputProfile, ProviderSetting

# The tool box: "● 1. Allow once" (preselected), "2. Allow for this session",
# "3. No, suggest changes (esc)". Enter takes the preselected answer; Esc refuses.
TOOL_DIALOG = "tool"
# The ToolPermission hook runs before the box is drawn (on a loaded machine over 0.5 s before):
# the keys wait for its first choice on screen, then the settle.
TOOL_BOX = "Allow once"
TOOL_KEYS = DialogKeys(accept="\r", reject="\x1b", settle_seconds=0.5, drawn=TOOL_BOX)
# The folder-trust dialog of `--include-directories`: "● 1. Yes" (preselected), "2. Yes, and
# remember the directories as trusted", "3. No". Enter adds the folders for this session;
# Esc cancels ("Operation cancelled. The following directories were not added").
TRUST_DIALOG = "trust"
TRUST_KEYS = DialogKeys(accept="\r", reject="\x1b")
# The workspace's own question, on a folder with no trust decision: "● 1. Trust folder (<name>)",
# "2. Trust parent folder (<parent>)", "3. Don't trust"; a digit picks its line at once. Esc is
# no refusal here: it exits Gemini ("A folder trust level must be selected to continue").
WORKSPACE_TRUST_DIALOG = "workspace_trust"
WORKSPACE_TRUST_KEYS = DialogKeys(accept="1", reject="3", settle_seconds=0.5)

INPUT_PROFILE = InputProfile(
    settle_seconds=0.3,
    dialogs={TOOL_DIALOG: TOOL_KEYS, TRUST_DIALOG: TRUST_KEYS, WORKSPACE_TRUST_DIALOG: WORKSPACE_TRUST_KEYS},
    # A send is confirmed by its BeforeAgent hook (0.61.0);
    # the input box's row begins with ">".
    turn_start_seconds=10,
    input_marker=">",
    # 0.61.0 draws a long paste as `[Pasted Text: 532 chars]` (or `N lines`), its own
    # PASTED_TEXT_PLACEHOLDER_REGEX.
    paste_placeholder=r"\[Pasted Text: \d+ (?:lines|chars)(?: #\d+)?\]",
    # "(esc to cancel, 3s)" under a turn under way: Esc cancels it (0.61.0). No hook tells (no
    # AfterAgent): the screen's "Request cancelled." ends the turn (tui.py).
    interrupt_key="\x1b",
)

APPROVAL_MODES: list[str | int | float | bool] = ["default", "auto_edit", "yolo", "plan"]
SETTINGS = [
    ProviderSetting(
        name="approval_mode",
        choices=APPROVAL_MODES,
        default="default",
        description="Gemini `--approval-mode`: `default` asks before every tool that needs approval, so Wardian "
        "sees it as `action_required`.",
    ),
]
