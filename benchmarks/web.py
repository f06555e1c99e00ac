"""Web view figures, each printed beside a floor measured in the same run.

    .venv/bin/python benchmarks/web.py [--rounds 200] [--cpu-seconds 10] [--flood-mb 100]

(a) a keystroke typed in the page's enlarged terminal to its echo drawn by xterm.js (target
    p99 <= 50 ms on loopback), beside the same keystroke through `agent attach`'s control
    socket from Python (no browser, no WebSocket);
(b) host CPU with 20 agents, 5 printing continuously, while a page shows all 20, beside the
    same agents unwatched (target <= 1.5x);
(c) host peak RSS while one agent writes 100 MB to a page's WebSocket that stopped reading,
    beside its RSS before (the bound: the agent's output buffer, the socket's send buffer and one
    frame per terminal; target < 150 MB as for a stalled attach);
(d) first page load to the live terminals of 20 agents drawn (target <= 1 s): with every tile
    on screen (a 1920x4000 window), and in a 1920x1080 window, where a tile's terminal is made
    only once it comes on screen; each beside the page and its WebSocket up with no terminal
    drawn, and beside xterm.js alone opening and drawing as many terminals of the tiles' size in
    the same browser (no host, no network);
(e) `wardian host stop` with 0, 1 and 5 pages open (target <= 2 s each), each beside the stop with
    no page (its floor), and `wardian host restart` with two pages open, until both are live again.

Chromium is Debian's (/usr/bin/chromium), driven by Playwright, as in the browser tests.
"""

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from browser import chromium_page

from wardian_core.control.client import ControlClient
from wardian_core.control.protocol import encode, request_frame

WARDIAN = str(Path(sys.executable).parent / "wardian")
PRINTER = ["bash", "-c", 'while :; do echo "printing $RANDOM $RANDOM $RANDOM"; sleep 0.01; done']


class Bench:
    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.workspace = root / "workspace"
        self.workspace.mkdir(parents=True)
        (root / "user").mkdir()
        kept = {key: value for key, value in os.environ.items() if not key.startswith("WARDIAN_")}
        self.env = kept | {"WARDIAN_HOME": str(self.home), "HOME": str(root / "user")}

    def cli(self, *args: str) -> Any:
        done = subprocess.run([WARDIAN, *args], env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"wardian {' '.join(args)} failed: {done.stderr}")
        return json.loads(done.stdout) if done.stdout.strip() else {}

    def request(self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = 120) -> Any:
        with ControlClient.connect(self.home) as client:
            return client.request(kind, params, timeout)

    def spawn(self, name: str, command: list[str]) -> str:
        params = {"provider": "generic", "class": "Bench", "name": name, "workspace": str(self.workspace)}
        agent = self.request("agent.spawn", params | {"launch_config": {"extra_args": command}})
        return str(agent["uuid"])

    def login(self) -> str:
        return str(self.cli("web")["web"]["url"])

    def host(self) -> psutil.Process:
        return psutil.Process(int(self.request("host.status")["pid"]))


