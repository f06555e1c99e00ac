"""Where a command's message comes from: MESSAGE, --stdin or --file PATH (send, ask, reply)."""

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from wardian_core.errors import WardianError
from wardian_core.message_reading import check_message_size, read_bounded

F = TypeVar("F", bound=Callable[..., Any])


def message_options(command: F) -> F:
    """`--stdin` and `--file PATH`, beside the command's own optional MESSAGE argument."""
    command = click.option("--file", "file", metavar="PATH", help="Read the message from a file.")(command)
    return click.option("--stdin", "from_stdin", is_flag=True, help="Read the message from standard input.")(command)


def given_sources(message: str | None, from_stdin: bool, file: str | None) -> int:
    return sum(1 for present in (message is not None, from_stdin, file is not None) if present)


def read_message(message: str | None, from_stdin: bool, file: str | None) -> str:
    """The one message given, as UTF-8 text; anything else is refused before the host is asked."""
    sources = given_sources(message, from_stdin, file)
    if sources != 1:
        raise WardianError(
            "usage",
            "give exactly one message source",
            "Pass MESSAGE, or --stdin, or --file PATH.",
            {"sources": sources},
        )
    if from_stdin:
        return _text(read_bounded(sys.stdin.buffer, "standard input"), "standard input")
    if file is not None:
        return _text(_read_file(file), file)
    assert message is not None
    # An argument with bytes that are not UTF-8 arrives with lone surrogates in their place.
    return _text(check_message_size(message.encode("utf-8", "surrogateescape"), "MESSAGE"), "MESSAGE")


def _read_file(file: str) -> bytes:
    """The file's bytes, up to the message limit: a device or a FIFO never ends by itself."""
    from wardian_host.answers.connection import from_caller

    try:
        with open(from_caller(file), "rb") as handle:
            return read_bounded(handle, file)
    except OSError as exc:
        raise WardianError("not_found", f"cannot read {file}: {exc.strerror}", "Check the path.") from None


def _text(data: bytes, source: str) -> str:
    """The message as text: what is typed into a terminal must be UTF-8, checked before anything is sent."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WardianError(
            "usage",
            f"the message from {source} is not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})",
            "Send text: convert it first (e.g. `iconv -t UTF-8`); nothing was sent.",
            {"source": source, "byte_offset": exc.start},
        ) from None
