"""The web page ``council serve`` shows at ``/``: plain HTML, CSS and ES modules, no build step.

The files in ``static/`` are served as they are; they ship inside the package.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"

__all__ = ["STATIC_DIR"]
