"""Root conftest: every suite in the repository gets a hermetic environment."""

pytest_plugins = ["wardian_host.testing.hermetic"]
