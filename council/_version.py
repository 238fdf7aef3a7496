"""The installed package's version, in a module of its own so any module can record it without a cycle."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("council")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