def percentile_ms(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def line(label: str, value: str, floor: str, verdict: str) -> None:
    print(f"  {label:<52} {value:>14}   floor {floor:<26} {verdict}")


KEYSTROKES = """async ([uuid, rounds]) => {
  const tile = window.wardianView.tiles.get(uuid);
  const times = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 40 === 39) { tile.term.input("\\r"); await new Promise((r) => setTimeout(r, 50)); continue; }
    const before = tile.term.buffer.active.cursorX;
    const started = performance.now();
    await new Promise((resolve) => {
      const drawn = tile.term.onRender(() => {
        if (tile.term.buffer.active.cursorX !== before) { drawn.dispose(); resolve(); }
      });
      tile.term.input(String.fromCharCode(97 + (round % 26)));
    });
    times.push(performance.now() - started);
  }
  return times;
}"""


def attach_keystrokes(bench: Bench, name: str, rounds: int) -> list[float]:
    """The floor: a key through the control socket's attach, until the PTY's echo comes back."""
    with ControlClient.connect(bench.home) as client:
        sock = client.raw_socket()
        sock.sendall(encode(request_frame(1, "agent.attach", {"target": name, "read_only": False})))
        reader = sock.makefile("rb")
        reader.readline()  # the attach's recent output
        times = []
        for round_number in range(rounds):
            key = chr(97 + round_number % 26).encode() if round_number % 40 != 39 else b"\r"
            started = time.perf_counter()
            frame = json.dumps({"input": base64.b64encode(key).decode()}).encode() + b"\n"
            sock.sendall(frame)
            while key not in base64.b64decode(json.loads(reader.readline())["stream"].get("output", "")):
                pass
            if key != b"\r":
                times.append((time.perf_counter() - started) * 1000)
        sock.sendall(b'{"detach": true}\n')
    return times


def keystrokes(bench: Bench, rounds: int) -> None:
    print("(a) keystroke in the page to its echo drawn")
    uuid = bench.spawn("typist", ["cat"])
    bench.request("agent.wait", {"target": "typist", "until": "idle", "timeout": 60})
    floor = attach_keystrokes(bench, "typist", rounds)
    with chromium_page() as page:
        page.goto(bench.login())
        page.wait_for_selector(f"#agent-{uuid} .xterm-rows")
        page.click(f"#agent-{uuid} .terminal-box")
        page.wait_for_selector("#enlarged:not([hidden])")
        page.wait_for_timeout(500)  # the typing attach answers its recent output first
        times = page.evaluate(KEYSTROKES, [uuid, rounds])
    p99 = percentile_ms(times, 0.99)
    line(
        "keystroke -> echo drawn, p50 / p99",
        f"{statistics.median(times):.1f} / {p99:.1f} ms",
        f"{statistics.median(floor):.1f} / {percentile_ms(floor, 0.99):.1f} ms attach",
        "ok (p99 <= 50 ms)" if p99 <= 50 else "OVER TARGET",
    )
    bench.request("agent.kill", {"target": "typist"})


def cpu_seconds(process: psutil.Process, seconds: float) -> float:
    before = process.cpu_times()
    time.sleep(seconds)
    after = process.cpu_times()
    return (after.user + after.system) - (before.user + before.system)


def watched_cpu(bench: Bench, seconds: float) -> None:
    print("(b) 20 agents, 5 printing: host CPU with a page watching all 20")
    for index in range(15):
        bench.spawn(f"quiet-{index}", ["cat"])
    uuids = [bench.spawn(f"printer-{index}", PRINTER) for index in range(5)]
    host = bench.host()
    time.sleep(2)  # the agents started; their start-up is not what is measured
    unwatched = cpu_seconds(host, seconds)
    with chromium_page(1920, 4000) as page:  # all 20 tiles in view, so all are drawn
        page.goto(bench.login())
        page.wait_for_function(
            "(uuids) => uuids.every((u) => document.querySelector(`#agent-${u} .xterm-rows`)?.textContent"
            ".includes('printing'))",
            arg=uuids,
        )
        watched = cpu_seconds(host, seconds)
    ratio = watched / unwatched
    line(
        f"host CPU over {seconds:.0f} s, watched",
        f"{watched / seconds * 100:.1f} %",
        f"{unwatched / seconds * 100:.1f} % unwatched",
        f"{ratio:.2f}x " + ("ok (<= 1.5x)" if ratio <= 1.5 else "OVER TARGET"),
    )
    for index in range(15):
        bench.request("agent.kill", {"target": f"quiet-{index}"})
    for index in range(5):
        bench.request("agent.kill", {"target": f"printer-{index}"})


async def _stalled_page(bench: Bench, uuid: str, opened: threading.Event, done: threading.Event) -> None:
    """A page's WebSocket that asks for the agent's terminal, then never reads again."""
    url = bench.login()
    base = url.split("/?")[0]
    async with aiohttp.ClientSession() as session:
        async with session.get(url, allow_redirects=False) as login:
            cookie = login.cookies["wardian_web"].value
        headers = {"Origin": base, "Cookie": f"wardian_web={cookie}"}
        async with session.ws_connect(f"{base}/ws", headers=headers, max_msg_size=0) as socket:
            await socket.receive()  # the state
            await socket.send_str(json.dumps({"op": "open", "agent": uuid}))
            transport = socket._response.connection.transport  # type: ignore[union-attr]
            transport.pause_reading()  # the tab stops reading: the host's sends back up
            opened.set()
            await asyncio.to_thread(done.wait)


def _peak_rss(process: psutil.Process, stop: threading.Event, peak: list[float]) -> None:
    while not stop.wait(0.02):
        peak[0] = max(peak[0], process.memory_info().rss / 2**20)


def stalled_page(bench: Bench, megabytes: int) -> None:
    print(f"(c) one agent writing {megabytes} MB to a page that stopped reading")
    size = megabytes * 1_000_000
    uuid = bench.spawn("flood", ["sh", "-c", f"read go; head -c {size} /dev/zero | tr '\\0' 'f'; echo; exit 0"])
    bench.request("agent.wait", {"target": "flood", "until": "idle", "timeout": 60})
    host = bench.host()
    before = host.memory_info().rss / 2**20
    opened, done = threading.Event(), threading.Event()
    page = threading.Thread(target=asyncio.run, args=(_stalled_page(bench, uuid, opened, done),))
    page.start()
    opened.wait(60)
    peak, stop = [before], threading.Event()
    sampler = threading.Thread(target=_peak_rss, args=(host, stop, peak))
    sampler.start()
    bench.request("send", {"to": "flood", "text": "go"})
    bench.request("agent.wait", {"target": "flood", "until": "off", "timeout": 600}, timeout=660)
    stop.set()
    sampler.join()
    done.set()
    page.join()
    line(
        "host peak RSS, a page that stopped reading",
        f"{peak[0]:.1f} MB",
        f"{before:.1f} MB before the flood",
        "ok (< 150 MB)" if peak[0] < 150 else "OVER TARGET",
    )


ON_SCREEN_DRAWN = """(uuids) => {
  const boxes = uuids.map((u) => document.querySelector(`#agent-${u} .terminal-box`));
  if (boxes.some((box) => !box)) return false;
  const shown = boxes.map((box, i) => [box, i]).filter(([box]) => box.getBoundingClientRect().top < innerHeight);
  return shown.every(([box, i]) => box.querySelector('.xterm-rows')?.textContent.includes(`drawn-${i}`))
    ? shown.length : false;
}"""


def first_load(bench: Bench) -> None:
    print("(d) first page load to the tiles' live terminals drawn (20 agents)")
    uuids = [bench.spawn(f"ready-{index}", ["bash", "-c", f"echo drawn-{index}; exec cat"]) for index in range(20)]
    for index in range(20):
        bench.request("agent.wait", {"target": f"ready-{index}", "until": "idle", "timeout": 60})
    for width, height in ((1920, 4000), (1920, 1080)):
        with chromium_page(width, height) as page:
            page.goto(bench.login())  # the cookie; the measured loads below start from it
            page.wait_for_function(ON_SCREEN_DRAWN, arg=uuids)
            url = page.url
            loads, floors, shown = [], [], 0
            for _ in range(5):
                started = time.perf_counter()
                page.goto(url)
                page.wait_for_function("document.getElementById('connection').textContent === 'live'")
                floors.append(time.perf_counter() - started)
                shown = page.wait_for_function(ON_SCREEN_DRAWN, arg=uuids, polling="raf").json_value()
                loads.append(time.perf_counter() - started)
            bare = bare_terminals(page, shown)
        worst = max(loads)
        line(
            f"{width}x{height}: load to {shown} on-screen terminals drawn, median / worst",
            f"{statistics.median(loads) * 1000:.0f} / {worst * 1000:.0f} ms",
            f"{statistics.median(floors) * 1000:.0f} ms page and socket up",
            "ok (<= 1 s)" if worst <= 1 else "OVER TARGET",
        )
        line(f"  {shown} bare xterm.js terminals opened and drawn, no host", "", f"{bare:.0f} ms same browser", "")
    for index in range(20):
        bench.request("agent.kill", {"target": f"ready-{index}"})


XTERM = Path(__file__).resolve().parents[1] / "wardian_host" / "web" / "static" / "vendor" / "xterm"
BARE_TERMINALS = """async (count) => {
  const started = performance.now();
  const terms = [];
  for (let index = 0; index < count; index++) {
    const box = document.createElement("div");
    box.style.height = "190px";
    document.body.append(box);
    const term = new Terminal({ rows: 23, cols: 110, fontSize: 7, disableStdin: true, scrollback: 500 });
    term.loadAddon(new FitAddon.FitAddon());
    term.open(box);
    term.write(`drawn-${index}`);
    terms.push(box);
  }
  const drawn = () => terms.every((box, i) => box.querySelector(".xterm-rows")?.textContent.includes(`drawn-${i}`));
  while (!drawn()) await new Promise((resolve) => requestAnimationFrame(resolve));
  return performance.now() - started;
}"""


def bare_terminals(page: Any, count: int) -> float:
    """The floor of (d): xterm.js itself opening `count` terminals of the tiles' size, until drawn."""
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=(XTERM / "xterm.js").read_text())
    page.add_script_tag(content=(XTERM / "addon-fit.js").read_text())
    page.add_style_tag(content=(XTERM / "xterm.css").read_text())
    return float(page.evaluate(BARE_TERMINALS, count))


