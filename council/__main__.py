"""``python -m council`` runs the command line."""

from council.cli import run

run()
