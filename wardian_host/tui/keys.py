"""The dashboard's keys: one table, read by the app's bindings and by the `?` screen."""

from typing import NamedTuple

from rich.text import Text


class Key(NamedTuple):
    key: str  # Textual's key name
    action: str  # the app's action_<name>
    label: str  # the footer's word
    help: str  # the `?` screen's line
    footer: bool = True


KEYS = (
    Key("enter", "attach", "attach", "attach to the agent's terminal; ctrl-\\ d detaches, back here"),
    Key("s", "send", "send", "type a line into the agent, as `wardian send` does"),
    Key("a", "approve", "approve", "accept the dialog the agent waits at (queue entry or agent)"),
    Key("x", "reject", "reject", "reject that dialog"),
    Key("y", "reply", "reply", "reply to the ask selected in the queue", footer=False),
    Key("p", "pause", "pause", "pause the agent, keeping its provider session", footer=False),
    Key("u", "resume", "resume", "resume a paused or stopped agent", footer=False),
    Key("R", "restart", "restart", "restart the agent with its stored configuration", footer=False),
    Key("K", "kill", "kill", "kill the agent's process tree (asks first)"),
    Key("n", "spawn", "new", "spawn a new agent from a short form", footer=False),
    Key("e", "evidence", "why", "why the agent has its status (the host's evidence)", footer=False),
    Key("slash", "filter", "filter", "filter the roster by words (Escape clears)"),
    Key("o", "sort", "sort", "sort by status, name, class, provider, workspace, machine", footer=False),
    Key("tab", "switch", "queue/roster", "move between the queue and the roster", footer=False),
    Key("question_mark", "help", "keys", "show these keys"),
    Key("q", "quit", "quit", "quit, leaving the terminal as it was"),
)

# How a key is written on the `?` screen.
SHOWN = {"slash": "/", "question_mark": "?", "enter": "Enter", "tab": "Tab"}


def keys_line() -> Text:
    """The bottom line: each key with its word, as Textual's Footer drew them. A line of text
    rather than the Footer: its widget per key cost the first screen about 0.1 s."""
    line = Text(" ")
    for key in KEYS:
        if key.footer:
            line.append(SHOWN.get(key.key, key.key), style="bold").append(f" {key.label}  ")
    line.rstrip()
    return line


def help_lines() -> list[str]:
    return [f"{SHOWN.get(key.key, key.key):>6}  {key.help}" for key in KEYS]
