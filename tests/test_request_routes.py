"""The control server's one table of request kinds: each kind's parameters model beside the
handler that takes it validated, held to the wire's catalogue the CLI is checked against."""

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from wardian_core.control.models import REQUEST_PARAMS, CloneParams
from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_host.daemon.control_server import ControlServer, RequestContext, Route
from wardian_host.daemon.handlers import build_handlers
from wardian_host.daemon.inbox_handlers import build_inbox_handlers
from wardian_host.daemon.web_handlers import WebView


def _host_routes(home: Path) -> dict[str, Route[Any]]:
    """The host's table; building it only closes over the parts, so stand-ins do."""
    unused: Any = None
    web_view = WebView(home, unused, list, unused, unused, unused)  # its routes only close over it
    return web_view.routes(
        build_handlers(
            registry=unused,
            lifecycle=SimpleNamespace(home=home),  # type: ignore[arg-type]  # only its home is read here
            sender=unused,
            desk=unused,
            workflows=unused,
            terminals=unused,
            describe_host=dict,
            request_stop=lambda keep_agents: None,
            mcp_readiness=unused,
        )
        | build_inbox_handlers(unused, unused, unused, unused)  # merged in as the host does
    )


def test_every_wire_kind_has_a_route_with_its_own_parameters_model(tmp_path: Path) -> None:
    routes = _host_routes(tmp_path)
    assert {kind: route.params for kind, route in routes.items()} == REQUEST_PARAMS


def _answer(home: Path, routes: dict[str, Route[Any]], frame: dict[str, Any]) -> dict[str, Any]:
    async def scenario() -> dict[str, Any]:
        server = ControlServer(home, routes)
        await server.start()
        try:
            reader, writer = await asyncio.open_unix_connection(str(server.path))
            writer.write(json.dumps(frame).encode() + b"\n")
            answer: dict[str, Any] = json.loads(await reader.readline())
            writer.close()
            return answer
        finally:
            await server.close()

    return asyncio.run(scenario())


def test_a_handler_gets_its_model_validated_with_defaults(wardian_home: Path) -> None:
    seen: list[CloneParams] = []

    async def clone(params: CloneParams, _: RequestContext) -> dict[str, Any]:
        seen.append(params)
        return {"cloned": params.target}

    frame = {"v": PROTOCOL_VERSION, "id": 7, "kind": "agent.clone", "params": {"target": "alice"}}
    answer = _answer(wardian_home, {"agent.clone": Route(CloneParams, clone)}, frame)
    assert answer == {"v": PROTOCOL_VERSION, "id": 7, "ok": True, "result": {"cloned": "alice"}}
    assert seen == [CloneParams(target="alice", name=None)]


def test_parameters_its_model_refuses_never_reach_the_handler(wardian_home: Path) -> None:
    async def clone(params: CloneParams, _: RequestContext) -> dict[str, Any]:
        raise AssertionError(f"reached with {params}")

    frame = {"v": PROTOCOL_VERSION, "id": 8, "kind": "agent.clone", "params": {"target": "", "colour": "red"}}
    answer = _answer(wardian_home, {"agent.clone": Route(CloneParams, clone)}, frame)
    assert answer["ok"] is False and answer["id"] == 8
    assert answer["error"]["code"] == "bad_request"
    assert "target" in answer["error"]["message"]
