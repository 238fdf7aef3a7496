"""The OpenAI-compatible HTTP server (``council serve``)."""

from council.server.app import create_app, run_server

__all__ = ["create_app", "run_server"]
