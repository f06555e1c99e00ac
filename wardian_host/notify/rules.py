"""Which status changes are worth a person's attention, and when.

Waiting on a person and ending in `error` are told at once; a finished turn only once it has
gone `unseen_turn_seconds` without anybody looking at the agent (the web view says when a
person looks: an enlarged tile). Each occurrence gets its own id, so every listener can tell
a new one from one it already showed.
"""

import asyncio
import itertools
import logging
from collections.abc import Callable

from wardian_core.clock import now_iso
from wardian_core.notices import Notice, NoticeKind

log = logging.getLogger(__name__)

Listener = Callable[[Notice], None]


class NoticeRules:
    def __init__(self, loop: asyncio.AbstractEventLoop, unseen_turn_seconds: float) -> None:
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

    def status_changed(self, uuid: str, name: str, previous: str, current: str, evidence: dict[str, object]) -> None:
        self._forget_turn(uuid)
        if current == "action_required":
            what = evidence.get("dialog") or evidence.get("reason") or "a dialog"
            self.raise_notice("waiting", uuid, name, f"{name} is waiting for you", f"{what}")
        elif current == "error":
            reason = evidence.get("reason") or evidence.get("line") or "its process failed"
            self.raise_notice("error", uuid, name, f"{name} ended in error", f"{reason}")
        elif previous == "processing" and current == "idle":
            self._pending_turns[uuid] = self._loop.call_later(self._unseen_turn_seconds, self._turn_unseen, uuid, name)

    def looked_at(self, uuid: str) -> None:
        """A person looked at the agent: its finished turn needs no notice."""
        self._forget_turn(uuid)

    def raise_notice(self, kind: NoticeKind, uuid: str, name: str, title: str, body: str) -> Notice:
        notice = Notice(
            id=f"{uuid or 'wardian'}-{kind}-{next(self._numbers)}",
            kind=kind,
            agent=name,
            uuid=uuid,
            title=title,
            body=body,
            at=now_iso(),
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

    def _turn_unseen(self, uuid: str, name: str) -> None:
        self._pending_turns.pop(uuid, None)
        notice = self.raise_notice("unseen_turn", uuid, name, f"{name} finished a turn", "nobody has looked at it yet")
        self._unseen_turns[uuid] = notice.at

    def _forget_turn(self, uuid: str) -> None:
        self._unseen_turns.pop(uuid, None)
        handle = self._pending_turns.pop(uuid, None)
        if handle is not None:
            handle.cancel()
