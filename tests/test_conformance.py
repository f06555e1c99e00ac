"""The conformance suite shipped in wardian, run on the built-in and the example
provider, and shown to catch a provider that does not conform."""

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from wardian_core.provider_models import LaunchConfig
from wardian_host.providers.manager import Plugins
from wardian_host.testing.conformance import ProviderConformance, malformed_inputs, run_conformance

sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
pytest_plugins = ["wardian_test_packages"]


class TestGenericConformance(ProviderConformance):
    provider = "generic"
    launch = LaunchConfig(extra_args=["sh"], settings={"prompt_pattern": r"\$ $"})


class TestExampleConformance(ProviderConformance):
    provider = "example"

    @pytest.fixture
    def conformance_plugins(self, register_test_plugins: Callable[..., Plugins]) -> Plugins:
        """The example is a separate distribution: its plugin, registered (its entry point is
        proven in tests/test_plugins.py)."""
        return register_test_plugins(self.provider)


def test_malformed_inputs_are_deterministic_and_include_cut_utf8() -> None:
    assert malformed_inputs() == malformed_inputs()
    assert b"\xe2\x82" in malformed_inputs()


def test_conformance_reports_a_parser_that_raises(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    with pytest.raises(AssertionError) as caught:
        run_conformance("raising", tmp_path, plugins=register_test_plugins("raising"))
    report = str(caught.value)
    assert "feed(input #0: b'\\xe2\\x82') on pty" in report
    assert "RuntimeError: raising chokes on output" in report
    assert "build_argv for a fresh interactive launch" in report
    assert "resume_args: validation_failed" in report


def test_conformance_reports_a_plugin_whose_hooks_do_not_validate(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    with pytest.raises(AssertionError, match=r"does not load \(validate\): unknown hook 'parse_outputs'"):
        run_conformance("broken-hook", tmp_path, plugins=register_test_plugins("broken-hook"))


def test_conformance_refuses_generic_without_a_command(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="build_argv for a fresh interactive launch: usage"):
        run_conformance("generic", tmp_path)


def test_conformance_passes_on_the_example_provider(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    run_conformance("example", tmp_path, plugins=register_test_plugins("example"))


def test_conformance_catches_a_provider_keeping_its_own_resume_flags_and_an_unusable_parser(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    with pytest.raises(AssertionError) as caught:
        run_conformance("own-resume", tmp_path, plugins=register_test_plugins("own-resume"))
    report = str(caught.value)
    # Given the host's resume arguments, it added its own copy as well.
    assert "interactive resume launch given the host's ctx.resume_args ['--conformance-resume'" in report
    assert "does not carry them once: ['own-resume-cli', '--resume', 'conformance-session-0001']" in report
    assert "parse_output(pty): provider 'own-resume' answered parse_output with something that is not a" in report
