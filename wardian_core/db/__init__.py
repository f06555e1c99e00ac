"""state.db: SQLite in WAL mode, forward-only migrations, and the queries on it."""

from wardian_core.db.connection import open_reader, open_writer, transaction

__all__ = ["open_reader", "open_writer", "transaction"]
