"""WARDIAN_TRACE_PLUGINS=1: a line for every hook and parser call, with its provider and duration,
to stderr in a command and to the host's log in the host (tests/e2e/test_plugin_trace_log.py)."""

import importlib
import logging
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from wardian_core.errors import WardianError
from wardian_core.provider_models import PTY_SOURCE, LaunchConfig, SpawnContext
from wardian_host.providers.manager import Plugins, load_plugins
from wardian_host.providers.source_parser import SourceParser

sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

# The line's shape; tests/e2e/test_plugin_trace_log.py reads the host's log with it too.
TRACED = re.compile(r"plugin call: provider=(\S+) call=(\S+) ms=\d+\.\d{3} (ok|raised \w+)")


def context(tmp_path: Path, provider: str) -> SpawnContext:
    return SpawnContext(
        agent_uuid="11111111-1111-4111-8111-111111111111",
        agent_name="coder",
        class_name="Coder",
        provider=provider,
        workspace=tmp_path,
        wardian_home=tmp_path / "home",
        agent_dir=tmp_path / "home" / "agents" / "11111111-1111-4111-8111-111111111111",
        launch=LaunchConfig(extra_args=["bash"]),
    )


def traced_calls(text: str) -> list[tuple[str, str, str]]:
    return [(match[1], match[2], match[3]) for match in TRACED.finditer(text)]


def test_every_hook_and_parser_call_is_traced_with_its_provider(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="wardian.plugins.trace")
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic", "WARDIAN_TRACE_PLUGINS": "1"})
    ctx = context(tmp_path, "generic")
    plugins.build_argv("generic", ctx=ctx)
    SourceParser(plugins, "generic", PTY_SOURCE).parse(ctx, b"$ ")
    assert traced_calls(caplog.text) == [
        ("generic", "provider_info", "ok"),
        ("generic", "build_argv", "ok"),
        ("generic", "parse_output", "ok"),
        ("generic", "parser.feed", "ok"),
    ]


def test_a_raising_hook_is_traced_as_raised(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    register_test_plugins()  # the test packages' sources on sys.path
    caplog.set_level(logging.INFO, logger="wardian.plugins.trace")
    plugins = Plugins(trace=True)
    plugins.register(importlib.import_module("wardian_broken.raising"), "raising")
    with pytest.raises(WardianError):
        plugins.build_argv("raising", ctx=context(tmp_path, "raising"))
    assert traced_calls(caplog.text)[-1][:2] == ("raising", "build_argv")
    assert traced_calls(caplog.text)[-1][2].startswith("raised ")


def test_untraced_by_default(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="wardian.plugins.trace")
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic"})
    plugins.build_argv("generic", ctx=context(tmp_path, "generic"))
    assert traced_calls(caplog.text) == []


def test_a_command_traces_to_stderr(run_wardian, tmp_path: Path) -> None:
    recording = tmp_path / "shell.raw"
    recording.write_bytes(b"$ echo hi\r\nhi\r\n$ ")
    replayed = run_wardian("providers", "replay", "generic", str(recording), env={"WARDIAN_TRACE_PLUGINS": "1"})
    assert replayed.returncode == 0, replayed.stderr
    calls = {(provider, call) for provider, call, _ in traced_calls(replayed.stderr)}
    assert {("generic", "parse_output"), ("generic", "parser.feed")} <= calls
    assert "plugin call" not in replayed.stdout  # the JSON lines stay clean
