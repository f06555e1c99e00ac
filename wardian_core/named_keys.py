"""The keys a provider names where it cannot type text (`LimitResume.keys`): leaving a menu
its CLI opened, moving in it. Each is what a terminal sends for that key; `enter` is the
provider's own submit key (`InputProfile.submit_key`)."""

NAMED_KEYS: dict[str, str] = {
    "escape": "\x1b",
    "enter": "\r",
    "tab": "\t",
    "space": " ",
    "backspace": "\x7f",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "ctrl-c": "\x03",
    **{str(digit): str(digit) for digit in range(10)},
}


def key_bytes(name: str, submit_key: str) -> bytes:
    """What is written to the terminal for the key `name` (one of NAMED_KEYS)."""
    return (submit_key if name == "enter" else NAMED_KEYS[name]).encode()
