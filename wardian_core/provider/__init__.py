"""The provider contract: the one namespace a provider package imports.

Everything a provider uses comes from here or from its submodules:

- `wardian_core.provider`: the hook marker (`hookimpl`), the models the hooks take and
  answer, the parser protocols `parse_output` answers, the declaration reader
  (`declared_provider_info`), the error type (`WardianError`) and `CONTRACT_VERSION`;
- `wardian_core.provider.parsing`: the parser kit, a base class per kind of source (screen,
  hook log, JSON lines, event stream) and the helpers behind them (events with evidence,
  usage and limit events, escapes, JSON fields, markers, settle delays);
- `wardian_core.provider.home`: what projecting a provider home takes (skill links, the hook
  recorder, the hook endpoint, the MCP server entry, atomic writes, Wardian's folders);
- `wardian_core.provider.testing`: the conformance kit and the test helpers a provider's own
  tests use (never imported by a provider at run time).

Every other module of `wardian_core` and all of `wardian_host` is Wardian's private business and
may change in any release. `CONTRACT_VERSION` covers exactly this namespace: it changes when a
name here (or in a submodule above) goes, is renamed or changes incompatibly, and a provider
declares the version it was built for in its `provider.toml`. tests/test_provider_surface.py
records the names of each version, so a change to this surface fails until the version is
reviewed.
"""

from wardian_core._hookimpl import hookimpl
from wardian_core.errors import WardianError
from wardian_core.hookspecs import CatchesUp, GoesQuiet, LooksAtScreens, OpensSource, SourceParser
from wardian_core.provider_declaration import DECLARATION_FILE, declared_provider_info
from wardian_core.provider_models import (
    APPROVAL_REASONS,
    CONTRACT_VERSION,
    EVENT_KINDS,
    HEADLESS_SOURCE,
    KNOWN_CAPABILITIES,
    LIMIT_KINDS,
    LOOPBACK_HOSTS,
    PTY_SOURCE,
    TURN_START_LIMIT_SECONDS,
    ApprovalReason,
    DialogKeys,
    EventKind,
    Evidence,
    HomePlan,
    InputProfile,
    LaunchConfig,
    LaunchPlan,
    LimitKind,
    LimitReport,
    LimitResume,
    McpRegistration,
    OutputSource,
    ParseResult,
    ProviderEvent,
    ProviderInfo,
    ProviderSetting,
    RateLimitWindow,
    SourceKind,
    SpawnContext,
    TestedVersions,
    Tokens,
    UsageReport,
)

__all__ = [
    "APPROVAL_REASONS",
    "CONTRACT_VERSION",
    "DECLARATION_FILE",
    "EVENT_KINDS",
    "HEADLESS_SOURCE",
    "KNOWN_CAPABILITIES",
    "LIMIT_KINDS",
    "LOOPBACK_HOSTS",
    "PTY_SOURCE",
    "TURN_START_LIMIT_SECONDS",
    "ApprovalReason",
    "CatchesUp",
    "DialogKeys",
    "EventKind",
    "Evidence",
    "GoesQuiet",
    "HomePlan",
    "InputProfile",
    "LaunchConfig",
    "LaunchPlan",
    "LimitKind",
    "LimitReport",
    "LimitResume",
    "LooksAtScreens",
    "McpRegistration",
    "OpensSource",
    "OutputSource",
    "ParseResult",
    "ProviderEvent",
    "ProviderInfo",
    "ProviderSetting",
    "RateLimitWindow",
    "SourceKind",
    "SourceParser",
    "SpawnContext",
    "TestedVersions",
    "Tokens",
    "UsageReport",
    "WardianError",
    "declared_provider_info",
    "hookimpl",
]
