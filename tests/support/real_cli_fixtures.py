"""Fixtures that run the real provider CLIs against the loopback model server.

Each CLI fixture yields a `RealCli`: the installed executable, an isolated home under
`tmp_path` configured for a loopback run (the model server as the API; telemetry, update
checks and sign-in off), a workspace to run in, and helpers to run it
headless or in a pseudo-terminal. The plugin guarantees these only run inside a network
namespace that has nothing but loopback.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from model_server import ModelServer
from ptyprocess import PtyProcess
from script_modules import load_script

from wardian_core.parsing.screen import ScreenModel

# Where the pinned CLIs are installed, and which: the install script's own answers.
install_clis = load_script("install_clis")
# `dev.py drift` points the suite at a scratch install of the newest releases.
DRIFT_DIR_VARIABLE = "WARDIAN_REAL_CLI_DIR"
DRIFT_DIR = os.environ.get(DRIFT_DIR_VARIABLE)
INSTALL_COMMAND = "python3 scripts/install_clis.py"
SKIP_VARIABLE = "WARDIAN_SKIP_REAL_CLI"

# Variables a developer's shell or CI may carry that would point a CLI (or Wardian) elsewhere.
CLEARED_PREFIXES = ("WARDIAN_", "ANTHROPIC_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "OPENCODE_", "CLAUDE_")
MOCK_API_KEY = "sk-mock-0123456789abcdefghijklmnopqrstuvwxyz"


class PtySession:
    """A TUI in a 120x40 pseudo-terminal, read until a marker shows or a deadline passes.

    Reading the terminal is the event we wait on; there are no fixed sleeps. It also answers
    the terminal queries TUIs send at start-up (cursor position, device attributes, colours):
    Codex 0.169 (crossterm) gives up on an unanswered cursor query and OpenCode 1.18 waits for
    its capability probes.
    """

    def __init__(self, process: PtyProcess) -> None:
        self.process = process
        self.raw = bytearray()
        self._answered_up_to = 0

    @classmethod
    def spawn(cls, argv: list[str], cwd: Path, env: dict[str, str]) -> PtySession:
        return cls(PtyProcess.spawn(argv, cwd=str(cwd), env=env, dimensions=(40, 120)))

    def text(self, start: int = 0) -> str:
        """The output since byte `start` with escape sequences removed."""
        return strip_ansi(bytes(self.raw[start:]).decode("utf-8", "replace"))

    def expect(self, *markers: str, timeout: float = 60, start: int = 0) -> str:
        """Read until one of `markers` appears (spaces ignored: TUIs move the cursor instead).

        A marker counts in the stream since `start`, or on a screen that what was drawn since
        `start` makes: a TUI may draw a line in pieces with a spinner's cells between them."""
        wanted = [_squeeze(marker) for marker in markers]
        deadline = time.monotonic() + timeout
        drawn, fed = ScreenModel(rows=40, cols=120), start
        while True:
            drawn.feed(bytes(self.raw[fed:]))
            fed = len(self.raw)
            stream, screen = _squeeze(self.text(start)), _squeeze("".join(drawn.rows()))
            for marker, squeezed in zip(markers, wanted, strict=True):
                if squeezed in stream or squeezed in screen:
                    return marker
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._read(remaining):
                tail = self.text(start)[-3000:]
                raise AssertionError(
                    f"none of {markers!r} appeared within {timeout} s "
                    f"(alive={self.process.isalive()}); screen tail:\n{tail}"
                )

    def send(self, data: str) -> None:
        self.process.write(data.encode())

    def _read(self, timeout: float) -> bool:
        """Read what is available; False once the process has closed the terminal."""
        ready, _, _ = select.select([self.process.fd], [], [], min(timeout, 1.0))
        if ready:
            try:
                chunk = os.read(self.process.fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            self.raw += chunk
            self._answer_queries()
        return True

    def _answer_queries(self) -> None:
        pending = bytes(self.raw[self._answered_up_to :])
        for query, reply in _TERMINAL_REPLIES:
            for _ in range(pending.count(query)):
                self.process.write(reply)
        # A query cut in two by the read is answered on the next read: keep its start unscanned.
        self._answered_up_to = len(self.raw)
        tail_escape = pending.rfind(b"\x1b", max(0, len(pending) - 6))
        if tail_escape >= 0:
            tail = pending[tail_escape:]
            if not any(tail.startswith(query) for query, _ in _TERMINAL_REPLIES):
                self._answered_up_to -= len(tail)

    def close(self) -> None:
        """End the TUI for certain: ptyprocess's own terminate gives a killed child 0.1 s to be
        reaped and then fails, which a loaded machine missed (CI: OpenCode 1.18)."""
        if self.process.isalive():
            self.process.kill(signal.SIGKILL)
            self.process.wait()
        self.process.close(force=True)


# (query, reply) pairs for the terminal queries the four TUIs send.
_TERMINAL_REPLIES = [
    (b"\x1b[6n", b"\x1b[1;1R"),  # cursor position
    (b"\x1b[c", b"\x1b[?62;22c"),  # primary device attributes
    (b"\x1b[0c", b"\x1b[?62;22c"),
    (b"\x1b]10;?", b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"),  # foreground colour
    (b"\x1b]11;?", b"\x1b]11;rgb:0000/0000/0000\x1b\\"),  # background colour
]
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def _squeeze(text: str) -> str:
    return "".join(text.split())


@dataclass
class RealCli:
    """One provider CLI ready to run: executable, isolated home, workspace and environment."""

    name: str
    executable: Path
    home: Path
    workspace: Path
    env: dict[str, str]
    server: ModelServer
    pty_sessions: list[PtySession] = field(default_factory=list)

    # A bound for a hung CLI, not a speed target: four test workers on two cores can start four
    # OpenCode runs at once, each 12 s alone, and 90 s proved too short for them.
    def run(self, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        """Run headless with stdin closed, so a CLI that waits for input fails instead of hanging."""
        return subprocess.run(
            [str(self.executable), *args],
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def spawn(self, *args: str) -> PtySession:
        """Start the interactive TUI in a 120x40 pseudo-terminal; closed when the test ends."""
        session = PtySession.spawn([str(self.executable), *args], cwd=self.workspace, env=self.env)
        self.pty_sessions.append(session)
        return session

    def assert_only_model_server_was_called(self, model_calls_expected: bool = True) -> None:
        """The request log proves the CLI talked to the model server, and the namespace that
        it talked to nothing else: its only interface is loopback."""
        assert [name for _, name in socket.if_nameindex()] == ["lo"], "not in a loopback-only namespace"
        requests = self.server.requests
        if model_calls_expected:
            assert self.server.model_requests(), f"{self.name} never called the model server"
        unrouted = [f"{r.method} {r.path}" for r in requests if r.reply_status == 404]
        assert not unrouted, f"{self.name} called endpoints the model server does not speak: {unrouted}"

    def close(self) -> None:
        for session in self.pty_sessions:
            session.close()


@dataclass(frozen=True)
class PinnedCli:
    """One installed version of a CLI the suite runs against."""

    name: str
    version: str
    executable: Path
    # The current pin (the one recordings are made with), not an older supported one.
    current: bool = True


def pinned_clis(name: str) -> list[PinnedCli]:
    """Every version of `name` the suite runs: the pins of `scripts/provider_cli_pins.json` (the
    current one in the install folder, older ones under `versions/`), or the drift install."""
    pin = install_clis.PINS[name]
    if DRIFT_DIR:
        try:
            stamp = json.loads((Path(DRIFT_DIR) / install_clis.STAMP_NAME).read_text())
            version = stamp[pin["package"]]
        except (OSError, ValueError, KeyError):
            version = "newest"
        return [PinnedCli(name, version, install_clis.executable_path(name, Path(DRIFT_DIR)))]
    current = pin["versions"][0]
    return [
        PinnedCli(name, version, install_clis.pinned_executable(name, version), current=version == current)
        for version in pin["versions"]
    ]


def missing_install_message(name: str, executable: Path | None = None) -> str | None:
    """Why a CLI cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return (
            f"real_cli: node is not on PATH, so {name} cannot run. Install Node.js 20+ and run "
            f"`{INSTALL_COMMAND}`, or set {SKIP_VARIABLE}=1 to skip the real-CLI tests."
        )
    executable = executable or install_clis.executable_path(name)
    if not executable.exists():
        return (
            f"real_cli: {name} is not installed at {executable}. Run `{INSTALL_COMMAND}` "
            f"(needs npm and the registry), or set {SKIP_VARIABLE}=1 to skip the real-CLI tests."
        )
    return None


def isolated_environment(home: Path) -> dict[str, str]:
    """The inherited environment minus provider and Wardian variables, with HOME and XDG in `home`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(CLEARED_PREFIXES)}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local/state"),
        TERM="xterm-256color",
        LANG="C.UTF-8",
        NO_PROXY="*",
    )
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        Path(env[key]).mkdir(parents=True, exist_ok=True)
    for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        env.pop(key, None)
    return env


def configure_claude(home: Path, workspace: Path, base_url: str) -> dict[str, str]:
    config_dir = home / ".claude"
    config_dir.mkdir(parents=True)
    # Without these the TUI stops on onboarding, the API-key prompt and the trust dialog (2.1.197).
    state = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [MOCK_API_KEY[-20:]], "rejected": []},
        "projects": {str(workspace): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }
    (config_dir / ".claude.json").write_text(json.dumps(state, indent=2))
    return {
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": MOCK_API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def configure_codex(home: Path, workspace: Path, base_url: str) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    # `mock-model` is unknown on purpose: a known model opens a "try the new model" dialog that
    # eats the first prompt and rewrites this file (0.169.0). `wire_api = "chat"` is refused.
    (codex_home / "config.toml").write_text(f'''model = "mock-model"
model_provider = "mock"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.mock]
name = "Mock LLM"
base_url = "{base_url}/v1"
wire_api = "responses"
env_key = "MOCK_MODEL_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects."{workspace}"]
trust_level = "trusted"
''')
    return {"CODEX_HOME": str(codex_home), "MOCK_MODEL_API_KEY": MOCK_API_KEY}


def configure_gemini(home: Path, workspace: Path, base_url: str) -> dict[str, str]:
    settings_dir = home / ".gemini"
    settings_dir.mkdir(parents=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }
    (settings_dir / "settings.json").write_text(json.dumps(settings, indent=2))
    # Trusting the workspace here spares headless runs `--skip-trust` and the TUI its dialog.
    (settings_dir / "trustedFolders.json").write_text(json.dumps({str(workspace): "TRUST_FOLDER"}))
    return {
        "GEMINI_CLI_HOME": str(home),
        "GEMINI_API_KEY": MOCK_API_KEY,
        "GOOGLE_GEMINI_BASE_URL": base_url,
        # Gemini 0.61 otherwise re-launches itself under a new node to raise its heap limit.
        "GEMINI_CLI_NO_RELAUNCH": "1",
    }


def configure_opencode(home: Path, workspace: Path, base_url: str) -> dict[str, str]:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": "mock/mock-model",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "mock": {
                "npm": "@ai-sdk/openai-compatible",  # bundled in the 1.18 binary: nothing to download
                "name": "Mock LLM",
                "options": {"baseURL": f"{base_url}/v1", "apiKey": MOCK_API_KEY},
                "models": {"mock-model": {"name": "Mock Model"}},
            }
        },
    }
    config_file = home / "opencode.json"
    config_file.write_text(json.dumps(config, indent=2))
    return {
        "OPENCODE_CONFIG": str(config_file),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }


