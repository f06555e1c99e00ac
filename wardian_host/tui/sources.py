"""Where the dashboard's data comes from: the host of this home (and the configured remotes),
or, for a screen snapshot that must not change between runs, fixed rows."""

from concurrent.futures import Future
from typing import Protocol

from wardian_host.tui.feed import OutputHeard, StatusFeed, StatusHeard
from wardian_host.tui.queue import QueueEntry, from_roster, local_entries, merged, remote_entries
from wardian_host.tui.roster import BudgetCell, RosterRow


class Sources(Protocol):
    def rows(self) -> list[RosterRow]: ...

    def ready_rows(self) -> list[RosterRow] | None:
        """The first rows when they are already read (the dashboard draws them at once), else None."""
        ...

    def remote_rows(self) -> tuple[list[RosterRow], list[str]] | None: ...

    def queue(self, rows: list[RosterRow]) -> list[QueueEntry]: ...

    def remote_queue(self) -> list[QueueEntry]: ...

    def screen(self, row: RosterRow) -> list[str]: ...

    def budgets(self, rows: list[RosterRow]) -> dict[str, BudgetCell]: ...

    def feed(self, on_status: StatusHeard, on_output: OutputHeard) -> StatusFeed | None: ...

    def remote_feed(self, on_status: StatusHeard, on_output: OutputHeard) -> StatusFeed | None:
        """The remotes' agents' streams: asked for once remote rows were read."""
        ...


class HostSources:
    """`agent list`'s answers, `agent screen`'s, `wardian inbox`'s, and the hosts' event streams.

    `first_rows`: the first roster read, started before Textual was imported (`wardian tui`
    reads it meanwhile, the host answering while the import runs)."""

    def __init__(self, first_rows: "Future[list[RosterRow]] | None" = None) -> None:
        self._first_rows = first_rows

    def rows(self) -> list[RosterRow]:
        from wardian_host.tui.roster import local_rows

        first, self._first_rows = self._first_rows, None
        return first.result() if first is not None else local_rows()

    def ready_rows(self) -> list[RosterRow] | None:
        first = self._first_rows
        if first is None or not first.done() or first.exception() is not None:
            return None  # `rows` waits for it, or reads again, or raises its error
        self._first_rows = None
        return first.result()

    def remote_rows(self) -> tuple[list[RosterRow], list[str]] | None:
        """None when no remote is configured."""
        from wardian_host.tui.roster import has_remotes, remote_rows

        return remote_rows() if has_remotes() else None

    def queue(self, rows: list[RosterRow]) -> list[QueueEntry]:
        return local_entries()

    def remote_queue(self) -> list[QueueEntry]:
        """Called with the remotes' rosters, so only when remotes are configured."""
        return remote_entries()

    def screen(self, row: RosterRow) -> list[str]:
        from wardian_host.tui.preview import screen_rows

        return screen_rows(row)

    def feed(self, on_status: StatusHeard, on_output: OutputHeard) -> StatusFeed | None:
        return StatusFeed(on_status, on_output)

    def remote_feed(self, on_status: StatusHeard, on_output: OutputHeard) -> StatusFeed | None:
        from wardian_host.tui.remote_feed import RemoteStreams

        return StatusFeed(on_status, on_output, RemoteStreams())

    def budgets(self, rows: list[RosterRow]) -> dict[str, BudgetCell]:
        from wardian_host.tui.budgets import budget_cells

        return budget_cells(rows)


class FixedSources:
    """The same rows and screen every time: no host, no feed."""

    def __init__(
        self,
        rows: list[RosterRow],
        screens: dict[str, list[str]] | None = None,
        entries: list[QueueEntry] | None = None,
    ) -> None:
        self._rows = rows
        self._screens = screens or {}
        self._entries = entries or []  # besides what the rows tell (a budget's hold, a limit)

    def rows(self) -> list[RosterRow]:
        return list(self._rows)

    def ready_rows(self) -> list[RosterRow] | None:
        return None  # read in a worker, as a host's are when the first read is not done

    def remote_rows(self) -> tuple[list[RosterRow], list[str]] | None:
        return None

    def queue(self, rows: list[RosterRow]) -> list[QueueEntry]:
        return merged(from_roster(rows), self._entries)

    def remote_queue(self) -> list[QueueEntry]:
        return []

    def screen(self, row: RosterRow) -> list[str]:
        return self._screens.get(row.key, [])

    def feed(self, on_status: StatusHeard, on_output: OutputHeard) -> StatusFeed | None:
        return None

    def remote_feed(self, on_status: StatusHeard, on_output: OutputHeard) -> StatusFeed | None:
        return None

    def budgets(self, rows: list[RosterRow]) -> dict[str, BudgetCell]:
        """The budget each fixed row was given."""
        return {row.uuid: BudgetCell(row.budget, row.held) for row in rows if row.budget}
