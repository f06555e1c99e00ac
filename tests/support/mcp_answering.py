"""An agent that answers `wardian ask` through the MCP tool `reply`, from a `wardian mcp` it
starts as its own child, as an agent's CLI does: Wardian's plumbing of the caller's identity,
never a provider's behaviour.

`python mcp_answering.py OUT` prints a prompt and reads what is typed; for each request id
(`ask_` + 16 hex) it calls `whoami`, then `reply` with `answered via mcp`, and appends each
answer as a JSON line to OUT. `python mcp_answering.py OUT REQUEST-ID` replies to that id at
once and ends.
"""

import json
import sys
from pathlib import Path

import anyio
from mcp_client import call, mcp_session

from wardian_core.asks import REQUEST_ID_PATTERN

READY_PROMPT = "mcp-answering> "


async def answer(out: Path, request_id: str) -> None:
    async with mcp_session() as session:
        for tool, arguments in (
            ("whoami", {}),
            ("reply", {"request_id": request_id, "status": "done", "message": "answered via mcp"}),
        ):
            is_error, answered = await call(session, tool, arguments)
            with out.open("a", encoding="utf-8") as lines:
                lines.write(json.dumps({"tool": tool, "is_error": is_error, "answer": answered}) + "\n")
    print(f"replied {request_id}", flush=True)


def main() -> None:
    out = Path(sys.argv[1])
    if len(sys.argv) > 2:
        anyio.run(answer, out, sys.argv[2])
        return
    answered: set[str] = set()
    print(READY_PROMPT, end="", flush=True)
    for line in sys.stdin:
        for request_id in REQUEST_ID_PATTERN.findall(line):
            if request_id not in answered:  # the instruction names the id twice
                answered.add(request_id)
                anyio.run(answer, out, request_id)
        print(READY_PROMPT, end="", flush=True)


if __name__ == "__main__":
    main()
