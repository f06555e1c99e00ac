"""A fake model API on 127.0.0.1 speaking what the four provider CLIs call.

See `directives.py` for what a prompt can ask of it and `server.ModelServer` for the request log.
"""

from .directives import Directives, parse_directives
from .server import ModelServer
from .wire import RecordedRequest

__all__ = ["Directives", "ModelServer", "RecordedRequest", "parse_directives"]
