"""Running store calls from many threads at once, as many replicas' writers would."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_in_threads(calls: list[Callable[[], None]]) -> list[BaseException]:
    """Start every call on a thread of its own, wait for all, and return what they raised."""
    errors: list[BaseException] = []

    def guarded(call: Callable[[], None]) -> None:
        try:
            call()
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=guarded, args=(call,)) for call in calls]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return errors