def timed_cli(bench: Bench, *args: str) -> float:
    started = time.perf_counter()
    bench.cli(*args)
    return time.perf_counter() - started


def stop_with_pages(bench: Bench) -> None:
    print("(e) host stop and restart with pages open")
    bench.spawn("stopper", ["bash", "--norc"])
    figures: dict[int, float] = {}
    for count in (0, 1, 5):
        url = bench.login()  # starts the host again after the previous round's stop
        with chromium_page() as first:
            pages = [first] + [first.context.new_page() for _ in range(count - 1)] if count else []
            for index, page in enumerate(pages):
                page.goto(url if index == 0 else url.split("?")[0])
                page.wait_for_function("document.getElementById('connection').textContent === 'live'")
            if not count:
                first.goto("about:blank")
            figures[count] = timed_cli(bench, "host", "stop")
    for count, seconds in figures.items():
        verdict = "ok (<= 2 s)" if seconds <= 2 else "OVER TARGET"
        floor = f"{figures[0] * 1000:.0f} ms no page"
        line(f"host stop, {count} page(s) open", f"{seconds * 1000:.0f} ms", floor, verdict)
    bench.login()
    alone = timed_cli(bench, "host", "restart")  # the floor: a restart with no page open
    url = bench.login()
    with chromium_page() as first:
        pages = [first, first.context.new_page()]
        for index, page in enumerate(pages):
            page.goto(url if index == 0 else url.split("?")[0])
            page.wait_for_function("document.getElementById('connection').textContent === 'live'")
        started = time.perf_counter()
        bench.cli("host", "restart")
        for page in pages:  # each reconnects within its back-off (0.5 s, then 1 s)
            page.wait_for_function("document.getElementById('connection').textContent === 'live'")
        restart = time.perf_counter() - started
    verdict = "ok (<= 2 s)" if restart <= 2 else "OVER TARGET"
    floor = f"{alone * 1000:.0f} ms no page"
    line("host restart, 2 pages open, until live again", f"{restart * 1000:.0f} ms", floor, verdict)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--cpu-seconds", type=float, default=10.0)
    parser.add_argument("--flood-mb", type=int, default=100)
    parser.add_argument("--sections", default="abcde")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wardian-web-bench-") as scratch:
        bench = Bench(Path(scratch))
        bench.login()  # starts the host and the view
        try:
            if "a" in args.sections:
                keystrokes(bench, args.rounds)
            if "b" in args.sections:
                watched_cpu(bench, args.cpu_seconds)
            if "c" in args.sections:
                stalled_page(bench, args.flood_mb)
            if "d" in args.sections:
                first_load(bench)
            if "e" in args.sections:
                stop_with_pages(bench)
        finally:
            bench.cli("host", "stop")


if __name__ == "__main__":
    main()
