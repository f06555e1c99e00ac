"""How the host types into a generic command, and its default timings."""

from wardian_core.provider_models import InputProfile

# Quiet time after the last output before the command counts as waiting for input.
DEFAULT_IDLE_QUIET_SECONDS = 1.5

INPUT_PROFILE = InputProfile(
    submit_key="\r",
    bracketed_paste=True,
    paste_threshold=200,
    settle_seconds=0.05,
    dialogs={},  # a command's own prompts are answered by typing, not by `send --approval`
    # A shell would run `[from p1]` as a command: what another agent sends is typed as given.
    sender_tag=False,
    # Ctrl-C: a terminal's interrupt, which stops the foreground command of a shell or a script.
    interrupt_key="\x03",
)
