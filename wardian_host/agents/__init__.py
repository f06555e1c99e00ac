"""Agents while the host runs: lifecycle, registry, sending, watching, statuses, recovery."""
