"""`wardian mcp`: `list_agents` through a running MCP session beside `wardian agent list` as a
process, and the server's start-up to its first answer beside the import floor.

Run with the interpreter the `wardian` command is installed in:
    .venv/bin/python benchmarks/mcp.py [--rounds N]

Floors, measured in the same run: `python -c pass`, and the import of the SDK's server and
stdio transport (what a server on the SDK cannot avoid). The start-up is the time from spawning
`wardian mcp` to the answer of `initialize`, as a CLI that starts it sees it; targets are ratios
to the import floor. No host runs: both paths read state.db, as `agent list` does then.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# This file is named mcp.py, and a script's folder comes first on sys.path: it goes last, so
# `import mcp` is the SDK's and cli_startup is still found.
BENCHMARKS = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != BENCHMARKS] + [str(BENCHMARKS)]
sys.path.insert(0, str(BENCHMARKS.parent / "tests" / "support"))

import anyio  # noqa: E402 - after sys.path is set
from cli_startup import AGENTS, WARDIAN, seed_home  # noqa: E402
from mcp_client import mcp_session, server_parameters  # noqa: E402

PYTHON = sys.executable
IMPORT_FLOOR = [PYTHON, "-c", "import mcp.server.lowlevel, mcp.server.stdio"]
# Start-up to the first answer, as a ratio to importing the SDK: the server adds little of its own.
STARTUP_TARGET = 1.3
# A call in a running session against a whole process: a session must be the cheaper way.
LIST_TARGET = 0.5


def time_process(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


async def first_answer() -> float:
    """Seconds from spawning `wardian mcp` to the answer of its `initialize`."""
    from mcp import ClientSession, stdio_client

    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with stdio_client(server_parameters(), errlog=quiet) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return time.perf_counter() - started


async def list_calls(rounds: int) -> list[float]:
    """Seconds per `list_agents` call in one running session (after one call to warm it)."""
    times = []
    async with mcp_session() as session:
        await session.call_tool("list_agents", {"scope": "all"})
        for _ in range(rounds):
            started = time.perf_counter()
            result = await session.call_tool("list_agents", {"scope": "all"})
            times.append(time.perf_counter() - started)
            assert not result.is_error, result
    return times


def report(label: str, times: list[float], floor: float | None = None, target: float | None = None) -> None:
    median = statistics.median(times)
    line = f"{label:<58} median {median * 1000:8.1f} ms  min {min(times) * 1000:8.1f} ms"
    if floor is not None:
        line += f"  ratio {median / floor:5.2f}" + (f" (target <= {target})" if target is not None else "")
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        seed_home(home)
        os.environ["WARDIAN_HOME"] = str(home)
        floor, imports, startups, cli = [], [], [], []
        for _ in range(rounds):  # interleaved, so machine noise hits all alike
            floor.append(time_process([PYTHON, "-c", "pass"]))
            imports.append(time_process(IMPORT_FLOOR))
            startups.append(anyio.run(first_answer))
            cli.append(time_process([WARDIAN, "agent", "list", "--scope", "all"]))
        calls = anyio.run(list_calls, rounds * 3)
    import_floor = statistics.median(imports)
    report("python -c pass", floor)
    report("import mcp.server.lowlevel, mcp.server.stdio (floor)", imports)
    report("wardian mcp: spawn to the answer of initialize", startups, import_floor, STARTUP_TARGET)
    report(f"wardian agent list --scope all, a process ({AGENTS} agents)", cli)
    report(f"list_agents in a running MCP session ({AGENTS} agents)", calls, statistics.median(cli), LIST_TARGET)


if __name__ == "__main__":
    main()
