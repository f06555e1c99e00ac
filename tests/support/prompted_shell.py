"""A generic agent's argv: a bash script whose "> " prompt tells the host each turn's end."""


def prompted_bash(script: str) -> list[str]:
    """`agent spawn` arguments running `script` in a bare bash, idle whenever it prints "> "."""
    return ["--provider-setting", "prompt_pattern=^> $", "--", "bash", "--norc", "--noprofile", "-c", script]
