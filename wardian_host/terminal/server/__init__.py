"""The terminal server: a process per home that owns the agents' PTYs, so they outlive the host.

`server` is the server itself, `ring` an agent's bounded output by absolute offset,
`framing` how a frame is read, `process` the entry point (its lock, socket and log).
The host is its client (`wardian_host.terminal.server_client`); the frames are
`wardian_core.terminal_wire`.
"""
