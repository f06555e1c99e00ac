"""What must not drift between the host, the CLI and providers.

Kept import-free: the CLI's read path imports submodules directly, and a provider
gets `hookimpl` lazily so importing `wardian_core` never pulls in pluggy.
"""

from typing import TYPE_CHECKING

from wardian_core.version import __version__

if TYPE_CHECKING:  # type checkers see the real marker; at run time `__getattr__` imports it
    from wardian_core._hookimpl import hookimpl

__all__ = ["__version__", "hookimpl"]


def __getattr__(name: str) -> object:
    if name == "hookimpl":
        from wardian_core._hookimpl import hookimpl

        return hookimpl
    raise AttributeError(f"module 'wardian_core' has no attribute {name!r}")
