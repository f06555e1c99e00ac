"""How Wardian types into OpenCode's TUI and answers its permission panel (checked on 1.18.33)."""

from wardian_core.provider import DialogKeys, InputProfile, ProviderSetting

# The permission panel: "Allow once" (selected), "Allow always", "Reject".
PERMISSION_DIALOG = "permission"
# The server's permission.asked comes before the panel is drawn, and the panel draws its title
# before its choices: the keys wait for the first choice on screen, then the settle.
PANEL_CHOICES = "Allow once"
PERMISSION_KEYS = DialogKeys(accept="\r", reject="\x1b", settle_seconds=0.3, drawn=PANEL_CHOICES)

INPUT_PROFILE = InputProfile(
    settle_seconds=0.3,
    dialogs={PERMISSION_DIALOG: PERMISSION_KEYS},
    # A send is confirmed by its session turning busy on the event stream (1.18.33), which
    # the first prompt of a session takes longest to reach (it creates the session: 5 s seen on
    # a loaded machine); the input box's row begins with "┃".
    turn_start_seconds=20,
    input_marker="┃",
    # 1.18.33 draws a long paste as `[Pasted ~12 lines]`.
    paste_placeholder=r"\[Pasted ~\d+ lines\]",
    # Its `session_interrupt` keybind, Esc: the first press under a busy session shows "esc again
    # to interrupt", the second within 5 s aborts the turn (1.18.33); two in one write read as
    # Alt+Esc, so each goes alone. At rest the binding is off and Esc does nothing.
    interrupt_key="\x1b",
    interrupt_presses=2,
)

PERMISSIONS: list[str | int | float | bool] = ["ask", "allow", "deny"]
SETTINGS = [
    ProviderSetting(
        name="shell_permission",
        choices=PERMISSIONS,
        description="OpenCode's `permission.bash` for this agent (default: the user's configuration). `ask` "
        "makes every shell command wait for `send --approval`; `opencode run` (headless) rejects what asks.",
    ),
    ProviderSetting(
        name="auto_approve",
        type="boolean",
        default=False,
        description="`--auto`: OpenCode approves every permission not explicitly denied, TUI and headless alike.",
    ),
]
