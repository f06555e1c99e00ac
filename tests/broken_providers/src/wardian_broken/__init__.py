"""Faulty plugins for Wardian's isolation tests."""

from wardian_core.provider_models import CONTRACT_VERSION, ProviderInfo


def info(name: str, contract_version: int = CONTRACT_VERSION, capabilities: list[str] | None = None) -> ProviderInfo:
    return ProviderInfo(
        name=name,
        display_name=name,
        contract_version=contract_version,
        executable=None,
        session_id_mode="assigned",
        capabilities=capabilities or ["interactive"],
    )
