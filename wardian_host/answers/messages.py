"""Where a message comes from: MESSAGE, standard input or a file (send, ask, reply, and their MCP
tools), read as UTF-8 text within the message limit before the host is asked."""

import sys

from wardian_core.errors import WardianError
from wardian_core.message_reading import check_message_size, read_bounded
from wardian_host.answers.connection import from_caller


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
