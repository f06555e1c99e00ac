"""The dashboard: the person's queue on top, the roster, the selected agent's screen below.

Every read and every action runs in a worker thread through the CLI's own answers; the event
loop only draws. The roster is read when the dashboard starts and every REFRESH_SECONDS (new
agents, usage), the remotes' every REMOTE_SECONDS; status changes arrive as they happen from
the hosts' event streams (`feed`): each local agent followed on its own connection, each
remote one on its own ssh session over its machine's one master connection.
"""

import subprocess
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.filter import LineFilter, NoColor
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Static

from wardian_core.errors import WardianError
from wardian_host.tui import actions
from wardian_host.tui.feed import StatusFeed
from wardian_host.tui.forms import ConfirmKill, Notice, OneLine, Spawn, keys_notice
from wardian_host.tui.keys import KEYS, keys_line
from wardian_host.tui.preview import PREVIEW_REDRAWS_PER_SECOND, Preview, not_shown
from wardian_host.tui.queue import ASK, DIALOG, QueueEntry, choice_command, merged
from wardian_host.tui.roster import (
    COLUMNS,
    HEADERS,
    LOCAL_MACHINE,
    WHEN_SET,
    BudgetCell,
    RosterRow,
    evidence_text,
    sorted_rows,
)
from wardian_host.tui.sources import HostSources, Sources

# The roster's full read: new agents, usage, and statuses of agents the feed does not follow
# (remotes' are read every REMOTE_SECONDS, over ssh). Never faster than once a second.
# (Status changes need no read: the feed brings them, local or remote.)
REFRESH_SECONDS = 2.0
REMOTE_SECONDS = 10.0
SORTS = ("status", "name", "class_name", "provider", "place", "machine")
# Statuses drawn in the palette of `agent list --pretty` and the web view; NO_COLOR drops colour,
# and the word itself says the status.
STATUS_STYLES = {
    "action_required": "bold magenta",
    "error": "bold red",
    "processing": "yellow",
    "starting": "cyan",
    "idle": "green",
    "paused": "dim",
    "off": "dim",
    "headless": "blue",
}
LIMIT_STYLE = "yellow"
HELD_STYLE = "bold red"
# The statuses that put an agent in the queue (`wardian inbox` without --unseen).
QUEUED_STATUSES = {"action_required", "error"}
# The buttons under the queue, for the mouse: each answers the selected entry as its key does.
ANSWER_BUTTONS = {"answer-accept": ("accept", "a"), "answer-reject": ("reject", "x"), "answer-reply": ("reply", "y")}

AttachRunner = Callable[[list[str]], int]


class ThreadResult(Message):
    """What a worker thread or a feed thread hands to the app, drawn on its loop."""

    def __init__(self, callback: Callable[..., None], args: tuple[Any, ...]) -> None:
        super().__init__()
        self.callback = callback
        self.args = args