CONFIGURE = {
    "claude": configure_claude,
    "codex": configure_codex,
    "gemini": configure_gemini,
    "opencode": configure_opencode,
}


def make_real_cli(name: str, tmp_path: Path, server: ModelServer, pinned: PinnedCli | None = None) -> RealCli:
    executable = pinned.executable if pinned else install_clis.executable_path(name)
    problem = missing_install_message(name, executable)
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    home = tmp_path / "home"
    workspace = tmp_path / "proj"
    home.mkdir(exist_ok=True)
    workspace.mkdir()
    env = isolated_environment(home)
    env.update(CONFIGURE[name](home, workspace, server.base_url))
    # OpenCode 1.18 takes its project directory from $PWD, not from the process's cwd.
    env["PWD"] = str(workspace)
    return RealCli(name, executable, home, workspace, env, server)


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give the test its own HOME and XDG folders and drop inherited provider variables."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    for key in list(os.environ):
        if key.startswith(CLEARED_PREFIXES):
            monkeypatch.delenv(key)
    for key, value in isolated_environment(home).items():
        monkeypatch.setenv(key, value)
    return home


def pin_id(pin: PinnedCli) -> str:
    return f"{pin.name}-{pin.version}"


@contextlib.contextmanager
def running_cli(pin: PinnedCli, tmp_path: Path, server: ModelServer) -> Iterator[RealCli]:
    cli = make_real_cli(pin.name, tmp_path, server, pin)
    try:
        yield cli
    finally:
        cli.close()


def _cli_fixture(name: str):
    versions = pinned_clis(name)

    @pytest.fixture(name=f"{name}_cli", params=versions, ids=[pin_id(pin) for pin in versions])
    def fixture(
        request: pytest.FixtureRequest, tmp_path: Path, model_server: ModelServer, isolated_home: Path
    ) -> Iterator[RealCli]:
        with running_cli(request.param, tmp_path, model_server) as cli:
            yield cli

    fixture.__doc__ = f"The real `{name}` CLI (each pinned version) with an isolated home pointed at the model server."
    return fixture


claude_cli = _cli_fixture("claude")
codex_cli = _cli_fixture("codex")
gemini_cli = _cli_fixture("gemini")
opencode_cli = _cli_fixture("opencode")
