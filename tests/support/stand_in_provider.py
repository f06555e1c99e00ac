"""A provider object handed to `Plugins.register`, for tests of the host's own plumbing.

`StandIn` answers who it is and a launch; a test subclasses it with the hooks it needs.
It proves what the host does with a provider's answers, never what a real CLI prints.
"""

from wardian_core import hookimpl
from wardian_core.provider_models import CONTRACT_VERSION, LaunchPlan, ProviderInfo, SpawnContext
from wardian_host.providers.manager import Plugins


class StandIn:
    name = "standin"
    capabilities: tuple[str, ...] = ("interactive",)

    @hookimpl
    def provider_info(self) -> ProviderInfo:
        return ProviderInfo(
            name=self.name,
            display_name=self.name,
            contract_version=CONTRACT_VERSION,
            executable=None,
            session_id_mode="assigned",
            capabilities=list(self.capabilities),
        )

    @hookimpl
    def build_argv(self, ctx: SpawnContext) -> LaunchPlan:
        return LaunchPlan(argv=[self.name], cwd=ctx.workspace)


def registered(provider: StandIn) -> Plugins:
    """Plugins holding `provider` alone, checked as an installed plugin is."""
    plugins = Plugins()
    plugins.register(provider, provider.name)
    assert plugins.failures == [], plugins.failures
    return plugins
