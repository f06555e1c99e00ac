"""The host process: its wiring, control server and request handlers."""
