"""The conformance kit and the helpers a provider's own tests use. Part of the provider
contract (see `wardian_core.provider`), for tests only: a provider never imports it at run time.

The kit runs the provider the way the host does (its plugin manager, its parser calls), so it
lives with the host and is re-exported here; this is the one module of `wardian_core` that
imports `wardian_host`.

    from wardian_core.provider.testing import ProviderConformance

    class TestConformance(ProviderConformance):
        provider = "example"
"""

from wardian_core.hook_endpoint import home_secret, is_agent_token, record_port
from wardian_core.parsing.screen import ScreenModel
from wardian_core.status_rules import StatusCourse, next_status
from wardian_host.providers.manager import Plugins
from wardian_host.testing.conformance import ProviderConformance, conformance_problems, run_conformance
from wardian_host.testing.contexts import mcp_registration, spawn_context
from wardian_host.testing.reaping import reap_home
from wardian_host.testing.repositories import repository_and_worktree
from wardian_host.testing.rests import rests_of
from wardian_host.testing.terminal_replay import Terminal, kinds, offset_after

__all__ = [
    "Plugins",
    "ProviderConformance",
    "ScreenModel",
    "StatusCourse",
    "Terminal",
    "conformance_problems",
    "home_secret",
    "is_agent_token",
    "kinds",
    "mcp_registration",
    "next_status",
    "offset_after",
    "reap_home",
    "record_port",
    "repository_and_worktree",
    "rests_of",
    "run_conformance",
    "spawn_context",
]
