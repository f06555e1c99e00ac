"""The wire protocol of the host's control endpoint, and its client.

Newline-delimited JSON. A request is `{"v", "id", "kind", "params"}`; the answer is
`{"v", "id", "ok": true, "result"}` or `{"v", "id", "ok": false, "error"}`; a
streaming request gets `{"v", "id", "stream": {...}}` frames before its answer.
`wardian_core.control.models` defines these with pydantic for the host; the client
builds and reads plain dicts so the CLI starts fast, and tests check one against
the other.
"""