class WardianApp(App[None]):
    TITLE = "wardian"
    ENABLE_COMMAND_PALETTE = False  # every action has its key; `?` lists them
    CSS = """
    ConfirmKill, OneLine, Spawn, Notice { align: center middle; }
    #title { height: 1; background: $primary-background; padding: 0 1; }
    #queue { height: auto; max-height: 6; }
    #queue-empty { height: 1; padding: 0 1; color: $text-muted; }
    #queue-answers { height: 1; padding: 0 1; }
    #queue-answers Button { width: auto; min-width: 0; margin-right: 2; }
    #roster { height: 1fr; min-height: 5; }
    /* Always there (a row of its own): a widget shown only on `/` could not take the focus
       before the keys typed right after it arrive. */
    #filter { height: 1; border: none; padding: 0 1; }
    #keys-line { height: 1; background: $footer-background; color: $footer-foreground; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key.key, key.action, key.label, show=key.footer, priority=key.key == "tab") for key in KEYS
    ]

    def __init__(self, sources: Sources | None = None, attach_runner: AttachRunner | None = None) -> None:
        super().__init__()
        self.sources: Sources = sources or HostSources()
        self.attach_runner: AttachRunner = attach_runner or subprocess.call
        self.rows: dict[str, RosterRow] = {}
        self.remote: dict[str, RosterRow] = {}
        self.local_queue: list[QueueEntry] = []
        self.remote_queue: list[QueueEntry] = []
        self.queue_entries: list[QueueEntry] = []  # both, most urgent first, as drawn
        self.budgets: dict[str, BudgetCell] = {}  # local agents' budget cells, by uuid
        self.filter_text = ""
        self.sort_by = "status"
        self.loaded = False  # the first roster read has been drawn
        self.queue_read = False  # this machine's queue has been read (it follows the roster)
        self._feed: StatusFeed | None = None
        self._remote_feed: StatusFeed | None = None  # made once the remotes' rows are first read
        self._preview_due = False

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=False)
        yield Static("Reading what needs you…", id="queue-empty")
        with Horizontal(id="queue-answers"):
            for button_id, (answer, key) in ANSWER_BUTTONS.items():
                button = Button(f"{answer} ({key})", id=button_id, compact=True)
                button.can_focus = False  # Tab and the keys keep moving between the queue and the roster
                yield button
        yield DataTable(id="roster", cursor_type="row")
        yield Preview(id="preview")
        yield Input(placeholder="/ filters the roster by words (Escape clears)", id="filter")
        yield Static(keys_line(), id="keys-line")

    def get_line_filters(self) -> list[LineFilter]:
        """With NO_COLOR, no colour at all: Textual's own filter turns colours to greys, which
        still are colours (no-color.org); NoColor leaves the terminal's default ones."""
        if self.no_color:
            return [NoColor()]
        return list(super().get_line_filters())

    def on_mount(self) -> None:
        roster = self.query_one("#roster", DataTable)
        roster.focus()
        # No blinking cursor: over SSH each blink is a redraw, and a snapshot must not catch it mid-blink.
        self.query_one("#filter", Input).cursor_blink = False
        self._draw_title()
        self._feed = self.sources.feed(self._heard_status, self._heard_output)
        ready = self.sources.ready_rows()
        if ready is not None:  # read while Textual was imported: drawn in the first paint
            self._apply_rows(ready)
        else:
            self.load_rows()
        self.set_interval(REFRESH_SECONDS, self.load_rows)

    def on_unmount(self) -> None:
        """Every stream ended before the dashboard leaves: no ssh session outlives it."""
        for feed in (self._feed, self._remote_feed):
            if feed is not None:
                feed.close()

    # Reading: in threads, drawn on the loop.

    def _from_thread(self, callback: Callable[..., None], *args: Any) -> None:
        """Hand a thread's result to the app as a message: it does not wait (a feed thread must
        not block while the dashboard steps aside for an attach), and it is dropped once the
        app has closed."""
        self.post_message(ThreadResult(callback, args))

    def on_thread_result(self, message: "ThreadResult") -> None:
        if self.is_running:
            message.callback(*message.args)

    @work(thread=True, exclusive=True, group="rows")
    def load_rows(self) -> None:
        try:
            rows = self.sources.rows()
        except WardianError as error:
            self._from_thread(self._failed, error)
            return
        self._from_thread(self._apply_rows, rows)

    @work(thread=True, exclusive=True, group="beside-rows")
    def load_beside_rows(self, rows: list[RosterRow]) -> None:
        """What each roster read brings after the rows are drawn: the queue, the budgets."""
        self._load_queue(rows)
        self._load_budgets(rows)

    @work(thread=True, exclusive=True, group="remote")
    def load_remote_rows(self) -> None:
        try:
            found = self.sources.remote_rows()
        except WardianError as error:
            self._from_thread(self._failed, error)
            return
        if found is None:
            return
        self._from_thread(self._apply_remote, *found)
        self._load_remote_queue()

    @work(thread=True, exclusive=True, group="remote-queue")
    def load_remote_queue(self) -> None:
        self._load_remote_queue()

    def _load_remote_queue(self) -> None:
        try:
            entries = self.sources.remote_queue()
        except WardianError as error:
            self._from_thread(self._failed, error)
            return
        self._from_thread(self._apply_remote_queue, entries)

    def _load_queue(self, rows: list[RosterRow]) -> None:
        try:
            entries = self.sources.queue(rows)
        except WardianError as error:
            self._from_thread(self._failed, error)
            return
        self._from_thread(self._apply_queue, entries)

    def _load_budgets(self, rows: list[RosterRow]) -> None:
        try:
            cells = self.sources.budgets(rows)
        except WardianError as error:
            self._from_thread(self._failed, error)
            return
        self._from_thread(self._apply_budgets, cells)

    @work(thread=True, exclusive=True, group="queue")
    def load_queue(self) -> None:
        self._load_queue(self.all_rows())

    @work(thread=True, exclusive=True, group="preview")
    def load_preview(self, row: RosterRow) -> None:
        try:
            rows = self.sources.screen(row)
        except WardianError as error:
            self._from_thread(self._preview_text, row, not_shown(row, error))
            return
        self._from_thread(self._preview_rows, row, rows)

    def _apply_rows(self, rows: list[RosterRow]) -> None:
        # The budgets read last time, until this read's arrive: no bar blinks out meanwhile.
        self.rows = {row.key: self._with_budget(row) for row in rows}
        first, self.loaded = not self.loaded, True
        self._draw_roster()
        # The rest once the roster is on screen: each starts threads, and each first use
        # imports modules (pydantic's, the settings'), which would hold the drawing back.
        self.call_after_refresh(self.load_beside_rows, rows)
        if self._feed is not None:
            live = {row.name: row.status for row in rows if row.status != "off"}
            self.call_after_refresh(self._feed.follow, live)
        if first:
            self.call_after_refresh(self.load_remote_rows)
            self.set_interval(REMOTE_SECONDS, self.load_remote_rows)

    def _apply_budgets(self, cells: dict[str, BudgetCell]) -> None:
        self.budgets = cells
        self.rows = {key: self._with_budget(row) for key, row in self.rows.items()}
        self._draw_roster()

    def _with_budget(self, row: RosterRow) -> RosterRow:
        """A local row with its budget cell (none: no bar); a remote's rows carry no budget."""
        if row.machine != LOCAL_MACHINE:
            return row
        cell = self.budgets.get(row.uuid) or BudgetCell("", False)
        return replace(row, budget=cell.text, held=cell.held)

    def _apply_remote(self, rows: list[RosterRow], unreachable: list[str]) -> None:
        self.remote = {row.key: row for row in rows}
        self._draw_roster()
        if self._remote_feed is None:
            # A remote's output does not redraw the preview: each redraw would be an `agent
            # screen` over a new ssh connection, up to five a second.
            self._remote_feed = self.sources.remote_feed(self._heard_status, lambda key: None)
        if self._remote_feed is not None:
            live = {row.key: row.status for row in rows if row.status != "off"}
            self.call_after_refresh(self._remote_feed.follow, live)
        if unreachable:
            self.notify(f"not reachable: {', '.join(unreachable)}", severity="warning")

    def _apply_remote_queue(self, entries: list[QueueEntry]) -> None:
        self.remote_queue = entries
        self._draw_queue()

    def _apply_queue(self, entries: list[QueueEntry]) -> None:
        self.local_queue = entries
        if not self.queue_read:
            self.queue_read = True
            self.query_one("#queue-empty", Static).update("Nothing needs you.")
        self._draw_queue()

    def _draw_queue(self) -> None:
        entries = self.queue_entries = merged(self.local_queue, self.remote_queue)
        queue = self.query_one("#queue", DataTable)
        # Widths set, as the roster's are: a measure left to DataTable could lag a redraw.
        queue.clear(columns=True)
        queue.add_column("needs", key="kind", width=max([7, *(len(entry.kind) for entry in entries)]))
        queue.add_column("agent", key="agent", width=max([5, *(len(entry.agent) for entry in entries)]))
        queue.add_column("what", key="summary", width=max([4, *(len(entry.summary) for entry in entries)]))
        for index, entry in enumerate(entries):
            queue.add_row(entry.kind, entry.agent, Text(entry.summary), key=str(index))
        # Its height is `auto`: without a layout asked for, a table whose columns were just
        # rebuilt sometimes kept the height of none (Textual 8.2).
        queue.refresh(layout=True)
        queue.display = bool(entries)
        self.query_one("#queue-answers").display = bool(entries)
        self.query_one("#queue-empty").display = not entries
        self._draw_title()

    def _failed(self, error: WardianError) -> None:
        self.notify(f"{error.code}: {error.message}", severity="error", timeout=8)

    # The feed's threads: a status changed, an agent printed.

    def _heard_status(self, name: str, event: dict[str, Any]) -> None:
        self._from_thread(self._status_changed, name, event)

    def _heard_output(self, name: str) -> None:
        self._from_thread(self._output_arrived, name)

    def _status_changed(self, key: str, event: dict[str, Any]) -> None:
        rows = self.rows if key in self.rows else self.remote
        row = rows.get(key)
        if row is None:
            return
        rows[key] = replace(row, status=event["to"], status_evidence=event.get("evidence"))
        self._draw_roster()
        if rows is self.rows:
            self.load_queue()
        elif {event.get("from"), event["to"]} & QUEUED_STATUSES:
            self.load_remote_queue()  # over ssh: only when the change adds or removes an entry

    def _output_arrived(self, name: str) -> None:
        selected = self.selected_row()
        if selected is None or selected.key != name or self._preview_due:
            return
        self._preview_due = True
        self.set_timer(1 / PREVIEW_REDRAWS_PER_SECOND, self._redraw_preview)

    def _redraw_preview(self) -> None:
        self._preview_due = False
        try:
            selected = self.selected_row()
        except NoMatches:  # its timer fired as the dashboard closed: the widgets are gone
            return
        if selected is not None:
            self.load_preview(selected)

    # Drawing.

    def all_rows(self) -> list[RosterRow]:
        return [*self.rows.values(), *self.remote.values()]

    def shown_rows(self) -> list[RosterRow]:
        rows = [row for row in self.all_rows() if row.matches(self.filter_text)]
        return sorted_rows(rows, self.sort_by)

    def _draw_roster(self) -> None:
        roster = self.query_one("#roster", DataTable)
        selected = self.selected_row()
        # Columns too, each as wide as its widest cell: DataTable's own measure of a redrawn
        # table sometimes kept an older, narrower width and cut names.
        roster.clear(columns=True)
        shown = self.shown_rows()
        columns = [column for column in COLUMNS if column not in WHEN_SET or any(row.cell(column) for row in shown)]
        for column in columns:
            header = HEADERS.get(column, column)
            width = max([len(header), *(len(row.cell(column)) for row in shown)])
            roster.add_column(header, key=column, width=width)
        for row in shown:
            roster.add_row(*(self._cell(row, column) for column in columns), key=row.key)
        if selected is not None and selected.key in roster.rows:
            roster.move_cursor(row=roster.get_row_index(selected.key), animate=False)
        self._draw_title()

    @staticmethod
    def _cell(row: RosterRow, column: str) -> Text:
        if column == "status":
            return Text(row.status, style=STATUS_STYLES.get(row.status, ""))
        if column == "allowance":
            parts = [(row.limit, LIMIT_STYLE), (row.budget, HELD_STYLE if row.held else "")]
            return Text("; ").join(Text(text, style=style) for text, style in parts if text)
        return Text(row.cell(column))

    def _draw_title(self) -> None:
        total = len(self.rows) + len(self.remote)
        parts = [f"wardian · {total} agent{'s' if total != 1 else ''}"]
        if not self.loaded:
            parts = ["wardian · reading the roster…"]
        parts.append(f"{len(self.queue_entries)} need you" if self.queue_entries else "none need you")
        if not self.queue_read and not self.queue_entries:
            parts[-1] = "reading the queue…"
        typing = self.focused is not None and self.focused.id == "filter"
        if self.filter_text or typing:
            parts.append(f"filter: {self.filter_text}" + ("_" if typing else ""))
        parts.append(f"sort: {HEADERS.get(self.sort_by, self.sort_by)}")
        parts.append("? keys")
        self.query_one("#title", Static).update(Text("  ·  ".join(parts)))

    def _preview_rows(self, row: RosterRow, rows: list[str]) -> None:
        selected = self.selected_row()
        if selected is not None and selected.key == row.key:
            self.query_one(Preview).show_rows(f"{row.key} · {row.status}", rows)

    def _preview_text(self, row: RosterRow, text: str) -> None:
        selected = self.selected_row()
        if selected is not None and selected.key == row.key:
            self.query_one(Preview).show_text(f"{row.key} · {row.status}", text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "roster":
            row = self.selected_row()
            if row is not None:  # once the roster is drawn: the first read imports the screen's answer
                self.call_after_refresh(self.load_preview, row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a roster row attaches; on a queue entry it selects that entry's agent."""
        if event.data_table.id == "roster":
            self.action_attach()
            return
        entry = self.selected_entry()
        if entry is not None and entry.agent in self.query_one("#roster", DataTable).rows:
            roster = self.query_one("#roster", DataTable)
            roster.move_cursor(row=roster.get_row_index(entry.agent))
            roster.focus()

    # What is selected.

    def selected_row(self) -> RosterRow | None:
        roster = self.query_one("#roster", DataTable)
        if roster.row_count == 0:
            return None
        key = roster.coordinate_to_cell_key(roster.cursor_coordinate).row_key.value
        return self.rows.get(key or "") or self.remote.get(key or "")

    def selected_entry(self) -> QueueEntry | None:
        queue = self.query_one("#queue", DataTable)
        if not self.queue_entries or queue.row_count == 0:
            return None
        index = queue.cursor_coordinate.row
        return self.queue_entries[index] if index < len(self.queue_entries) else None

    def _target(self) -> RosterRow | None:
        """The agent a key acts on: the queue entry's when the queue has the focus, else the roster's."""
        if self.focused is not None and self.focused.id == "queue":
            entry = self.selected_entry()
            if entry is not None:
                return self.rows.get(entry.agent) or self.remote.get(entry.agent)
        row = self.selected_row()
        if row is None:
            self.notify("no agent selected", severity="warning")
        return row

    # Acting: each in a thread, through the CLI's answers.

    @work(thread=True, group="act")
    def act(self, action: Callable[[], str]) -> None:
        try:
            said = action()
        except WardianError as error:
            self._from_thread(self._failed, error)
            return
        self._from_thread(self._acted, said)

    def _acted(self, said: str) -> None:
        self.notify(said, timeout=4)
        self.load_rows()

    def action_attach(self) -> None:
        row = self._target()
        if row is None:
            return
        argv = actions.attach_argv(row)
        # A headless driver (the test pilot, a web driver) has no terminal to give up.
        driver = self._driver
        if driver is not None and driver.can_suspend:
            with self.suspend():
                self.attach_runner(argv)
        else:
            self.attach_runner(argv)
        self.load_rows()
        self.refresh()

    def action_send(self) -> None:
        row = self._target()
        if row is not None:
            self.push_screen(OneLine(f"Send a line to {row.key}:"), lambda text: self._send(row, text))

    def _send(self, row: RosterRow, text: str | None) -> None:
        if text:
            self.act(lambda: actions.send_line(row, text))

    def action_approve(self) -> None:
        self._answer_dialog("accept")

    def action_reject(self) -> None:
        self._answer_dialog("reject")

    def _answer_dialog(self, answer: str) -> None:
        entry = self.selected_entry() if self.focused is not None and self.focused.id == "queue" else None
        if entry is not None:
            self._answer(entry, answer)
            return
        row = self._target()
        if row is not None:
            self._approve(row, answer)

    def _answer(self, entry: QueueEntry, answer: str) -> None:
        """`a` or `x` on a queue entry: a dialog with the provider's keys, another kind with its choice."""
        if entry.kind != DIALOG:
            self._answer_entry(entry, answer)
            return
        row = self.rows.get(entry.agent) or self.remote.get(entry.agent)
        if row is None:
            self.notify(f"{entry.agent} is not in the roster yet", severity="warning")
            return
        # The entry is the host's word that the agent waits at a dialog: the roster's status,
        # which the event stream brings, may not show it yet. A dialog gone is the host's refusal.
        self._approve(row, answer, checked=True)

    def _approve(self, row: RosterRow, answer: str, checked: bool = False) -> None:
        if not checked and row.status != "action_required":
            self.notify(f"{row.key} waits at no dialog (it is {row.status})", severity="warning")
            return
        self.act(lambda: actions.approve(row, answer))

    def _answer_entry(self, entry: QueueEntry, answer: str) -> None:
        """A workflow's approval (or another kind with choices): its own command, as typed."""
        command = choice_command(entry, answer)
        if command is None:
            self.notify(f"this {entry.kind} has no {answer}: {entry.command}", severity="warning")
            return
        self.act(lambda: actions.run_command(command))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button under the queue: the selected entry (the first, until another is chosen)."""
        if event.button.id not in ANSWER_BUTTONS:
            return  # a dialog's own button
        event.stop()
        answer, _ = ANSWER_BUTTONS[event.button.id]
        if answer == "reply":
            self.action_reply()
            return
        entry = self.selected_entry()
        if entry is not None:
            self._answer(entry, answer)

    def action_reply(self) -> None:
        entry = self.selected_entry()
        if entry is None or entry.kind != ASK or entry.request_id is None:
            self.notify("select an ask in the queue to reply to it", severity="warning")
            return
        request_id = entry.request_id
        prompt = f"Reply to {entry.agent}: {entry.summary}"
        self.push_screen(OneLine(prompt), lambda body: self._reply(request_id, body))

    def _reply(self, request_id: str, body: str | None) -> None:
        if body:
            self.act(lambda: actions.reply(request_id, body))

    def _lifecycle(self, verb: str) -> None:
        row = self._target()
        if row is not None:
            self.act(lambda: actions.lifecycle(verb, row))

    def action_pause(self) -> None:
        self._lifecycle("pause")

    def action_resume(self) -> None:
        self._lifecycle("resume")

    def action_restart(self) -> None:
        self._lifecycle("restart")

    def action_kill(self) -> None:
        row = self._target()
        if row is not None:
            self.push_screen(ConfirmKill(row.key), lambda yes: self._lifecycle_of(row, "kill", yes))

    def _lifecycle_of(self, row: RosterRow, verb: str, confirmed: bool | None) -> None:
        if confirmed:
            self.act(lambda: actions.lifecycle(verb, row))

    def action_spawn(self) -> None:
        self.push_screen(Spawn(), self._spawn)

    def _spawn(self, form: actions.SpawnForm | None) -> None:
        if form is not None:
            self.act(lambda: actions.spawn(form))

    def action_evidence(self) -> None:
        row = self._target()
        if row is not None:
            self.push_screen(Notice("Status evidence", evidence_text(row)))

    def action_help(self) -> None:
        self.push_screen(keys_notice())

    def action_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self._draw_roster()

    def action_switch(self) -> None:
        """Tab: between the queue and the roster (the filter has `/`); in a form, its next field."""
        if len(self.screen_stack) > 1:
            self.screen.focus_next()
            return
        queue = self.query_one("#queue", DataTable)
        roster = self.query_one("#roster", DataTable)
        if self.focused is roster and queue.display:
            queue.focus()
        else:
            roster.focus()

    def action_filter(self) -> None:
        self.set_focus(self.query_one("#filter", Input))  # at once: the next keys typed are the filter's

    def on_descendant_focus(self) -> None:
        self._draw_title()  # says when the keys typed go to the filter

    def on_descendant_blur(self) -> None:
        self._draw_title()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value
            self._draw_roster()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self.query_one("#roster", DataTable).focus()

    def on_key(self, event: Any) -> None:
        field = self.query_one("#filter", Input)
        if event.key == "escape" and field.has_focus:
            field.value = ""
            self.query_one("#roster", DataTable).focus()
            event.stop()
