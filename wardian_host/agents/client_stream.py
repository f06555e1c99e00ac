"""What a streaming request (`agent watch --follow`, `agent attach`) needs of its client.

The control server's request context is one; the agents part names only this, so it
does not depend on the transport.
"""

import asyncio
from typing import Any, Protocol


class ClientStream(Protocol):
    # The client's further frames (attach input, a detach) or its leaving (EOF).
    reader: asyncio.StreamReader

    async def emit(self, item: dict[str, Any]) -> None:
        """Send one stream item to the client before the request's answer."""
