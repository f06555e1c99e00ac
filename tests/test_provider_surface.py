"""`wardian_core.provider` is the one namespace a provider imports, and the contract version covers
exactly it: the provider packages (their code and tests) and the example import nothing else of
Wardian's, and a change to the namespace's names fails here until the contract version is reviewed."""

import importlib
from pathlib import Path

import pytest
from provider_imports import NAMESPACE, in_namespace, wardian_imports

from wardian_core.provider import CONTRACT_VERSION

ROOT = Path(__file__).resolve().parents[1]
SUBMODULES = ("parsing", "home", "testing")
# What a provider's real-CLI tests drive beside the contract: they run a whole Wardian against the
# real CLI and look into its store, its processes and its typing (Wardian's own tests, kept beside
# the provider they exercise).
REAL_CLI_HARNESS = {
    "wardian_core.db.connection",
    "wardian_core.db.events",
    "wardian_host.terminal",
    "wardian_host.agents.confirming",
    "wardian_host.agents.typing_input",
}

# The names of each contract version's namespace. Changing the surface means reviewing the
# version: a name removed, renamed or changed incompatibly is a new version (and a new entry here).
SURFACE: dict[int, dict[str, tuple[str, ...]]] = {
    3: {
        NAMESPACE: (
            "APPROVAL_REASONS", "CONTRACT_VERSION", "DECLARATION_FILE", "EVENT_KINDS", "HEADLESS_SOURCE",
            "KNOWN_CAPABILITIES", "LIMIT_KINDS", "LOOPBACK_HOSTS", "PTY_SOURCE", "TURN_START_LIMIT_SECONDS",
            "ApprovalReason", "CatchesUp", "DialogKeys", "EventKind", "Evidence", "GoesQuiet", "HomePlan",
            "InputProfile", "LaunchConfig", "LaunchPlan", "LimitKind", "LimitReport", "LimitResume",
            "LooksAtScreens", "McpRegistration", "OpensSource", "OutputSource", "ParseResult", "ProviderEvent",
            "ProviderInfo", "ProviderSetting", "RateLimitWindow", "SourceKind", "SourceParser", "SpawnContext",
            "TestedVersions", "Tokens", "UsageReport", "WardianError", "declared_provider_info", "hookimpl",
        ),
        f"{NAMESPACE}.parsing": (
            "BoxReport", "EventParser", "EventStreamParser", "HookLogParser", "JsonLinesParser", "MarkerWatch",
            "ScreenParser", "ScreenSnapshot", "Settle", "SettledBox", "SourceReader", "TerminalText", "amount",
            "api_error_message", "count", "epoch_milliseconds", "epoch_time", "event", "hook_payload", "in_turn",
            "iso_time", "json_object", "less", "limit_event", "lines_newest_first", "newest_hook", "object_field",
            "parsers_by_source", "plus", "process_clock", "screen_text", "squeeze", "started_after", "strip_escapes",
            "text_field", "tool_data", "tool_summary", "usage_event",
        ),
        f"{NAMESPACE}.home": (
            "CLI_PID_FIELD", "SERVER_NAME", "SKILLS_FOLDER", "HookTarget", "SessionRecord", "assigned_skills",
            "bin_dir", "hook_target", "include_args", "include_root_folders", "install_recorder", "link", "link_skills",
            "linked_worktree", "ready_rule", "session_records", "stdio_server", "write_atomically",
            "write_if_changed",
        ),
        f"{NAMESPACE}.testing": (
            "Plugins", "ProviderConformance", "ScreenModel", "StatusCourse", "Terminal", "conformance_problems",
            "home_secret", "is_agent_token", "kinds", "mcp_registration", "next_status", "offset_after",
            "reap_home", "record_port", "repository_and_worktree", "rests_of", "run_conformance",
            "spawn_context",
        ),
    },
}  # fmt: skip


def _provider_sources() -> list[Path]:
    trees = [*ROOT.glob("providers/*/src"), *ROOT.glob("providers/*/tests")]
    trees += [ROOT / "tests" / "example_provider" / "src", ROOT / "tests" / "example_provider" / "tests"]
    return sorted(path for tree in trees for path in tree.rglob("*.py"))


def _allowed(path: Path, module: str) -> bool:
    if "src" in path.relative_to(ROOT).parts:
        # The testing kit imports the host: a provider never loads it at run time.
        return in_namespace(module) and module != f"{NAMESPACE}.testing"
    return in_namespace(module) or (path.name.startswith("test_real_cli") and module in REAL_CLI_HARNESS)


def test_providers_and_their_tests_import_only_the_provider_namespace() -> None:
    sources = _provider_sources()
    assert len(sources) > 40, "the provider packages were not found"
    stray = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in sources
        for module in wardian_imports(path)
        if not _allowed(path, module)
    ]
    assert stray == [], "import these from wardian_core.provider (or add them to it, and review the contract version)"


def test_the_namespace_is_the_surface_recorded_for_this_contract_version() -> None:
    recorded = SURFACE.get(CONTRACT_VERSION)
    assert recorded is not None, f"contract {CONTRACT_VERSION} has no recorded surface: record it in SURFACE"
    modules = [NAMESPACE, *(f"{NAMESPACE}.{name}" for name in SUBMODULES)]
    now = {module: tuple(sorted(importlib.import_module(module).__all__)) for module in modules}
    assert now == {module: tuple(sorted(names)) for module, names in recorded.items()}, (
        "the provider namespace changed: review CONTRACT_VERSION (a name gone, renamed or changed "
        "incompatibly is a new version) and record the surface in SURFACE"
    )


@pytest.mark.parametrize("module", [NAMESPACE, *(f"{NAMESPACE}.{name}" for name in SUBMODULES)])
def test_every_name_the_namespace_lists_is_there(module: str) -> None:
    namespace = importlib.import_module(module)
    assert [name for name in namespace.__all__ if not hasattr(namespace, name)] == []
