"""A provider's identity as data: the `provider.toml` beside its plugin module.

Who a provider is (its name, what it is called, how a user installs its CLI, which versions
it was proven on) is the same handful of facts in every provider. Declared as data and read
by this one loader, they leave a plugin module holding only what is its own, and a third
party fills in a file rather than copying a constructor call.

What the provider's code also reads (the executable its argv starts with, the input profile,
settings whose values its code checks) is handed in by the plugin module instead, so each
fact has one home.

The declaration also says which contract the provider was built for (`contract_version`): it
is the provider's own fact, read from its own package, so a provider built for another
contract is refused by the host's gate rather than stamped with the installed version.
"""

import tomllib
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from wardian_core import hookimpl
from wardian_core.provider_models import CONTRACT_VERSION, InputProfile, ProviderInfo, ProviderSetting

DECLARATION_FILE = "provider.toml"


@cache
def _declared(path: Path) -> dict[str, Any]:
    # Read once per process: `provider_info` is asked on every load and `providers list`.
    with path.open("rb") as file:
        return tomllib.load(file)


def declared_provider_info(
    beside: str,
    *,
    executable: str | None,
    input_profile: InputProfile | None = None,
    settings: Sequence[ProviderSetting] | None = None,
) -> Callable[[], ProviderInfo]:
    """The `provider_info` hook of the plugin module at `beside` (its `__file__`): the
    `provider.toml` in the same folder, with the objects given here.

    The file is read when the hook is called, not when the module is imported: a missing or
    malformed declaration then marks this one provider broken (`providers show` says why)
    instead of failing its import.
    """
    path = Path(beside).with_name(DECLARATION_FILE)
    given: dict[str, Any] = {"executable": executable}
    if input_profile is not None:
        given["input_profile"] = input_profile
    if settings is not None:
        given["settings"] = list(settings)

    @hookimpl(specname="provider_info")
    def provider_info() -> ProviderInfo:
        declared = _declared(path)
        clashing = sorted(set(declared) & set(given))
        if clashing:
            raise ValueError(f"{path} declares {', '.join(clashing)}, which its plugin module gives")
        built_for = declared.get("contract_version")
        if type(built_for) is not int:
            raise ValueError(
                f"{path} declares no contract_version; add `contract_version = {CONTRACT_VERSION}` "
                f"if the provider is built for this wardian's contract"
            )
        if built_for != CONTRACT_VERSION:
            # Not validated against this contract's models, whose fields may differ from those it
            # was built for: the host's gate then names both versions instead of a schema error.
            return ProviderInfo.model_construct(**declared, **given)
        return ProviderInfo.model_validate({**declared, **given})

    return provider_info
