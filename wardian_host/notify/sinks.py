"""Sending notices out: to the Apprise addresses in settings.toml, and to observer plugins.

Apprise is an optional extra (`wardian[notify]`), imported only when a notice is sent to an
address; its senders block, so they run in a worker thread, never on the host's loop.
"""

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable
from typing import Any

from wardian_core.errors import WardianError
from wardian_core.notices import Notice

log = logging.getLogger(__name__)

PluginNotify = Callable[..., None]


def addresses(urls: str | None) -> list[str]:
    """The addresses of `notify.urls`: separated by spaces or commas."""
    return [url for url in re.split(r"[\s,]+", urls or "") if url]


def apprise_missing() -> WardianError:
    return WardianError(
        "not_supported",
        "notify.urls is set but Apprise is not installed",
        "Install the extra: `pip install 'wardian[notify]'`, then restart the host.",
    )


def send_to_addresses(urls: list[str], notice: Notice) -> bool:
    """Blocking: True when every address took the notice."""
    try:
        import apprise
    except ImportError:
        raise apprise_missing() from None
    sender = apprise.Apprise()
    for url in urls:
        sender.add(url)
    return bool(sender.notify(title=notice.title, body=notice.body))


class Sinks:
    def __init__(self, urls: str | None, plugin_notify: PluginNotify) -> None:
        self._urls = addresses(urls)
        self._plugin_notify = plugin_notify
        self._sending: set[asyncio.Task[Any]] = set()

    def told(self, notice: Notice) -> None:
        """A NoticeRules listener: plugins at once, the addresses in the background."""
        self._plugin_notify("notice_raised", notice=notice)
        if self._urls and notice.kind != "test":  # `notify test` sends its own and reports how it went
            task = asyncio.get_running_loop().create_task(self._send_in_background(notice))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def send(self, notice: Notice) -> dict[str, Any]:
        """Send to every address; the answer says whether they took it (`notify test`'s too)."""
        if not self._urls:
            return {"sent": False, "addresses": 0}
        try:
            sent = await asyncio.to_thread(send_to_addresses, self._urls, notice)
        except WardianError as missing:
            log.warning("%s", missing.message)
            raise
        if not sent:
            log.warning("a notice did not reach every address in notify.urls")
        return {"sent": sent, "addresses": len(self._urls)}

    async def _send_in_background(self, notice: Notice) -> None:
        with contextlib.suppress(WardianError):  # logged by send; the host goes on without the extra
            await self.send(notice)

    async def close(self) -> None:
        await asyncio.gather(*self._sending, return_exceptions=True)
