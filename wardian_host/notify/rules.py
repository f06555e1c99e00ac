"""Which status changes are worth a person's attention, and when.

Waiting on a person and ending in `error` are told at once; a finished turn only once it has
gone `unseen_turn_seconds` without anybody looking at the agent (the web view says when a
person looks: an enlarged tile), and never when a CLI call (`send --wait-until`, `ask`, `agent
wait`) got its answer from that turn: whoever ran it has the turn's result. Each occurrence gets
its own id, so every listener can tell a new one from one it already showed.
"""

import asyncio
import itertools
import logging
from collections.abc import Callable

from wardian_core.clock import now_iso
from wardian_core.notices import Notice, NoticeKind
from wardian_core.parsing.escapes import normalize_newlines, strip_escapes

log = logging.getLogger(__name__)

Listener = Callable[[Notice], None]


class NoticeRules:
    def __init__(self, loop: asyncio.AbstractEventLoop, unseen_turn_seconds: Callable[[], float]) -> None:
        """`unseen_turn_seconds`: the setting as it stands now (read at each turn's end)."""
        self._loop = loop
        self._unseen_turn_seconds = unseen_turn_seconds
        self._listeners: list[Listener] = []
        self._pending_turns: dict[str, asyncio.TimerHandle] = {}
        # uuid -> when its finished turn went unseen, until a look or its next status (`wardian inbox --unseen`).
        self._unseen_turns: dict[str, str] = {}
        self._numbers = itertools.count(1)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Hear every notice from now on; the answer unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def status_changed(
        self,
        uuid: str,
        name: str,
        previous: str,
        current: str,
        evidence: dict[str, object],
        turn_awaited: bool = False,
    ) -> None:
        """`turn_awaited`: a CLI call got its answer from the turn this change ends."""
        self._forget_turn(uuid)
        if current == "action_required":
            what = evidence.get("dialog") or evidence.get("reason") or "a dialog"
            self.raise_notice("waiting", uuid, name, f"{name} is waiting for you", f"{what}")
        elif current == "error":
            self._error(uuid, name, evidence)
        elif previous == "processing" and current == "idle" and not turn_awaited and not _limit_cut(evidence):
            delay = self._unseen_turn_seconds()
            self._pending_turns[uuid] = self._loop.call_later(delay, self._turn_unseen, uuid, name)

    def looked_at(self, uuid: str) -> None:
        """A person looked at the agent: its finished turn needs no notice."""
        self._forget_turn(uuid)

    def raise_notice(
        self,
        kind: NoticeKind,
        uuid: str,
        name: str,
        title: str,
        body: str,
        exit_code: int | None = None,
        last_line: str | None = None,
    ) -> Notice:
        """`exit_code` and `last_line`: what an error notice carries beside its text."""
        notice = Notice(
            id=f"{uuid or 'wardian'}-{kind}-{next(self._numbers)}",
            kind=kind,
            agent=name,
            uuid=uuid,
            title=title,
            body=body,
            at=now_iso(),
            exit_code=exit_code,
            last_line=last_line,
        )
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception:  # one failing listener must not silence the others
                log.warning("a notice listener failed", exc_info=True)
        return notice

    def close(self) -> None:
        for handle in self._pending_turns.values():
            handle.cancel()
        self._pending_turns.clear()

    def unseen_turns(self) -> dict[str, str]:
        """Each agent whose finished turn was noticed as unseen and nobody looked at since: when."""
        return dict(self._unseen_turns)

    def _error(self, uuid: str, name: str, evidence: dict[str, object]) -> None:
        """The exit code and the last line printed, in the body too: an address shows only the text."""
        exit_code = evidence.get("exit_code")
        last_line = last_printed_line(evidence.get("output_tail")) or evidence.get("line")
        said = [f"exit code {exit_code}"] if isinstance(exit_code, int) else []
        said += [f"{last_line}"] if last_line else []
        body = ": ".join(said) or f"{evidence.get('reason') or 'its process failed'}"
        self.raise_notice(
            "error",
            uuid,
            name,
            f"{name} ended in error",
            body,
            exit_code=exit_code if isinstance(exit_code, int) else None,
            last_line=f"{last_line}" if last_line else None,
        )

    def _turn_unseen(self, uuid: str, name: str) -> None:
        self._pending_turns.pop(uuid, None)
        notice = self.raise_notice("unseen_turn", uuid, name, f"{name} finished a turn", "nobody has looked at it yet")
        self._unseen_turns[uuid] = notice.at

    def _forget_turn(self, uuid: str) -> None:
        self._unseen_turns.pop(uuid, None)
        handle = self._pending_turns.pop(uuid, None)
        if handle is not None:
            handle.cancel()


def _limit_cut(evidence: dict[str, object]) -> bool:
    """A turn a usage limit cut did not finish: its `limit` notices tell it (docs/limits.md)."""
    return evidence.get("event") == "limit_reached"


def last_printed_line(output_tail: object) -> str | None:
    """The last line with text in an agent's final output, escapes and colours stripped."""
    if not isinstance(output_tail, str):
        return None
    lines = [line.strip() for line in normalize_newlines(strip_escapes(output_tail)).split("\n")]
    return next((line for line in reversed(lines) if line), None)
