"""An agent's own provider settings, checked against what the provider declares."""

import pytest

from wardian_core.errors import WardianError
from wardian_core.provider_models import CONTRACT_VERSION, ProviderInfo, ProviderSetting
from wardian_host.providers.provider_settings import checked_provider_settings

INFO = ProviderInfo(
    name="mycli",
    display_name="My CLI",
    contract_version=CONTRACT_VERSION,
    executable=None,
    session_id_mode="assigned",
    settings=[
        ProviderSetting(name="quiet", type="number"),
        ProviderSetting(name="retries", type="integer"),
        ProviderSetting(name="trust", type="boolean"),
        ProviderSetting(name="mode", choices=["fast", "careful"]),
    ],
)


def test_text_from_the_command_line_becomes_the_declared_type() -> None:
    raw = {"quiet": "1.5", "retries": "3", "trust": "yes", "mode": "careful"}
    assert checked_provider_settings(INFO, raw) == {"quiet": 1.5, "retries": 3, "trust": True, "mode": "careful"}


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"quiet": "soon"}, "is not a number"),
        ({"quiet": True}, "is not a number"),
        ({"retries": "1.5"}, "is not an integer"),
        ({"trust": "maybe"}, "is not true or false"),
        ({"mode": "reckless"}, "is not one of ['fast', 'careful']"),
        ({"mood": "calm"}, "has no setting 'mood'"),
    ],
)
def test_a_bad_value_or_an_undeclared_name_is_refused(raw: dict, problem: str) -> None:
    with pytest.raises(WardianError) as refused:
        checked_provider_settings(INFO, raw)
    assert refused.value.code == "validation_failed" and problem in refused.value.message
