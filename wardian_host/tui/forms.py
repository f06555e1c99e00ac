"""The dialogs a key opens: the kill confirmation, a line to send, a reply, the spawn form, the
status evidence and the keys. Each is a modal screen that dismisses with what was entered
(None when the person backs out with Escape)."""

import os
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from wardian_host.tui.actions import SpawnForm
from wardian_host.tui.keys import help_lines

DIALOG_CSS = """
#dialog { width: 72; max-width: 100%; height: auto; border: thick $accent; padding: 0 1; background: $surface; }
#dialog Horizontal { height: auto; }
#dialog Button { margin: 0 1; }
#dialog Input { margin: 0 0; }
"""


class ConfirmKill(ModalScreen[bool]):
    """Kill asks first: `y` or the button kills, `n` or Escape keeps the agent."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "kill"),
        Binding("n,escape", "answer(False)", "keep"),
    ]

    def __init__(self, agent: str) -> None:
        super().__init__()
        self.agent = agent

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(f"Kill {self.agent}? Its whole process tree ends."), id="question")
            with Horizontal():
                yield Button("Kill (y)", variant="error", id="yes")
                yield Button("Keep (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, kill: bool) -> None:
        self.dismiss(kill)


class OneLine(ModalScreen[str | None]):
    """One line of text: a line to send, a reply. Enter gives it, Escape backs out."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "back")]

    def __init__(self, prompt: str, placeholder: str = "") -> None:
        super().__init__()
        self.prompt = prompt
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self.prompt))
            yield Input(placeholder=self.placeholder, id="line")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value if event.value.strip() else None)

    def action_back(self) -> None:
        self.dismiss(None)


class Spawn(ModalScreen[SpawnForm | None]):
    """The short spawn form: provider, class, name, workspace, and a command for `generic`."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "back")]
    FIELDS = ("provider", "class_name", "name", "workspace", "command")

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("New agent (Enter in the last field spawns; Escape backs out)")
            yield Input(value="generic", placeholder="provider", id="provider")
            yield Input(value="Coder", placeholder="class", id="class_name")
            yield Input(placeholder="name (optional)", id="name")
            yield Input(value=os.getcwd(), placeholder="workspace", id="workspace")
            yield Input(placeholder="command, for generic (e.g. bash)", id="command")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "command":
            self.focus_next()
            return
        values = {name: self.query_one(f"#{name}", Input).value for name in self.FIELDS}
        self.dismiss(SpawnForm(**values))

    def action_back(self) -> None:
        self.dismiss(None)


class Notice(ModalScreen[None]):
    """Text to read (the keys, a status's evidence); any of Escape, q, ? or Enter closes it."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,enter", "close", "close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.title_text
            yield Static(Text(self.text))

    def action_close(self) -> None:
        self.dismiss(None)


def keys_notice() -> Notice:
    return Notice("Keys", "\n".join(help_lines()))
