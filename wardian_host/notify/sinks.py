"""Sending notices out: to the Apprise addresses in settings.toml, and to observer plugins.

Apprise is an optional extra (`wardian[notify]`), imported only when a notice is sent to an
address; its senders block, so they run in a worker thread, never on the host's loop. The
addresses are read at each send, so a change to `notify.urls` applies to the next notice.
"""

import asyncio
import contextlib
import logging
import re
import threading
from collections.abc import Callable
from typing import Any

from wardian_core.errors import WardianError
from wardian_core.notices import Notice

log = logging.getLogger(__name__)

PluginNotify = Callable[..., None]

NO_ADDRESS_HINT = (
    "Name where notices go: `wardian settings set notify.urls 'ntfy://ntfy.sh/YOUR-TOPIC'` (any Apprise "
    "address; several separated by spaces or commas); the running host uses it at once."
)
FAILED_HINT = (
    "Fix the address Apprise names with `wardian settings set notify.urls '…'`, then run `wardian notify test` again."
)


def addresses(urls: str | None) -> list[str]:
    """The addresses of `notify.urls`: separated by spaces or commas."""
    return [url for url in re.split(r"[\s,]+", urls or "") if url]


def apprise_missing() -> WardianError:
    return WardianError(
        "not_supported",
        "notify.urls is set but Apprise is not installed",
        "Install the extra: `pip install 'wardian[notify]'`, then restart the host.",
    )


class AppriseReasons(logging.Handler):
    """Apprise tells why an address failed only in its log: the warnings and errors of one send."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.reasons: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.reasons.append(record.getMessage())


def send_to_addresses(urls: list[str], notice: Notice) -> tuple[bool, list[str]]:
    """Blocking: whether every address took the notice, and Apprise's reasons when not."""
    try:
        import apprise
    except ImportError:
        raise apprise_missing() from None
    apprise_log = logging.getLogger("apprise")
    if not apprise_log.isEnabledFor(logging.WARNING):  # its reasons are warnings: let them through
        apprise_log.setLevel(logging.WARNING)
    reasons = AppriseReasons()
    apprise_log.addHandler(reasons)
    try:
        sender = apprise.Apprise()
        for url in urls:
            sender.add(url)
        sent = bool(sender.notify(title=notice.title, body=notice.body))
    finally:
        apprise_log.removeHandler(reasons)
    return sent, [] if sent else reasons.reasons


class Sinks:
    def __init__(self, urls: Callable[[], str | None], plugin_notify: PluginNotify) -> None:
        """`urls`: `notify.urls` as it stands now (read at each send)."""
        self._urls = urls
        self._plugin_notify = plugin_notify
        self._sending: set[asyncio.Task[Any]] = set()
        # One send at a time: the reasons Apprise logs are then the reasons of that send.
        self._one_at_a_time = threading.Lock()

    def told(self, notice: Notice) -> None:
        """A NoticeRules listener: plugins at once, the addresses in the background."""
        self._plugin_notify("notice_raised", notice=notice)
        if notice.kind != "test":  # `notify test` sends its own and reports how it went
            task = asyncio.get_running_loop().create_task(self._send_in_background(notice))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def send(self, notice: Notice) -> dict[str, Any]:
        """Send to every address; the answer says whether they took it, and why not (`notify test`'s too)."""
        urls = addresses(self._urls())
        if not urls:
            return {"sent": False, "addresses": 0, "reasons": ["notify.urls is not set"], "hint": NO_ADDRESS_HINT}
        try:
            sent, reasons = await asyncio.to_thread(self._send_now, urls, notice)
        except WardianError as missing:
            log.warning("%s", missing.message)
            raise
        if not sent:
            log.warning("a notice did not reach every address in notify.urls: %s", "; ".join(reasons))
        return {"sent": sent, "addresses": len(urls), "reasons": reasons, "hint": None if sent else FAILED_HINT}

    def _send_now(self, urls: list[str], notice: Notice) -> tuple[bool, list[str]]:
        with self._one_at_a_time:
            return send_to_addresses(urls, notice)

    async def _send_in_background(self, notice: Notice) -> None:
        if not addresses(self._urls()):
            return
        with contextlib.suppress(WardianError):  # logged by send; the host goes on without the extra
            await self.send(notice)

    async def close(self) -> None:
        await asyncio.gather(*self._sending, return_exceptions=True)
