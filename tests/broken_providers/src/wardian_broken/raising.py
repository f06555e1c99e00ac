"""Loads and validates, then raises whenever it is asked anything but who it is."""

from wardian_broken import info
from wardian_core import hookimpl


@hookimpl
def provider_info():
    return info("raising")


@hookimpl
def build_argv(ctx):
    raise RuntimeError("raising cannot build an argv")


class ChokingParser:
    def feed(self, data):
        raise RuntimeError("raising chokes on output")


@hookimpl
def parse_output():
    return ChokingParser()


@hookimpl
def status_changed(current):
    raise RuntimeError("raising cannot observe")


@hookimpl
def resume_args():
    return 42  # not a list of strings
