"""How the host types into Claude Code's TUI and answers its dialogs, and the settings it takes."""

from wardian_core.provider import DialogKeys, InputProfile, ProviderSetting

# The tool dialog lists "1. Yes" (preselected) first in every tested version; what follows
# differs: "3. No" (2.1.197), "3. Yes, and switch to auto mode", "4. No" (2.1.330). So a
# digit approves ("1", never a bare Enter on whatever is highlighted) and Esc rejects
# ("Esc to cancel": the turn is interrupted, in both versions).
# 2.1.330 ignores keys for 250 ms after a dialog is painted, and the PermissionRequest hook
# comes before the paint: the host lets every dialog settle this long.
DIALOG_SETTLE_SECONDS = 1.0
# The tool dialog's question, in both versions: the keys wait for it on screen (a loaded machine
# paints later than the settle after the hook), then the settle.
TOOL_QUESTION = "Do you want to proceed?"
TOOL_KEYS = DialogKeys(accept="1", reject="\x1b", settle_seconds=DIALOG_SETTLE_SECONDS, drawn=TOOL_QUESTION)
# The workspace trust dialog, numbered with Yes first (2.1.197): "1. Yes, I trust this
# folder", "2. No, exit". Esc cancels: Claude exits.
TRUST_KEYS = DialogKeys(accept="1", reject="\x1b", settle_seconds=DIALOG_SETTLE_SECONDS)
# The same dialog as a menu with "No, exit" first and preselected, no numbers (2.1.330):
# Down to "Yes, I trust this folder", then Enter.
TRUST_MENU_KEYS = DialogKeys(accept="\x1b[B\r", reject="\x1b", settle_seconds=DIALOG_SETTLE_SECONDS)

INPUT_PROFILE = InputProfile(
    # The TUI takes an Enter that arrives with the text as part of a paste (a newline); one
    # that comes in a read of its own, once the typed text is drawn, submits (2.1.197, 2.1.330).
    settle_seconds=0.3,
    submit_once_drawn=True,
    dialogs={"tool": TOOL_KEYS, "trust": TRUST_KEYS, "trust_menu": TRUST_MENU_KEYS},
    # A send is confirmed by its UserPromptSubmit hook (2.1.197);
    # the input box's row begins with "❯".
    turn_start_seconds=10,
    input_marker="❯",
    # 2.1.330 draws a long paste as `[Pasted text #1 +12 lines]`.
    paste_placeholder=r"\[Pasted text #\d+(?: \+\d+ lines)?\]",
    # "esc to interrupt" under a turn under way (2.1.197, 2.1.330).
    interrupt_key="\x1b",
)

PERMISSION_MODE = "permission_mode"
# `--permission-mode` values every tested version accepts (2.1.330 lists "manual" for
# "default" and still takes "default"). "default" asks before every tool that needs
# approval, so each such call surfaces as action_required; 2.1.330's own default, "auto",
# runs or blocks tools by its own classifier where the supervisor sees nothing.
PERMISSION_MODES = ["default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk"]
PERMISSION_SETTING = ProviderSetting(
    name=PERMISSION_MODE,
    choices=list(PERMISSION_MODES),
    default="default",
    description="Claude's --permission-mode; `default` surfaces every tool approval as action_required.",
)
SETTINGS = [PERMISSION_SETTING]


def permission_mode(settings: dict[str, object]) -> str:
    """The mode in force; the host puts the declared default in, a context made elsewhere may not."""
    mode = settings.get(PERMISSION_MODE)
    return mode if isinstance(mode, str) and mode in PERMISSION_MODES else str(PERMISSION_SETTING.default)
