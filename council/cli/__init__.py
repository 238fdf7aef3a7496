"""The ``council`` command: one module per command group.

:mod:`~council.cli.app` parses arguments and runs ``ask``, ``compare``,
``show``, ``runs``, ``config`` and ``serve``; :mod:`~council.cli.rubric_command` and
:mod:`~council.cli.eval_command` add their groups; :mod:`~council.cli.common` holds
what they share; :mod:`~council.cli.render` draws results as terminal text.
Nothing outside this package imports it except ``council.__main__``: the
pipeline knows no screen.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.cli.app import main, run

__all__ = ["main", "run"]
