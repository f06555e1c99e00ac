"""`wardian web`: make sure the host serves the live view and print its address."""

import ipaddress
import sys
import webbrowser
from pathlib import Path

import click

from wardian_core.errors import WardianError
from wardian_host.cli.live import emit, request

PORT_WARNING = (
    "warning: port {taken}, where the web view served before, is taken by another process: it serves on "
    "port {port} now, so pages open at the old address need this one"
)
LISTEN_WARNING = (
    "warning: the web view listens on {listen}, beyond this machine's loopback: whoever reaches port {port} "
    "and holds a login address or the view's cookie can drive your agents. Prefer the default (loopback) "
    "and your own tunnel (ssh -L {port}:127.0.0.1:{port})."
)


def _checked_listen(listen: str | None) -> str | None:
    if listen is None:
        return None
    try:
        address = ipaddress.ip_address(listen)
    except ValueError:
        address = None
    # A wildcard would serve every interface while the gate answers only to the names it knows.
    if address is None or address.is_unspecified:
        raise WardianError(
            "usage",
            f"--listen takes one IP address of this machine, not {listen!r}",
            "Give one, e.g. `--listen 192.168.1.20`, or leave it out to stay on loopback.",
            {"listen": listen},
        )
    return str(address)


def _revoked() -> dict[str, int]:
    try:
        answer: dict[str, int] = request("web.revoke", {})
    except WardianError as error:
        if error.code != "app_not_running":
            raise
        return {"revoked": 0}  # sessions live in the host's memory: with no host there are none
    return answer


@click.command("web")
@click.option("--open", "open_browser", is_flag=True, help="Open the view in your browser, logged in.")
@click.option("--listen", metavar="ADDR", help="Listen on ADDR instead of 127.0.0.1 (prints a warning).")
@click.option("--revoke-all", is_flag=True, help="End every session and unused login of the view.")
def web(open_browser: bool, listen: str | None, revoke_all: bool) -> None:
    """Serve the live web view and print its address; each address logs in once, within a minute."""
    if revoke_all:
        emit("web", _revoked())
        return
    # With --open the login goes into an owner-only page the browser opens: a browser's command
    # line is readable by every local user, who could redeem a login placed there first.
    params = {"listen": _checked_listen(listen), "login_page": open_browser}
    answer = request("web.open", params, start_host=True)
    if not answer["loopback"]:
        answer["warning"] = LISTEN_WARNING.format(listen=answer["listen"], port=answer["port"])
        sys.stderr.write(answer["warning"] + "\n")
    if "port_taken" in answer:
        answer["warning"] = PORT_WARNING.format(taken=answer["port_taken"], port=answer["port"])
        sys.stderr.write(answer["warning"] + "\n")
    if open_browser:
        webbrowser.open(Path(answer["login_page"]).as_uri())
    emit("web", answer)
