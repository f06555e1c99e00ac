"""`wardian notify`: the notices sent when an agent needs a person."""

import click

from wardian_host.cli.live import emit, request


@click.group("notify")
def notify() -> None:
    """Notices: the web view's and the sinks' named in settings.toml (notify.urls)."""


@notify.command("test")
def test() -> None:
    """Send a test notice to every sink and open page; say whether the sinks took it, and why not."""
    emit("notify", request("notify.test", start_host=True, timeout=60.0))
