"""Replaying an agent's recording in the web view: `GET /replay?agent=UUID` (the page, with the
vendored asciinema-player) and `GET /api/recording?agent=UUID` (the recording as asciicast v2,
what `wardian agent recording` writes). Behind the view's gate like every other address.

The export reads the agent's folder in a thread: a recording of tens of MiB must not hold the
host's loop, which serves every agent."""

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

from wardian_core import asciicast, paths
from wardian_core import recording_format as fmt
from wardian_core.errors import WardianError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STATIC = Path(__file__).parent / "static"
# An agent's uuid as the host names its folder: nothing else may reach the file system.
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _refusal(error: WardianError, status: int) -> web.Response:
    return web.json_response(error.envelope(), status=status)


def _exported(folder: Path) -> str:
    return "".join(line + "\n" for line in asciicast.lines(fmt.read(folder)))


def recording_route(home: Path) -> Handler:
    async def recording(request: web.Request) -> web.StreamResponse:
        uuid = request.query.get("agent", "")
        if not _UUID.match(uuid):
            error = WardianError("usage", f"{uuid!r} is no agent's uuid", "Open the replay from the agent's tile.")
            return _refusal(error, 400)
        folder = fmt.folder(paths.agent_dir(home, uuid))
        if not fmt.segments(folder):
            error = WardianError(
                "not_found",
                "this agent has no recording",
                "It records from its next launch, unless it was spawned with --no-recording or "
                "recording.enabled is false.",
                {"agent": uuid},
            )
            return _refusal(error, 404)
        text = await asyncio.to_thread(_exported, folder)
        return web.Response(text=text, content_type="application/x-asciicast", headers={"Cache-Control": "no-store"})

    return recording


async def replay_page(_: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "replay.html", headers={"Cache-Control": "no-store"})


def add_replay_routes(app: web.Application, home: Path) -> None:
    app.router.add_get("/replay", replay_page)
    app.router.add_get("/api/recording", recording_route(home))
