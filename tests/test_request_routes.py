"""The control server's one table of request kinds: each kind's parameters model beside the
handler that takes it validated, held to the wire's catalogue the CLI is checked against."""

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, get_type_hints

from wardian_core.control.answers import REQUEST_ANSWERS, HostStopAnswer
from wardian_core.control.models import REQUEST_PARAMS, CloneParams, HostStopParams
from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_host.daemon.budget_handlers import build_budget_handlers
from wardian_host.daemon.control_server import ControlServer, RequestContext, Route
from wardian_host.daemon.handlers import build_handlers
from wardian_host.daemon.inbox_handlers import build_inbox_handlers
from wardian_host.daemon.limit_handlers import build_limit_handlers
from wardian_host.daemon.web_handlers import WebView


def _host_routes(home: Path) -> dict[str, Route[Any]]:
    """The host's table; building it only closes over the parts, so stand-ins do."""
    unused: Any = None
    web_view = WebView(home, unused, list, unused, unused, unused)  # its routes only close over it
    handlers = build_handlers(
        registry=unused,
        lifecycle=SimpleNamespace(home=home),  # type: ignore[arg-type]  # only its home is read here
        sender=unused,
        desk=unused,
        workflows=unused,
        terminals=unused,
        describe_host=unused,
        request_stop=lambda keep_agents: None,
        mcp_readiness=unused,
    )
    # Merged in as the host does.
    handlers |= build_inbox_handlers(unused, unused, unused, unused)
    handlers |= build_budget_handlers(unused, unused, handlers["agent.spawn"])
    handlers |= build_limit_handlers(unused, unused)
    return web_view.routes(handlers)


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


# Routes whose handlers answer plain data, each with why it must stay so.
ANSWERED_AS_PLAIN_DATA: dict[str, str] = {
    "mcp.session": "a stream of MCP's own JSON-RPC messages, not one answer of Wardian's",
}


def test_every_route_has_an_answer_model_or_says_why_not_yet(tmp_path: Path) -> None:
    routes = set(_host_routes(tmp_path))
    assert set(REQUEST_ANSWERS) <= routes, "an answer model for no route"
    assert not set(REQUEST_ANSWERS) & set(ANSWERED_AS_PLAIN_DATA), "a route both typed and listed as not"
    assert routes <= set(REQUEST_ANSWERS) | set(ANSWERED_AS_PLAIN_DATA), "a new route needs an answer model"


def test_an_answer_model_is_dumped_at_the_door_as_the_json_it_held(wardian_home: Path) -> None:
    stops: list[bool] = []

    async def host_stop(params: HostStopParams, _: RequestContext) -> HostStopAnswer:
        stops.append(params.keep_agents)
        return HostStopAnswer(stopping=True, pid=41, agents_kept=params.keep_agents)

    routes = {"host.stop": Route(HostStopParams, host_stop)}
    frame = {"v": PROTOCOL_VERSION, "id": 3, "kind": "host.stop", "params": {"keep_agents": True}}
    answer = _answer(wardian_home, routes, frame)
    assert answer == {
        "v": PROTOCOL_VERSION,
        "id": 3,
        "ok": True,
        "result": {"stopping": True, "pid": 41, "agents_kept": True},
    }
    assert stops == [True]


def test_each_typed_route_is_typed_with_its_own_answer_model(tmp_path: Path) -> None:
    routes = _host_routes(tmp_path)
    returns = {kind: get_type_hints(routes[kind].handler)["return"] for kind in REQUEST_ANSWERS}
    assert returns == REQUEST_ANSWERS
